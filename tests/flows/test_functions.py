"""Tool dispatch: ids, concurrency, errors the model can read, long-running tools."""

import asyncio

import pytest

from steadyflow import LlmAgent, LongRunningFunctionTool, Runner, ToolContext
from steadyflow.testing import ScriptedLlm, call, run_turn


def add(a: int, b: int) -> int:
    """Add two numbers.

    Args:
        a: first.
        b: second.
    """
    return a + b


def explode(reason: str) -> dict:
    """Always fails."""
    raise RuntimeError(f"boom: {reason}")


async def test_calls_without_ids_get_client_ids_matched_by_responses():
    model = ScriptedLlm([call("add", {"a": 1, "b": 2}), "3"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[add]), "q")
    (fc,) = result.events[0].get_function_calls()
    (fr,) = result.events[1].get_function_responses()
    assert fc.id and fc.id.startswith("sf-")
    assert fr.id == fc.id
    assert fr.response == {"result": 3}


async def test_provider_ids_are_kept():
    model = ScriptedLlm([call("add", {"a": 1, "b": 2}, id="call_abc"), "3"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[add]), "q")
    assert result.events[1].get_function_responses()[0].id == "call_abc"


async def test_parallel_calls_run_concurrently_into_one_response_event():
    started: list[str] = []
    both_started = asyncio.Event()

    async def slow(name: str) -> dict:
        """Wait until both calls are running.

        Args:
            name: which call.
        """
        started.append(name)
        if len(started) == 2:
            both_started.set()
        await asyncio.wait_for(both_started.wait(), timeout=5)
        return {"name": name}

    model = ScriptedLlm([[call("slow", {"name": "x"}), call("slow", {"name": "y"})], "done"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[slow]), "q")

    assert result.error is None
    responses = result.events[1].get_function_responses()
    assert [r.response["name"] for r in responses] == ["x", "y"]
    assert len([e for e in result.events if e.get_function_responses()]) == 1


async def test_tool_exception_becomes_an_error_response_and_the_turn_goes_on():
    model = ScriptedLlm([call("explode", {"reason": "disk"}), "sorry"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[explode]), "q")
    assert result.error is None
    response = result.events[1].get_function_responses()[0].response
    assert response["error"] == "tool 'explode' failed: RuntimeError: boom: disk"
    assert result.final_text == "sorry"
    assert model.requests[1].contents[-1].parts[0].function_response.response == response


async def test_unknown_tool_name_becomes_an_error_listing_the_tools():
    model = ScriptedLlm([call("subtract", {"a": 1}), "ok"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[add]), "q")
    response = result.events[1].get_function_responses()[0].response
    assert response == {"error": "unknown tool 'subtract'; available tools: add"}


async def test_bad_arguments_become_an_error_naming_the_argument():
    model = ScriptedLlm([call("add", {"a": "one", "b": 2, "c": 3}), "ok"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[add]), "q")
    error = result.events[1].get_function_responses()[0].response["error"]
    assert error.startswith("invalid arguments for tool 'add'")
    assert "a:" in error and "c:" in error


async def test_tool_context_writes_state_and_can_end_the_invocation():
    def finish(tool_context: ToolContext) -> str:
        """Close the ticket."""
        tool_context.state["ticket"] = "closed"
        tool_context.actions.end_invocation = True
        return "closed"

    model = ScriptedLlm([call("finish"), "never reached"])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[finish]), "q")
    assert model.calls == 1
    session = await result.stored_session()
    assert session.state["ticket"] == "closed"


async def test_skip_summarization_ends_the_turn_after_the_tool():
    def report(tool_context: ToolContext) -> dict:
        """Return the raw report."""
        tool_context.actions.skip_summarization = True
        return {"rows": 3}

    model = ScriptedLlm([call("report")])
    result = await run_turn(LlmAgent(name="a", model=model, tools=[report]), "q")
    assert result.error is None and model.calls == 1


async def test_long_running_tool_is_marked_and_does_not_block_the_turn():
    def request_approval(amount: int) -> None:
        """Ask a human to approve a refund.

        Args:
            amount: the refund amount.
        """
        return None

    model = ScriptedLlm([call("request_approval", {"amount": 50})])
    agent = LlmAgent(name="a", model=model, tools=[LongRunningFunctionTool(request_approval)])
    result = await run_turn(agent, "refund me")

    assert result.error is None
    (event,) = result.events
    assert event.long_running_tool_ids == [event.get_function_calls()[0].id]
    assert event.is_final_response()


def tag_items(items: list[str], tool_context: ToolContext) -> dict:
    """Tag items, changing the list it was given.

    Args:
        items: the items.
    """
    items.append("tagged-by-tool")
    return {"count": len(items)}


@pytest.mark.parametrize("store", ["memory", "sqlite"])
async def test_tool_and_callback_edits_to_args_leave_the_models_call_unchanged(store, tmp_path):
    def edit_args(tool, args, tool_context):
        args["items"].append("added-by-callback")

    model = ScriptedLlm([call("tag_items", {"items": ["a"]}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[tag_items], before_tool_callback=edit_args)
    url = "memory://" if store == "memory" else f"sqlite:///{tmp_path / 'store.db'}"
    runner = Runner(app_name="app", agent=agent, session_service=url)
    result = await run_turn(agent, "q", runner=runner)

    assert result.error is None
    assert result.events[1].get_function_responses()[0].response == {"count": 3}
    assert result.events[0].get_function_calls()[0].args == {"items": ["a"]}
    session = await result.stored_session()
    assert session.events[1].get_function_calls()[0].args == {"items": ["a"]}
    replayed = model.requests[1].contents[1].parts[0].function_call
    assert replayed is not None and replayed.args == {"items": ["a"]}
    await runner.close()


async def test_the_tool_runs_with_the_before_tool_callbacks_edited_args():
    def edit_args(tool, args, tool_context):
        args["items"].append("added-by-callback")

    model = ScriptedLlm([call("tag_items", {"items": ["a"]}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[tag_items], before_tool_callback=edit_args)
    result = await run_turn(agent, "q")
    assert result.events[1].get_function_responses()[0].response == {"count": 3}


async def test_parallel_calls_see_each_others_state_writes_and_all_are_kept():
    first_wrote = asyncio.Event()

    async def bump(label: str, tool_context: ToolContext) -> dict:
        """Count one more visit.

        Args:
            label: which call.
        """
        if label == "second":
            await first_wrote.wait()
        seen = tool_context.state.get("visits", 0)
        tool_context.state["visits"] = seen + 1
        tool_context.state[f"by_{label}"] = seen
        first_wrote.set()
        return {"seen": seen}

    model = ScriptedLlm(
        [[call("bump", {"label": "first"}), call("bump", {"label": "second"})], "ok"]
    )
    result = await run_turn(LlmAgent(name="a", model=model, tools=[bump]), "q")

    assert result.error is None
    delta = result.events[1].actions.state_delta
    assert delta == {"visits": 2, "by_first": 0, "by_second": 1}
    assert list(delta) == ["visits", "by_first", "by_second"]
    session = await result.stored_session()
    assert session.state["visits"] == 2
