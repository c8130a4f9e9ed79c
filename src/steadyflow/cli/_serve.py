"""``steadyflow serve AGENT``: the HTTP API and trace viewer for one agent, with uvicorn.

The agent is loaded the way ``run`` loads it; the operator's limits become
``ServerLimits`` (bad values are a one-line error naming the flag). The
token comes from ``--auth-token`` or ``STEADYFLOW_AUTH_TOKEN``; it is printed
once, in the banner's viewer link (a URL fragment, never sent to the server),
and never logged. ``--emulator`` serves the agent against the provider
emulator; models are checked at start (``--no-check`` skips it).

The agent file's ``run_config`` gives the turns their defaults: the budget
of a request that names none (at most ``--max-llm-calls-limit``), the retry
policy (``--retry-attempts`` overriding its attempts), the usage limits,
the spend limits and the prices. The ``--max-*-per-invocation`` flags are
ceilings no request may pass; a usage limit neither the request nor the file
sets is the ceiling.

``--operator-token`` without ``--auth-token`` guards only the listing of
every user's sessions and leaves every other route open, which is rarely
what was meant: ``serve`` refuses it unless ``--open-routes`` says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..retry._config import RetryConfig
from ..run_config import RunConfig
from ..usage import UsageLimits
from ..usage.limits import to_money
from ._check import check_models
from ._emulator import provider_emulator
from ._errors import CliError, user_errors
from ._loader import load_agent_file, override_model
from ._settings import DEFAULT_RETRY_ATTEMPTS

if TYPE_CHECKING:
    from ..server import ServerLimits

__all__ = ["AUTH_TOKEN_ENV", "ServeOptions", "serve_command"]

AUTH_TOKEN_ENV = "STEADYFLOW_AUTH_TOKEN"
_DEFAULT_CALLS = 25

_FLAGS = {
    "max_llm_calls": "--max-llm-calls-limit",
    "default_max_llm_calls": "--max-llm-calls",
    "max_retry_attempts": "--retry-attempts-limit",
    "retry_config.max_attempts": "--retry-attempts",
}
USAGE_FLAGS = {
    "max_input_tokens": "--max-input-tokens-per-invocation",
    "max_output_tokens": "--max-output-tokens-per-invocation",
    "max_total_tokens": "--max-tokens-per-invocation",
    "max_cost": "--max-cost-per-invocation",
}
"""The ceilings' flags by ``UsageLimits`` field."""


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
    max_llm_calls: int | None
    retry_attempts_limit: int
    retry_attempts: int | None
    log_level: str
    max_cost_per_invocation: str | None = None
    max_tokens_per_invocation: int | None = None
    max_input_tokens_per_invocation: int | None = None
    max_output_tokens_per_invocation: int | None = None
    open_routes: bool = False
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
    for name, flag in _FLAGS.items():
        message = message.replace(f"ServerLimits.{name}", flag)
    message = re.sub(
        r"(?:ServerLimits\.max_usage\.|UsageLimits: )(\w+)",
        lambda match: USAGE_FLAGS.get(match[1], match[0]),
        message,
    )
    return CliError(message.replace("ServerLimits.default_usage", "run_config.usage_limits"))


def serve_command(options: ServeOptions) -> None:
    """Load the agent and serve it until interrupted."""
    try:
        from .. import server
    except ImportError as error:
        raise CliError(
            f"steadyflow serve needs the server extra ({error}): pip install 'steadyflow[server]'"
        ) from error
    _check_tokens(options)
    if options.retry_attempts is not None and options.retry_attempts < 1:
        raise CliError(f"--retry-attempts must be >= 1, got {options.retry_attempts}")
    with provider_emulator(options.emulator, options.emulator_faults):
        agent, file_config = load_agent_file(options.agent)
        if options.model:
            override_model(agent, options.model)
        if options.check:
            check_models(agent, emulator=options.emulator)
        limits = _limits(options, file_config)
        with user_errors():  # settings create_app refuses (an unpriced cost limit)
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


def _check_tokens(options: ServeOptions) -> None:
    if options.auth_token is not None and not options.auth_token.strip():
        raise CliError(f"--auth-token (or {AUTH_TOKEN_ENV}) is empty; set a token or unset it")
    if options.operator_token is not None and not options.operator_token.strip():
        raise CliError("--operator-token (or STEADYFLOW_OPERATOR_TOKEN) is empty")
    if options.operator_token is not None and options.operator_token == options.auth_token:
        raise CliError("--operator-token must differ from --auth-token")
    if options.operator_token is not None and options.auth_token is None:
        if not options.open_routes:
            raise CliError(
                "--operator-token without --auth-token guards only the listing of every "
                "user's sessions: every other route stays open to anyone who reaches the "
                "server; set --auth-token too, or pass --open-routes to serve this way"
            )


def _ceilings(options: ServeOptions) -> UsageLimits | None:
    cost = options.max_cost_per_invocation
    flag = "--max-cost-per-invocation"
    ceilings = UsageLimits(
        max_input_tokens=options.max_input_tokens_per_invocation,
        max_output_tokens=options.max_output_tokens_per_invocation,
        max_total_tokens=options.max_tokens_per_invocation,
        max_cost=None if cost is None else to_money("steadyflow", flag, cost),
    )
    return None if ceilings.is_empty else ceilings


def _limits(options: ServeOptions, file_config: RunConfig | None) -> ServerLimits:
    """The operator's limits: the flags, then the agent file's run settings."""
    from ..server import ServerLimits

    base = file_config or RunConfig(retry_config=RetryConfig(max_attempts=DEFAULT_RETRY_ATTEMPTS))
    calls = options.max_llm_calls
    if calls is None:
        calls = _DEFAULT_CALLS if file_config is None else file_config.max_llm_calls
        calls = (
            min(calls, options.max_llm_calls_limit) if calls > 0 else options.max_llm_calls_limit
        )
    retry = base.retry_config
    if options.retry_attempts is not None:
        retry = replace(retry, max_attempts=options.retry_attempts)
    try:
        ceilings = _ceilings(options)
        return ServerLimits(
            max_llm_calls=options.max_llm_calls_limit,
            default_max_llm_calls=calls,
            max_retry_attempts=options.retry_attempts_limit,
            retry_config=retry,
            max_usage=ceilings,
            default_usage=base.usage_limits,
            spend_limits=base.spend_limits,
            prices=base.prices,
        )
    except ValueError as error:
        raise _flag_error(error) from None
