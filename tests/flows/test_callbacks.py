"""Model and tool callbacks: order, replacement, sync and async, lists."""

import pytest

from steadyflow import Content, LlmAgent, ModelHTTPError, Part
from steadyflow.models import LlmResponse
from steadyflow.testing import ScriptedLlm, call, run_turn


def echo(text: str) -> dict:
    """Echo text back.

    Args:
        text: what to echo.
    """
    return {"echo": text}


def explode(reason: str) -> dict:
    """Always fails.

    Args:
        reason: why.
    """
    raise RuntimeError(f"boom: {reason}")


async def test_after_model_callback_replaces_the_response():
    model = ScriptedLlm(["secret: 1234"])

    def redact(callback_context, llm_response):
        return LlmResponse.from_text(llm_response.text.replace("1234", "****"))

    result = await run_turn(LlmAgent(name="a", model=model, after_model_callback=redact), "q")
    assert result.final_text == "secret: ****"


async def test_on_model_error_response_replaces_the_failed_call():
    model = ScriptedLlm([ModelHTTPError(400, "content filtered")])
    seen = []

    def apologise(callback_context, llm_request, error):
        seen.append(error)
        return LlmResponse.from_text("Sorry, I can't help with that.")

    result = await run_turn(LlmAgent(name="a", model=model, on_model_error_callback=apologise), "q")
    assert result.error is None
    assert result.final_text == "Sorry, I can't help with that."
    assert len(seen) == 1 and isinstance(seen[0], ModelHTTPError)
    session = await result.stored_session()
    assert session.events[-1].text == "Sorry, I can't help with that."


async def test_on_model_error_returning_none_lets_the_error_propagate():
    model = ScriptedLlm([ModelHTTPError(400, "bad request")])
    agent = LlmAgent(name="a", model=model, on_model_error_callback=lambda **_: None)
    result = await run_turn(agent, "q")
    assert isinstance(result.error, ModelHTTPError)
    session = await result.stored_session()
    assert [e.author for e in session.events] == ["user"]


async def test_processing_continues_after_an_on_model_error_function_call():
    model = ScriptedLlm([ModelHTTPError(500), "echoed"])
    fallback = LlmResponse(
        content=Content(role="model", parts=[Part.from_function_call("echo", {"text": "x"})])
    )
    agent = LlmAgent(
        name="a", model=model, tools=[echo], on_model_error_callback=lambda **_: fallback
    )
    result = await run_turn(agent, "q")
    assert result.final_text == "echoed"
    assert result.events[1].get_function_responses()[0].response == {"echo": "x"}


async def test_callbacks_accept_lists_of_sync_and_async_first_non_none_wins():
    order = []

    def first(callback_context, llm_request):
        order.append("sync")

    async def second(callback_context, llm_request):
        order.append("async")
        return LlmResponse.from_text("from second")

    def third(callback_context, llm_request):
        order.append("never")
        return LlmResponse.from_text("from third")

    agent = LlmAgent(name="a", model=ScriptedLlm([]), before_model_callback=[first, second, third])
    result = await run_turn(agent, "q")
    assert order == ["sync", "async"]
    assert result.final_text == "from second"


async def test_before_model_callback_can_edit_the_request():
    model = ScriptedLlm(["ok"])

    def add_rule(callback_context, llm_request):
        llm_request.append_instructions(["Always answer in French."])

    await run_turn(LlmAgent(name="a", model=model, before_model_callback=add_rule), "q")
    assert "Always answer in French." in (model.requests[0].config.system_instruction or "")


async def test_callback_state_writes_land_on_the_model_event():
    def remember(callback_context, llm_response):
        callback_context.state["last_answer_len"] = len(llm_response.text)

    model = ScriptedLlm(["four"])
    result = await run_turn(LlmAgent(name="a", model=model, after_model_callback=remember), "q")
    session = await result.stored_session()
    assert session.state["last_answer_len"] == 4
    assert result.events[-1].actions.state_delta == {"last_answer_len": 4}


async def test_before_tool_callback_answers_instead_of_the_tool():
    ran = []

    def tool(x: int) -> dict:
        ran.append(x)
        return {"x": x}

    model = ScriptedLlm([call("tool", {"x": 1}), "done"])
    agent = LlmAgent(
        name="a", model=model, tools=[tool], before_tool_callback=lambda **_: {"blocked": True}
    )
    result = await run_turn(agent, "q")
    assert ran == []
    assert result.events[1].get_function_responses()[0].response == {"blocked": True}


async def test_after_tool_callback_replaces_the_tool_response():
    def after(tool, args, tool_context, tool_response):
        assert tool.name == "echo" and args == {"text": "hi"}
        return {**tool_response, "checked": True}

    model = ScriptedLlm([call("echo", {"text": "hi"}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[echo], after_tool_callback=after)
    result = await run_turn(agent, "q")
    assert result.events[1].get_function_responses()[0].response == {"echo": "hi", "checked": True}


def test_a_callback_that_is_not_callable_is_rejected_naming_the_argument():
    with pytest.raises(ValueError, match="after_tool_callback"):
        LlmAgent(name="a", model=ScriptedLlm([]), after_tool_callback=["nope"])  # type: ignore[list-item]


async def test_after_model_callback_error_propagates_and_skips_model_error_callbacks():
    model = ScriptedLlm(["fine"])
    seen_errors = []
    after_calls = []

    def broken_after(callback_context, llm_response):
        after_calls.append(llm_response.text)
        raise KeyError("bug in the callback")

    def on_error(callback_context, llm_request, error):
        seen_errors.append(error)
        return LlmResponse.from_text("replacement")

    agent = LlmAgent(
        name="a", model=model, after_model_callback=broken_after, on_model_error_callback=on_error
    )
    result = await run_turn(agent, "q")

    assert isinstance(result.error, KeyError)
    assert seen_errors == []
    assert after_calls == ["fine"]  # once, never on a replacement


async def test_on_tool_error_callback_result_becomes_the_tool_response():
    model = ScriptedLlm([call("explode", {"reason": "disk"}), "handled"])
    seen = []

    def on_tool_error(tool, args, tool_context, error):
        seen.append((tool.name, args, type(error).__name__, tool_context.function_call_id))
        return {"fallback": f"no {args['reason']}"}

    agent = LlmAgent(name="a", model=model, tools=[explode], on_tool_error_callback=on_tool_error)
    result = await run_turn(agent, "q")

    (response,) = result.events[1].get_function_responses()
    assert response.response == {"fallback": "no disk"}
    assert seen == [("explode", {"reason": "disk"}, "RuntimeError", response.id)]


async def test_on_tool_error_callback_returning_none_leaves_the_error_response():
    model = ScriptedLlm([call("explode", {"reason": "disk"}), "ok"])
    agent = LlmAgent(
        name="a", model=model, tools=[explode], on_tool_error_callback=lambda **_: None
    )
    result = await run_turn(agent, "q")
    (response,) = result.events[1].get_function_responses()
    assert "RuntimeError: boom: disk" in response.response["error"]


async def test_on_tool_error_callback_answers_for_a_tool_the_agent_does_not_have():
    # As in ADK: a hallucinated name reaches the on-tool-error callbacks.
    model = ScriptedLlm([call("web-search", {"q": "weather"}), "ok"])
    seen = []

    def on_tool_error(tool, args, tool_context, error):
        seen.append((tool.name, args, type(error).__name__, error.tool_name))
        return {"note": "no web search here; answer from what you know"}

    agent = LlmAgent(name="a", model=model, tools=[explode], on_tool_error_callback=on_tool_error)
    result = await run_turn(agent, "q")

    assert result.error is None
    assert seen == [("web-search", {"q": "weather"}, "ToolNotFoundError", "web-search")]
    (response,) = result.events[1].get_function_responses()
    assert response.response == {"note": "no web search here; answer from what you know"}
    assert model.requests[1].contents[-1].parts[0].function_response.response == response.response


async def test_an_unknown_tool_no_callback_answers_for_still_tells_the_model_the_tools():
    model = ScriptedLlm([call("subtract", {"a": 1}), "ok"])
    agent = LlmAgent(
        name="a", model=model, tools=[explode], on_tool_error_callback=lambda **_: None
    )
    result = await run_turn(agent, "q")
    (response,) = result.events[1].get_function_responses()
    assert response.response == {"error": "unknown tool 'subtract'; available tools: explode"}
