"""MCP tools and people: ``require_confirmation`` on a toolset, the server name in traces."""

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.errors import ConfigurationError
from steadyflow.sessions import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_answer, confirmation_requests

pytestmark = pytest.mark.slow  # a real MCP server in a subprocess


def double(n: int) -> int:
    """Double a number."""
    return 2 * n


async def turn(runner: Runner, session_id: str, message) -> list:
    events = runner.run_async(user_id="u", session_id=session_id, new_message=message)
    return [e async for e in events]


async def test_destructive_tools_wait_for_a_person_and_the_others_run(stdio_toolset):
    model = ScriptedLlm([[call("add", {"a": 1, "b": 2}), call("delete_everything")], "Both done."])
    toolset = stdio_toolset(require_confirmation="destructive")
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[toolset]),
        session_service="memory://",
    )
    try:
        session = await runner.create_session(user_id="u")
        (request,) = confirmation_requests((await turn(runner, session.id, "go"))[-1])
        assert request.call.name == "delete_everything"
        (record,) = await runner.session_service.list_invocations(
            app_name="t", user_id="u", session_id=session.id
        )
        assert record.status is InvocationStatus.WAITING

        events = await turn(runner, session.id, confirmation_answer(request.id, confirmed=True))
    finally:
        await runner.close()

    responses = [r.response for r in events[0].get_function_responses()]
    assert responses == [{"result": 3}, {"result": "deleted"}]
    assert events[-1].text == "Both done."


async def test_a_predicate_sees_the_mcp_tool_and_the_arguments(stdio_toolset):
    seen: list[tuple[str, dict]] = []

    def big_sums(tool, args, tool_context) -> bool:
        seen.append((tool.name, dict(args)))
        return tool.name == "add" and args["a"] > 10

    model = ScriptedLlm([[call("add", {"a": 1, "b": 1}), call("add", {"a": 50, "b": 1})], "ok"])
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[stdio_toolset(require_confirmation=big_sums)]),
        session_service="memory://",
    )
    try:
        session = await runner.create_session(user_id="u")
        (request,) = confirmation_requests((await turn(runner, session.id, "go"))[-1])
        events = await turn(runner, session.id, confirmation_answer(request.id, confirmed=False))
    finally:
        await runner.close()

    assert request.call.args == {"a": 50, "b": 1}
    assert sorted(seen, key=lambda s: s[1]["a"]) == [
        ("add", {"a": 1, "b": 1}),
        ("add", {"a": 50, "b": 1}),
    ]
    small, declined = [r.response for r in events[0].get_function_responses()]
    assert small == {"result": 2} and declined["declined"] is True


def test_a_bad_require_confirmation_is_refused(stdio_toolset):
    with pytest.raises(ConfigurationError, match="require_confirmation"):
        stdio_toolset(require_confirmation="sometimes")


async def test_the_trace_names_the_server_of_each_mcp_call(stdio_toolset):
    model = ScriptedLlm([[call("add", {"a": 1, "b": 2}), call("double", {"n": 4})], "done"])
    runner = Runner(
        app_name="t",
        agent=LlmAgent(name="a", model=model, tools=[double, stdio_toolset()]),
        session_service="memory://",
    )
    try:
        session = await runner.create_session(user_id="u")
        await turn(runner, session.id, "go")
        (record,) = await runner.session_service.list_invocations(
            app_name="t", user_id="u", session_id=session.id
        )
    finally:
        await runner.close()

    assert record.trace is not None
    tools = {t.name: t.server for t in record.trace.steps[0].tools}
    assert tools == {"add": "test-server", "double": None}
    assert record.trace.to_dict()["steps"][0]["tools"][0]["server"] == "test-server"
