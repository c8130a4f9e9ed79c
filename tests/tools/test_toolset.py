"""Toolsets: asked once per step, mixed with plain tools, closed with the runner."""

from typing import Any

from steadyflow import LlmAgent, Runner
from steadyflow.context import ReadonlyContext
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.tools import BaseTool, BaseToolset, FunctionTool


def add(a: int, b: int) -> int:
    """Add two numbers."""
    return a + b


def shout(text: str) -> str:
    """Upper-case a text."""
    return text.upper()


def whisper(text: str) -> str:
    """Lower-case a text."""
    return text.lower()


class CountingToolset(BaseToolset):
    """Gives ``shout`` first, then ``whisper`` as well; counts asks and closes."""

    def __init__(self) -> None:
        self.asks: list[str] = []
        self.closed = 0

    async def get_tools(self, readonly_context: ReadonlyContext | None = None) -> list[BaseTool]:
        assert readonly_context is not None
        self.asks.append(readonly_context.agent_name)
        tools: list[BaseTool] = [FunctionTool(shout)]
        if len(self.asks) > 1:
            tools.append(FunctionTool(whisper))
        return tools

    async def close(self) -> None:
        self.closed += 1


async def test_toolset_tools_are_declared_beside_plain_tools_and_run():
    toolset = CountingToolset()
    model = ScriptedLlm([[call("shout", {"text": "hi"}), call("add", {"a": 1, "b": 2})], "ok"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[add, toolset]), "q")

    assert result.error is None
    assert model.requests[0].tool_names() == ["add", "shout"]
    responses = [r.response for r in result.events[1].get_function_responses()]
    assert responses == [{"result": "HI"}, {"result": 3}]


async def test_toolset_is_asked_once_per_step_and_its_list_may_change():
    toolset = CountingToolset()
    model = ScriptedLlm([call("shout", {"text": "hi"}), call("whisper", {"text": "HO"}), "ok"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[toolset]), "q")

    assert result.error is None
    assert toolset.asks == ["a", "a", "a"]
    assert [r.tool_names() for r in model.requests] == [
        ["shout"],
        ["shout", "whisper"],
        ["shout", "whisper"],
    ]
    assert result.events[3].get_function_responses()[0].response == {"result": "ho"}


async def test_a_toolset_tool_named_like_a_plain_tool_is_left_out():
    class Clashing(BaseToolset):
        async def get_tools(self, readonly_context: Any = None) -> list[BaseTool]:
            return [FunctionTool(add, name="add"), FunctionTool(shout)]

    model = ScriptedLlm([call("add", {"a": 2, "b": 2}), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[FunctionTool(add), Clashing()])
    result = await run_turn(agent, "q")

    assert model.requests[0].tool_names() == ["add", "shout"]
    assert result.events[1].get_function_responses()[0].response == {"result": 4}


async def test_runner_close_closes_each_toolset_of_the_tree_once():
    shared, own = CountingToolset(), CountingToolset()
    child = LlmAgent(name="child", model=ScriptedLlm([]), tools=[shared, own])
    root = LlmAgent(name="root", model=ScriptedLlm([]), tools=[shared], sub_agents=[child])
    runner = Runner(app_name="t", agent=root, session_service=InMemorySessionService())

    await runner.close()

    assert (shared.closed, own.closed) == (1, 1)
