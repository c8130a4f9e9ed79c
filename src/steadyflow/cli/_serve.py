"""``steadyflow serve AGENT``: the HTTP API and trace viewer for one agent, with uvicorn.

The agent is loaded the way ``run`` loads it; the operator's limits become
``ServerLimits`` (bad values are a one-line error naming the flag). The
token comes from ``--auth-token`` or ``STEADYFLOW_AUTH_TOKEN``; it is printed
once, in the banner's viewer link (a URL fragment, never sent to the server),
and never logged. ``--emulator`` serves the agent against the provider
emulator; models are checked at start (``--no-check`` skips it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..retry._config import RetryConfig
from ._check import check_models
from ._emulator import provider_emulator
from ._errors import CliError
from ._loader import load_agent, override_model

if TYPE_CHECKING:
    from ..server import ServerLimits

__all__ = ["AUTH_TOKEN_ENV", "ServeOptions", "serve_command"]

AUTH_TOKEN_ENV = "STEADYFLOW_AUTH_TOKEN"

_FLAGS = {
    "max_llm_calls": "--max-llm-calls-limit",
    "default_max_llm_calls": "--max-llm-calls",
    "max_retry_attempts": "--retry-attempts-limit",
    "retry_config.max_attempts": "--retry-attempts",
}


@dataclass(frozen=True, kw_only=True)
class ServeOptions:
    """The ``serve`` command's flags."""

    agent: str
    host: str
    port: int
    session_db: str
    auth_token: str | None
    model: str | None
    app: str | None
    max_llm_calls_limit: int
    max_llm_calls: int
    retry_attempts_limit: int
    retry_attempts: int
    log_level: str
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    operator_token: str | None = None
    allow_shared_state: bool = False
    emulator: bool = False
    emulator_faults: tuple[str, ...] = ()
    check: bool = True
    resume_expired: bool = True
    temporal_address: str | None = None
    task_queue: str = "steadyflow"
    namespace: str = "default"


def _flag_error(error: ValueError) -> CliError:
    """A ``ServerLimits`` error, naming the flag instead of the field."""
    message = str(error)
    for field, flag in _FLAGS.items():
        message = message.replace(f"ServerLimits.{field}", flag)
    return CliError(message)


def serve_command(options: ServeOptions) -> None:
    """Load the agent and serve it until interrupted."""
    try:
        from ..server import ServerLimits
    except ImportError as error:
        raise CliError(
            f"steadyflow serve needs the server extra ({error}): pip install 'steadyflow[server]'"
        ) from error
    if options.auth_token is not None and not options.auth_token.strip():
        raise CliError(f"--auth-token (or {AUTH_TOKEN_ENV}) is empty; set a token or unset it")
    if options.operator_token is not None and not options.operator_token.strip():
        raise CliError("--operator-token (or STEADYFLOW_OPERATOR_TOKEN) is empty")
    if options.operator_token is not None and options.operator_token == options.auth_token:
        raise CliError("--operator-token must differ from --auth-token")
    if options.retry_attempts < 1:
        raise CliError(f"--retry-attempts must be >= 1, got {options.retry_attempts}")
    try:
        limits = ServerLimits(
            max_llm_calls=options.max_llm_calls_limit,
            default_max_llm_calls=options.max_llm_calls,
            max_retry_attempts=options.retry_attempts_limit,
            retry_config=RetryConfig(max_attempts=options.retry_attempts),
        )
    except ValueError as error:
        raise _flag_error(error) from None
    with provider_emulator(options.emulator, options.emulator_faults):
        _load_and_serve(options, limits)


def _load_and_serve(options: ServeOptions, limits: ServerLimits) -> None:
    from .. import server

    agent = load_agent(options.agent)
    if options.model:
        override_model(agent, options.model)
    if options.check:
        check_models(agent)
    server.serve(
        agent,
        session_url=options.session_db,
        host=options.host,
        port=options.port,
        limits=limits,
        auth_token=options.auth_token,
        app_name=options.app,
        log_level=options.log_level,
        access=server.Access(
            allowed_hosts=options.allowed_hosts,
            allowed_origins=options.allowed_origins,
            operator_token=options.operator_token,
            allow_shared_state=options.allow_shared_state,
        ),
        resume_expired=options.resume_expired,
        temporal_address=options.temporal_address,
        task_queue=options.task_queue,
        namespace=options.namespace,
    )
