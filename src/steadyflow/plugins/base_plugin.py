"""``BasePlugin``: hooks that apply to every agent a runner runs.

A plugin is given to the runner (``Runner(plugins=[...])``) instead of to
each agent: logging, policy checks, caching, request recording. Its hooks
have the agent callbacks' keyword signatures, run *before* the agent's own
callbacks, and short-circuit the same way: the first non-None result wins
and the callbacks after it (other plugins', then the agent's) do not run.
Override only the hooks you need; the others cost nothing (the runner calls
only hooks a plugin overrides).

The lifecycle, in ADK's names and order: ``on_user_message_callback`` (may
replace the message before it is stored), ``before_run_callback``, then per
agent ``before_agent_callback`` / ``after_agent_callback`` around the
model, tool and event hooks, and ``after_run_callback`` when the run ended
without error. Three hooks only notify, are told to every plugin and
ignore what they return: ``on_agent_error_callback`` (once for each agent
an error passes through: the agent that failed, then each agent around it),
``on_run_error_callback`` (the run failed) and ``on_run_cancelled_callback``
(the run was stopped: its caller went away, its task was cancelled, or the
process is shutting down; ADK has no such hook). A notifying hook that
raises is logged with the plugin's name and does not keep the others from
being told. ``close()`` runs when ``Runner.close()`` does.

The hooks defined here have the agent callbacks' keyword names, so a
plugin's hooks and an agent's callbacks share one signature and chain: the
agent hooks take no ``agent`` (``callback_context.agent_name`` names it)
and the tool hooks take ``args`` and ``tool_response``. A hook written with
ADK's names instead (``agent``; ``tool_args``, ``result``) is called with
those: a plugin written for ADK runs unchanged (``_adk_names``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..context import AgentNode, CallbackContext, InvocationContext, ToolContext
    from ..events import Event
    from ..models.llm_request import LlmRequest
    from ..models.llm_response import LlmResponse
    from ..tools.base_tool import BaseTool
    from ..types import Content

__all__ = ["HOOKS", "BasePlugin"]

HOOKS = (
    "on_user_message_callback",
    "before_run_callback",
    "after_run_callback",
    "on_event_callback",
    "before_agent_callback",
    "after_agent_callback",
    "before_model_callback",
    "after_model_callback",
    "on_model_error_callback",
    "before_tool_callback",
    "after_tool_callback",
    "on_tool_error_callback",
    "on_agent_error_callback",
    "on_run_error_callback",
    "on_run_cancelled_callback",
)
"""The hooks a plugin may override (``PluginManager`` keeps a list of overrides per hook)."""


class BasePlugin:
    """Runner-wide hooks; subclass and override the ones you need (sync or async).

    Args:
        name: the plugin's name, unique among a runner's plugins.
    """

    def __init__(self, name: str) -> None:
        if not isinstance(name, str) or not name:
            raise ValueError(f"a plugin needs a non-empty name, got {name!r}")
        self.name = name

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r})"

    async def on_user_message_callback(
        self, *, invocation_context: InvocationContext, user_message: Content
    ) -> Content | None:
        """A new message, before it is stored; a returned Content is stored and run instead.

        Not called for confirmation answers or resumes (they are no new message).
        """
        return None

    async def before_run_callback(self, *, invocation_context: InvocationContext) -> Content | None:
        """Before the agent runs (the user's message is stored); a Content answers instead."""
        return None

    async def after_run_callback(self, *, invocation_context: InvocationContext) -> None:
        """After the invocation's last event, when it ended without an error."""
        return None

    async def on_event_callback(
        self, *, invocation_context: InvocationContext, event: Event
    ) -> Event | None:
        """Each event before it is stored and yielded; a returned event replaces it."""
        return None

    async def before_agent_callback(self, *, callback_context: CallbackContext) -> Content | None:
        """Before an agent runs; a Content answers instead of the agent."""
        return None

    async def after_agent_callback(self, *, callback_context: CallbackContext) -> Content | None:
        """After an agent ran; a Content becomes one more event of the agent."""
        return None

    async def before_model_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest
    ) -> LlmResponse | None:
        """Before a model call; a response answers instead of the model."""
        return None

    async def after_model_callback(
        self, *, callback_context: CallbackContext, llm_response: LlmResponse
    ) -> LlmResponse | None:
        """After a complete model response; a response replaces it."""
        return None

    async def on_model_error_callback(
        self, *, callback_context: CallbackContext, llm_request: LlmRequest, error: Exception
    ) -> LlmResponse | None:
        """When the model call failed (the retry policy gave up); a response replaces it."""
        return None

    async def before_tool_callback(
        self, *, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext
    ) -> dict[str, Any] | None:
        """Before a tool runs; a dict is used instead of running it."""
        return None

    async def after_tool_callback(
        self,
        *,
        tool: BaseTool,
        args: dict[str, Any],
        tool_context: ToolContext,
        tool_response: dict[str, Any],
    ) -> dict[str, Any] | None:
        """After a tool ran; a dict replaces its response."""
        return None

    async def on_tool_error_callback(
        self, *, tool: BaseTool, args: dict[str, Any], tool_context: ToolContext, error: Exception
    ) -> dict[str, Any] | None:
        """When a tool raised; a dict becomes its response."""
        return None

    async def on_agent_error_callback(
        self, *, agent: AgentNode, callback_context: CallbackContext, error: Exception
    ) -> None:
        """An agent (its run or its before/after-agent callbacks) raised; notify only."""
        return None

    async def on_run_error_callback(
        self, *, invocation_context: InvocationContext, error: Exception
    ) -> None:
        """The run raised ``error`` (which still reaches the caller); notify only."""
        return None

    async def on_run_cancelled_callback(self, *, invocation_context: InvocationContext) -> None:
        """The run was stopped before its end (caller gone, task cancelled, shutdown)."""
        return None

    async def close(self) -> None:
        """Release what the plugin holds (connections, files); ``Runner.close()`` calls it."""
        return None
