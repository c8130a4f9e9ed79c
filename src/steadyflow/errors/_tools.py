"""Errors a tool raises for the model to read: a failed call, arguments that do not fit."""

from __future__ import annotations

from typing import Any

from ._base import SteadyflowError


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


class ToolNotFoundError(ToolResponseError, ValueError):
    """The model called a tool name the agent does not have.

    Offered to the on-tool-error callbacks (with a stand-in tool of that
    name), so a callback can answer for a hallucinated tool; otherwise the
    model reads ``response``, which lists the tools it does have.

    Attributes:
        tool_name: the name the model called.
    """

    def __init__(self, tool_name: str, available: list[str]) -> None:
        message = f"unknown tool {tool_name!r}; available tools: {', '.join(available) or '(none)'}"
        super().__init__(message, {"error": message})
        self.tool_name = tool_name


class NestedConfirmationError(ToolResponseError):
    """A tool inside an ``AgentTool``'s agent asked for a person's confirmation.

    An agent tool cannot pause its caller's invocation for a person (the
    answer would have to run the specialist again from the start), so the
    specialist stops there and its call fails; the caller's model reads the
    message. Give tools that need confirmation to the calling agent instead.

    Attributes:
        agent_tool: the ``AgentTool``'s name.
        tool: the inner tool that asked.
    """

    def __init__(self, agent_tool: str, tool: str) -> None:
        message = (
            f"agent tool {agent_tool!r} stopped: its tool {tool!r} asked for a person's "
            "confirmation, which a tool call cannot wait for; nothing of that call ran"
        )
        super().__init__(message, {"error": message})
        self.agent_tool = agent_tool
        self.tool = tool
