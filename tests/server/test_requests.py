"""The exact ``LlmRequest`` of each step, recorded for the viewer."""

from __future__ import annotations

from typing import Any

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig, Runner
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.server import ServerLimits, create_app
from steadyflow.server._requests import RequestLog
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, fake_clock, http_error
from tests.server.harness import APP, USER, create_session, lookup_order, run_body, running

SESSIONS = f"/apps/{APP}/users/{USER}/sessions"


def add_policy(callback_context: Any, llm_request: LlmRequest) -> None:
    llm_request.append_instructions(["Never promise delivery dates."])


async def test_each_step_request_is_the_one_the_model_received():
    model = ScriptedLlm([call("lookup_order", {"order_id": "812"}), "Shipped."])
    agent = LlmAgent(name=APP, model=model, tools=[lookup_order], before_model_callback=add_policy)
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        events = (await client.post("/run", json=run_body(session_id, "Where?"))).json()["events"]
        base = f"{SESSIONS}/{session_id}/invocations/{events[0]['invocation_id']}/steps"
        first = await client.get(f"{base}/1/request")
        second = await client.get(f"{base}/2/request")
    assert first.json() == model.requests[0].model_dump(mode="json")
    assert second.json() == model.requests[1].model_dump(mode="json")
    assert "Never promise" in first.json()["config"]["system_instruction"]
    assert second.json()["contents"][-1]["parts"][0]["function_response"]["name"] == "lookup_order"


async def test_a_retried_step_is_recorded_once_under_its_step_number():
    model = ScriptedLlm([http_error(503), "ok"])
    limits = ServerLimits(max_retry_attempts=3)
    async with running(
        create_app(LlmAgent(name=APP, model=model), InMemorySessionService(), limits)
    ) as client:
        session_id = await create_session(client)
        with fake_clock():
            body = run_body(session_id, "hi", retry_max_attempts=2)
            events = (await client.post("/run", json=body)).json()["events"]
        base = f"{SESSIONS}/{session_id}/invocations/{events[0]['invocation_id']}/steps"
        assert (await client.get(f"{base}/1/request")).json()["contents"][0]["parts"][0][
            "text"
        ] == "hi"
        assert (await client.get(f"{base}/2/request")).status_code == 404


async def test_an_invocation_of_another_session_is_404():
    agent = LlmAgent(name=APP, model=ScriptedLlm(["a"]))
    async with running(create_app(agent, InMemorySessionService())) as client:
        first, second = await create_session(client), await create_session(client)
        events = (await client.post("/run", json=run_body(first))).json()["events"]
        path = f"{SESSIONS}/{second}/invocations/{events[0]['invocation_id']}/steps/1/request"
        response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "invocation_not_found"


async def test_a_request_this_process_did_not_record_is_404_saying_so():
    store = InMemorySessionService()
    agent = LlmAgent(name=APP, model=ScriptedLlm(["a"]))
    async with running(create_app(agent, store)) as client:
        session_id = await create_session(client)
        events = (await client.post("/run", json=run_body(session_id))).json()["events"]
    other = create_app(LlmAgent(name=APP, model=ScriptedLlm([])), store)  # a second process
    async with running(other) as client:
        path = f"{SESSIONS}/{session_id}/invocations/{events[0]['invocation_id']}/steps/1/request"
        response = await client.get(path)
    assert response.status_code == 404
    assert response.json()["error"]["type"] == "request_not_recorded"


def test_the_log_forgets_the_oldest_invocations():
    log = RequestLog(max_invocations=2)
    for invocation in ("a", "b", "c"):
        log.record(invocation, 1, LlmRequest(model=invocation))
    assert [log.get(i, 1) is not None for i in ("a", "b", "c")] == [False, True, True]


def test_the_log_keeps_a_copy_of_the_request():
    log = RequestLog()
    request = LlmRequest(model="m")
    log.record("a", 3, request)
    request.model = "changed later"
    recorded = log.get("a", 3)
    assert recorded is not None and recorded.model == "m"


def test_serving_an_agent_leaves_its_callbacks_as_they_were():
    agent = LlmAgent(name="a", model=ScriptedLlm([]), before_model_callback=add_policy)
    create_app(agent, InMemorySessionService())
    create_app(agent, InMemorySessionService())
    assert agent.before_model_callbacks == (add_policy,)


def test_the_log_size_must_be_positive():
    with pytest.raises(ValueError, match="max_invocations must be >= 1"):
        RequestLog(max_invocations=0)


async def _run(runner: Runner, run_config: RunConfig | None = None) -> list:
    session = await runner.create_session(user_id="u")
    return [
        e
        async for e in runner.run_async(
            user_id="u", session_id=session.id, new_message="go", run_config=run_config
        )
    ]


async def test_the_log_sees_each_calls_final_request_once_as_a_runner_plugin():
    def add_rule(callback_context, llm_request):
        llm_request.append_instructions(["Be brief."])

    def tool() -> str:
        """A tool."""
        return "ok"

    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([http_error(503), call("tool"), "done"]),
        tools=[tool],
        before_model_callback=add_rule,
    )
    log = RequestLog()
    runner = Runner(app_name="x", agent=agent, session_service="memory://", plugins=[log])
    with fake_clock():
        events = await _run(runner, RunConfig(retry_config=RetryConfig(max_attempts=2)))
    assert events[-1].text == "done"
    invocation = events[-1].invocation_id
    recorded = [log.get(invocation, step) for step in (1, 2, 3)]
    assert recorded[2] is None  # once per step, not per attempt
    assert all((r.config.system_instruction or "").endswith("Be brief.") for r in recorded[:2])


async def test_the_log_records_nothing_when_a_callback_answers():
    agent = LlmAgent(
        name="a",
        model=ScriptedLlm([]),
        before_model_callback=lambda **_: LlmResponse.from_text("cached"),
    )
    log = RequestLog()
    runner = Runner(app_name="x", agent=agent, session_service="memory://", plugins=[log])
    events = await _run(runner)
    assert log.get(events[-1].invocation_id, 1) is None
