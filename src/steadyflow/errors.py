"""Every exception steadyflow raises, in one shallow tree.

::

    SteadyflowError
    ├── ConfigurationError (also ValueError)   bad arguments, bad templates
    │   ├── MissingStateKeyError               {key} in an instruction, not in state
    │   ├── ModelNotFoundError                 a model name no registry pattern matches
    │   └── UnknownPriceError                  a max_cost limit on a model with no known price
    ├── InvocationLimitError                   a per-invocation limit ends the invocation
    │   ├── LlmCallsLimitExceededError         RunConfig.max_llm_calls reached
    │   └── UsageLimitExceededError            RunConfig.usage_limits / spend_limits reached
    ├── SpendStoreError                        a spend store could not be read or written
    ├── AgentTransferError                     a transfer the agent tree does not allow
    │   └── AgentNotFoundError                 transfer to an agent that is not there
    ├── NothingToResumeError                   resume found no unfinished invocation
    ├── ConfirmationError (also ValueError)    an answer that fits no waiting confirmation
    ├── InvocationFailedError                  an invocation run on Temporal ended in error
    ├── ToolResponseError                      a tool failed; .response is what the model reads
    │   └── ToolArgumentsError (also ValueError)  the model's arguments do not fit the tool
    ├── ModelError                             a provider call failed
    │   ├── ModelHTTPError                     the provider answered with an error status
    │   │   └── QuotaExhaustedError            a daily/monthly quota is spent: no retry, no wait
    │   ├── ModelConnectionError               no answer: refused, reset, DNS
    │   ├── ModelTimeoutError                  no answer in time
    │   ├── ModelResponseError                 an answer that could not be parsed
    │   │   └── ModelResponseTooLargeError     an answer over the runner's max_response_bytes
    │   ├── CircuitOpenError                   the breaker for this model is open
    │   └── PacingTimeoutError                 the pacer's wait would pass the call's deadline
    └── SessionError                           the session store refused
        ├── SessionNotFoundError
        ├── StaleSessionError                  another writer appended first
        ├── SessionStoreError                  the database failed: read-only, full, down
        ├── EventTooLargeError                 an event over the store's max_event_bytes
        ├── StaleInvocationError               another process wrote the invocation first
        ├── SchemaVersionError                 the database is from a newer steadyflow
        └── TraceFormatError (also ValueError) a stored trace this version cannot read

Model errors carry ``status_code``, ``retry_after`` (seconds, the provider's
own wait hint), lower-cased ``headers`` and the provider's ``body``; provider
adapters raise them with the SDK's exception as ``__cause__``.
``DEFAULT_RETRYABLE_STATUS_CODES`` is the one set of statuses counted as
transient by default (by ``RetryConfig`` and by ``FallbackLlm`` alike).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

__all__ = [
    "DEFAULT_RETRYABLE_STATUS_CODES",
    "AgentNotFoundError",
    "AgentTransferError",
    "CircuitOpenError",
    "ConfigurationError",
    "ConfirmationError",
    "EventTooLargeError",
    "InvocationFailedError",
    "InvocationLimitError",
    "LlmCallsLimitExceededError",
    "MissingStateKeyError",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelNotFoundError",
    "ModelResponseError",
    "ModelResponseTooLargeError",
    "ModelTimeoutError",
    "NothingToResumeError",
    "PacingTimeoutError",
    "QuotaExhaustedError",
    "SchemaVersionError",
    "SessionError",
    "SessionNotFoundError",
    "SessionStoreError",
    "SpendStoreError",
    "StaleInvocationError",
    "StaleSessionError",
    "SteadyflowError",
    "ToolArgumentsError",
    "ToolResponseError",
    "TraceFormatError",
    "UnknownPriceError",
    "UsageLimitExceededError",
    "call_limit_in_chain",
    "error_chain",
]

DEFAULT_RETRYABLE_STATUS_CODES: frozenset[int] = frozenset({408, 429, 500, 502, 503, 504, 529})
"""Transient HTTP statuses: timeout, rate limit, server errors, Anthropic's overload (529)."""


class SteadyflowError(Exception):
    """Base of every steadyflow exception."""


class ConfigurationError(SteadyflowError, ValueError):
    """An argument, template or setting is invalid; the message names it."""


class MissingStateKeyError(ConfigurationError, KeyError):
    """An instruction uses ``{key}`` but the session state has no such key."""

    def __init__(self, key: str, agent_name: str) -> None:
        self.key = key
        self.agent_name = agent_name
        super().__init__(
            f"instruction of agent {agent_name!r} uses {{{key}}} but state has no {key!r}; "
            f"set it in state or write {{{key}?}} to make it optional"
        )

    def __str__(self) -> str:
        return str(self.args[0])


class ModelNotFoundError(ConfigurationError):
    """No registered pattern matches a model name."""


class UnknownPriceError(ConfigurationError):
    """A ``max_cost`` limit applies to a model whose price is not known.

    Raised before the model is called. Pass the model's price in
    ``UsageLimits(prices=...)`` (private deployments), or install
    ``steadyflow[cost]`` for the maintained price list.
    """


class InvocationLimitError(SteadyflowError):
    """A limit that ends the invocation: calls, tokens or money.

    Never retried, never passed to on-model-error callbacks, never a reason
    for a ``FallbackLlm`` to try its next model, whichever attempt hits it.
    """


class LlmCallsLimitExceededError(InvocationLimitError):
    """The invocation reached ``RunConfig.max_llm_calls``.

    Never retried and never passed to on-model-error callbacks: it is the last
    defence against a model that keeps calling tools forever.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"max_llm_calls ({limit}) exceeded for this invocation")


class UsageLimitExceededError(InvocationLimitError):
    """The next model attempt would cross a token or cost limit; it was not sent.

    Raised before the attempt by ``RunConfig.usage_limits`` (this invocation)
    or ``RunConfig.spend_limits`` (across invocations). The same rules as
    ``LlmCallsLimitExceededError`` apply.

    Attributes:
        limit: the limit's name (``max_total_tokens``, ``max_cost``, ...),
            prefixed with the spend limit's scope for a spend limit
            (``user:max_cost``).
        maximum: the limit's value.
        used: what was used already (tokens, or US dollars as a ``Decimal``).
        needed: what the refused attempt could use (its estimate).
    """

    def __init__(self, limit: str, maximum: Any, used: Any, needed: Any, call: str) -> None:
        self.limit, self.maximum, self.used, self.needed = limit, maximum, used, needed
        super().__init__(
            f"{limit} ({maximum}) would be exceeded: {used} used, and {call} "
            f"could use up to {needed} more; the call was not sent"
        )


class SpendStoreError(SteadyflowError):
    """A spend store (Redis) could not reserve or charge; the attempt was not sent.

    Spend limits fail closed: without the store there is no way to know what
    was spent. The driver's error is the ``__cause__``.
    """


class AgentTransferError(SteadyflowError):
    """An agent tried to hand over to an agent it may not transfer to.

    Attributes:
        from_agent: the agent that asked for the transfer.
        to_agent: the name it asked to transfer to.
    """

    def __init__(self, message: str, *, from_agent: str = "", to_agent: str = "") -> None:
        super().__init__(message)
        self.from_agent = from_agent
        self.to_agent = to_agent


class AgentNotFoundError(AgentTransferError):
    """A transfer named an agent that is not in the agent tree."""


class NothingToResumeError(SteadyflowError, LookupError):
    """``Runner.resume`` found no unfinished invocation to continue.

    The message says what there is instead (a finished one, a live one held
    by another process, or none at all).
    """


class ConfirmationError(SteadyflowError, ValueError):
    """An answer to a confirmation request that cannot be taken; nothing was stored.

    Malformed (``confirmed`` not a bool, unknown keys), mixed with other
    parts, naming no request of the session, or answering one that is not
    waiting (already answered, or its invocation is no longer paused). The
    message names the request id and what was wrong.
    """


class InvocationFailedError(SteadyflowError):
    """An invocation that ran elsewhere (a Temporal worker) ended in error.

    The error itself was raised in the worker; what crosses over is its
    name and message (``LlmCallsLimitExceededError`` is raised as itself).

    Attributes:
        invocation_id: the invocation (its workflow id).
        error_type: the class name of the worker's error.
        error_message: its message.
    """

    def __init__(self, invocation_id: str, error_type: str, error_message: str) -> None:
        self.invocation_id = invocation_id
        self.error_type = error_type
        self.error_message = error_message
        super().__init__(f"invocation {invocation_id!r} failed: {error_message}")


class ToolResponseError(SteadyflowError):
    """A tool call failed in a way the model should read and act on.

    Raised by a tool (an MCP tool whose server answered ``isError``, a
    protocol error, a timeout, a dropped connection); the flow records the
    call as failed, offers the error to the on-tool-error callbacks, and
    otherwise sends ``response`` (a JSON object with an ``"error"`` key) to
    the model as the function response.
    """

    def __init__(self, message: str, response: dict[str, Any]) -> None:
        super().__init__(message)
        self.response = response


class ToolArgumentsError(ToolResponseError, ValueError):
    """The model's arguments do not match the tool's parameters.

    The model reads the message (``response`` is ``{"error": message}``) and
    may call again with fixed arguments.
    """

    def __init__(self, message: str) -> None:
        super().__init__(message, {"error": message})


class ModelError(SteadyflowError):
    """A provider call failed.

    Attributes:
        provider: the provider's short name ("openai", "gemini", ...), if known.
        status_code: the HTTP status, when the provider answered.
        retry_after: the provider's wait hint in seconds, when it gave one.
        headers: response headers, names lower-cased.
        body: the provider's error body (parsed JSON or text).
        usage: the ``UsageMetadata`` the provider reported before the call
            failed (a stream cut after its usage arrived), else None: a
            failed attempt that was billed counts against usage limits.
    """

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        status_code: int | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
        usage: Any = None,
    ) -> None:
        super().__init__(message)
        self.usage = usage
        self.provider = provider
        self.status_code = status_code
        self.retry_after = retry_after
        self.headers: dict[str, str] = {k.lower(): v for k, v in (headers or {}).items()}
        self.body = body


class ModelHTTPError(ModelError):
    """The provider answered with an error status."""

    status_code: int

    def __init__(
        self,
        status_code: int,
        message: str | None = None,
        *,
        provider: str | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        text = message or f"provider returned HTTP {status_code}"
        super().__init__(
            text,
            provider=provider,
            status_code=status_code,
            retry_after=retry_after,
            headers=headers,
            body=body,
        )


class QuotaExhaustedError(ModelHTTPError):
    """A quota that resets in hours (a daily or monthly one), not a per-minute rate limit.

    Raised for a 429 whose payload says so (Gemini quota ids with ``PerDay``
    or ``PerMonth``, OpenAI's ``insufficient_quota``) or whose reset is an
    hour or more away, and by a pacer for a key it marked exhausted (then
    with no provider request). Never retried and never waited for: a
    ``FallbackLlm`` moves to its next model at once.

    Attributes:
        reset_after: seconds until the quota resets, when known.
    """

    def __init__(
        self,
        status_code: int,
        message: str | None = None,
        *,
        reset_after: float | None = None,
        provider: str | None = None,
        retry_after: float | None = None,
        headers: Mapping[str, str] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(
            status_code,
            message,
            provider=provider,
            retry_after=retry_after,
            headers=headers,
            body=body,
        )
        self.reset_after = reset_after


class ModelConnectionError(ModelError):
    """The provider could not be reached or dropped the connection."""


class ModelTimeoutError(ModelError):
    """The provider did not answer in time."""


class ModelResponseError(ModelError):
    """The provider answered with something that could not be parsed."""


class ModelResponseTooLargeError(ModelResponseError):
    """One model response grew past the runner's ``max_response_bytes``.

    The stream was closed and nothing of the answer was stored; never retried
    (output had been produced).

    Attributes:
        size: the bytes counted when the bound was crossed.
        limit: the runner's ``max_response_bytes``.
    """

    def __init__(self, agent_name: str, size: int, limit: int) -> None:
        self.size = size
        self.limit = limit
        super().__init__(
            f"agent {agent_name!r}: a model response of at least {size} bytes is over "
            f"max_response_bytes ({limit}); the stream was closed and nothing of it stored"
        )


class CircuitOpenError(ModelError):
    """The circuit breaker for this model is open: the call fails fast."""


class PacingTimeoutError(ModelError):
    """The pacer could let the attempt go only after the call's deadline: nothing was sent.

    Raised before the first attempt when the provider's learned rate limit
    admits it later than ``RetryConfig.total_timeout`` (or the pacer's
    ``max_wait``) allows; no provider request was made and no attempt was
    counted. A ``FallbackLlm`` moves to its next model.

    Attributes:
        key: the pacer's key (``provider:model``).
        wait: seconds the pacer would have had to wait.
        allowed: seconds the call could still wait.
    """

    def __init__(self, key: str, wait: float, allowed: float) -> None:
        provider = key.partition(":")[0] or None
        super().__init__(
            f"pacer for {key}: the rate limit admits this call in {wait:.3g}s, past its "
            f"deadline ({allowed:.3g}s left of total_timeout / max_wait); nothing was sent",
            provider=provider,
        )
        self.key = key
        self.wait = wait
        self.allowed = allowed


class SessionError(SteadyflowError):
    """The session store refused an operation."""


class SessionNotFoundError(SessionError, LookupError):
    """No session with this app, user and id."""

    def __init__(self, app_name: str, user_id: str, session_id: str) -> None:
        self.app_name = app_name
        self.user_id = user_id
        self.session_id = session_id
        super().__init__(
            f"session {session_id!r} not found for app {app_name!r}, user {user_id!r}; "
            "create it first with session_service.create_session(...)"
        )


class StaleSessionError(SessionError):
    """Another writer appended to the session after this copy was loaded.

    Reload the session and retry the turn; nothing of this append was stored.
    """

    def __init__(self, session_id: str, expected_revision: int, actual_revision: int) -> None:
        self.session_id = session_id
        self.expected_revision = expected_revision
        self.actual_revision = actual_revision
        super().__init__(
            f"session {session_id!r} was changed by another writer "
            f"(revision {actual_revision}, this copy has {expected_revision}); "
            "reload the session and retry the turn"
        )


class SessionStoreError(SessionError):
    """The session database could not do what was asked: read-only, full, unreachable.

    The message names the store by its URL with credentials masked and gives
    the database's own reason, never the SQL statement or its parameters
    (they can hold user content); the driver's error is the ``__cause__``.
    The operation stored nothing.

    Attributes:
        url: the store's URL, credentials masked.
    """

    def __init__(self, url: str, action: str, reason: str) -> None:
        self.url = url
        super().__init__(f"session store {url} could not {action}: {reason}")


class EventTooLargeError(SessionError):
    """An event is larger than the session store accepts; nothing of it was stored.

    A model answer or tool result this large would be sent back to the
    model on every later turn, and held in every server's memory.

    Attributes:
        event_id: the refused event.
        size: its size in bytes as stored JSON.
        limit: the store's ``max_event_bytes``.
    """

    def __init__(self, event_id: str, size: int, limit: int) -> None:
        self.event_id = event_id
        self.size = size
        self.limit = limit
        super().__init__(
            f"event {event_id!r} is {size} bytes of JSON, over the session store's "
            f"max_event_bytes ({limit}); nothing of it was stored"
        )


class StaleInvocationError(SessionError):
    """Another writer stored the invocation's record after this copy was read.

    Raised to the second of two processes claiming or advancing the same
    invocation: the other one holds it; nothing of this write was stored.
    """

    def __init__(self, invocation_id: str, expected_revision: int) -> None:
        self.invocation_id = invocation_id
        self.expected_revision = expected_revision
        super().__init__(
            f"invocation {invocation_id!r} was written by another process since this copy "
            f"was read (revision {expected_revision}); it is held or finished elsewhere"
        )


class SchemaVersionError(SessionError):
    """The session database was written by a newer schema than this code knows."""


class TraceFormatError(SessionError, ValueError):
    """A stored trace does not match the schema (written by another version?)."""


def error_chain(error: BaseException) -> Iterator[BaseException]:
    """``error`` and every exception reachable through ``__cause__``/``__context__``.

    Depth-first, the cause before the context, each exception once (cycles
    are safe). The context is followed even when suppressed (``raise ...
    from None``): it is still what actually went wrong.
    """
    seen: set[int] = set()
    pending: list[BaseException] = [error]
    while pending:
        link = pending.pop()
        if id(link) in seen:
            continue
        seen.add(id(link))
        yield link
        # Pushed in reverse so the cause is visited first.
        for nxt in (link.__context__, link.__cause__):
            if nxt is not None and id(nxt) not in seen:
                pending.append(nxt)


def call_limit_in_chain(error: BaseException) -> bool:
    """Whether an ``InvocationLimitError`` (calls, tokens, money) is in ``error``'s chain."""
    return any(isinstance(link, InvocationLimitError) for link in error_chain(error))
