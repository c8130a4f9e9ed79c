"""The root of the error tree, configuration errors, and errors of control flow.

Control flow: agent transfers, resume, confirmation answers, invocations run
elsewhere. ``error_chain`` walks an error's causes.
"""

from __future__ import annotations

from collections.abc import Iterator


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


class ToolDefinitionError(ConfigurationError):
    """A function cannot become a tool; raised when the tool is built, not when it is called.

    A ``*args`` or ``**kwargs`` parameter, a parameter with no type hint, a
    type pydantic cannot describe as JSON schema, or a docstring ``Args:``
    entry for a parameter the function does not have.

    Attributes:
        tool_name: the tool's name.
        parameter: the parameter at fault (None when the whole signature is).
    """

    def __init__(self, tool_name: str, parameter: str | None, problem: str) -> None:
        self.tool_name = tool_name
        self.parameter = parameter
        where = f"tool {tool_name!r}"
        if parameter:
            where = f"parameter {parameter!r} of {where}"
        super().__init__(f"{where}: {problem}")


class ModelNotFoundError(ConfigurationError):
    """No registered pattern matches a model name."""


class UnknownPriceError(ConfigurationError):
    """A ``max_cost`` limit applies to a model whose price is not known.

    Raised before the model is called. Pass the model's price in
    ``UsageLimits(prices=...)`` (private deployments), or install
    ``steadyflow[cost]`` for the maintained price list.
    """


class UnboundedOutputError(ConfigurationError):
    """A hard usage or spend limit applies to an attempt whose output has no known bound.

    Raised before the model is called: the request sets no
    ``max_output_tokens`` and no output ceiling is known for the model, so
    the attempt's worst case cannot be reserved. The message names the
    settings that fix it: ``max_output_tokens`` in the agent's
    ``generate_content_config``, the model's ceiling as
    ``ModelPrice(max_output_tokens=...)``, or ``allow_overshoot=True`` on the
    limit (the one-response overshoot rule).
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


class PluginError(SteadyflowError):
    """A runner plugin's hook raised; the plugin's exception is ``__cause__``.

    Raised where the hook ran (the model call, the tool call, the run), so
    the invocation fails the way a failing callback fails it. A hook that
    raises a steadyflow error on purpose (a limit, a confirmation error)
    keeps that error, with a note naming the plugin and the hook.

    Attributes:
        plugin_name: the plugin's ``name``.
        hook: the hook that raised (``before_model_callback``, ...).
    """

    def __init__(self, plugin_name: str, hook: str, error: BaseException) -> None:
        self.plugin_name = plugin_name
        self.hook = hook
        super().__init__(
            f"plugin {plugin_name!r} raised in {hook}: {type(error).__name__}: {error}"
        )


class ConfirmationError(SteadyflowError, ValueError):
    """An answer to a confirmation request that cannot be taken; nothing was stored.

    Malformed (``confirmed`` not a bool, unknown keys), mixed with other
    parts, naming no request of the session, or answering one that is not
    waiting (already answered, or its invocation is no longer paused). The
    message names the request id and what was wrong.
    """


class ConfirmationPendingError(ConfirmationError):
    """A plain message came while confirmation requests wait, and the run refuses it.

    Raised before anything is stored or any model is called, when
    ``RunConfig(on_pending_confirmation="raise")``; by default the new
    message supersedes the waiting requests instead (docs/confirmation.md).

    Attributes:
        invocation_ids: the waiting invocations.
        request_ids: their waiting confirmation requests (answer these).
    """

    def __init__(self, session_id: str, invocation_ids: list[str], request_ids: list[str]) -> None:
        self.invocation_ids = invocation_ids
        self.request_ids = request_ids
        super().__init__(
            f"session {session_id!r} has confirmation requests waiting for an answer "
            f"({', '.join(request_ids)}); answer them with confirmation_answer(...) "
            "before sending a new message"
        )


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
