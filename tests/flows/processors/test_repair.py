"""The request builder repairs what the session holds: every call gets exactly one result."""

from __future__ import annotations

from tests.flows.wire import refusals

from steadyflow import Content, Event, FunctionCall, InMemoryRunner, LlmAgent, Part
from steadyflow.models import LlmResponse
from steadyflow.testing import ScriptedLlm


def lookup(q: str) -> dict:
    """Look something up.

    Args:
        q: what.
    """
    return {"found": q}


def shape(part: Part) -> str:
    """A part as its text, ``call:name`` or ``result:name``."""
    if part.function_call is not None:
        return f"call:{part.function_call.name}"
    if part.function_response is not None:
        return f"result:{part.function_response.name}"
    return part.text or ""


def shapes(contents: list[Content]) -> list[list[str]]:
    return [[shape(p) for p in c.parts] for c in contents]


async def test_a_call_left_without_result_by_a_crash_gets_one_that_says_so():
    model = ScriptedLlm(["Let me check again."])
    runner = InMemoryRunner(LlmAgent(name="a", model=model, tools=[lookup]))
    session = await runner.create_session(user_id="u")
    # What a process that died between the model's answer and the tool's result leaves.
    crashed_call = Part(function_call=FunctionCall(id="c1", name="lookup", args={"q": "x"}))
    for event in (
        Event(author="user", content=Content.from_text("find x")),
        Event(author="a", content=Content(role="model", parts=[crashed_call])),
    ):
        await runner.session_service.append_event(session, event)

    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="hello?")
    ]

    assert events[-1].text == "Let me check again."
    sent = model.requests[0]
    assert shapes(sent.contents) == [["find x"], ["call:lookup"], ["result:lookup"], ["hello?"]]
    response = sent.contents[2].parts[0].function_response
    assert response is not None and response.id == "c1"
    assert response.response["outcome"] == "unknown" and "interrupted" in response.response["error"]
    assert refusals(sent) == {}


async def test_a_result_whose_call_is_gone_becomes_context_text():
    model = ScriptedLlm(["ok"])
    runner = InMemoryRunner(LlmAgent(name="a", model=model))
    session = await runner.create_session(user_id="u")
    orphan = Part.from_function_response("lookup", {"found": "x"}, id="gone")
    await runner.session_service.append_event(
        session, Event(author="a", content=Content(role="user", parts=[orphan]))
    )

    [_ async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="and?")]

    sent = model.requests[0]
    assert shapes(sent.contents) == [
        ['For context: tool `lookup` returned {"found": "x"}'],
        ["and?"],
    ]
    assert refusals(sent) == {}


async def test_a_call_event_whose_parts_are_all_thoughts_stays_paired_with_its_result():
    thought_call = Part(function_call=FunctionCall(name="lookup", args={"q": "x"}), thought=True)
    answer = LlmResponse(
        content=Content(
            role="model", parts=[Part(text="I should look", thought=True), thought_call]
        )
    )
    model = ScriptedLlm([answer, "Found it."])
    runner = InMemoryRunner(LlmAgent(name="a", model=model, tools=[lookup]))
    session = await runner.create_session(user_id="u")

    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="find x")
    ]

    assert events[-1].text == "Found it."
    sent = model.requests[1]
    assert shapes(sent.contents)[1:] == [["I should look", "call:lookup"], ["result:lookup"]]
    call_part = sent.contents[1].parts[1]
    assert call_part.function_call is not None and not call_part.thought
    assert refusals(sent) == {}
