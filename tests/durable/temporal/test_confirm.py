"""Confirmation on Temporal: the pause is stored, the workflow waits for the ``answer`` signal."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from temporalio.client import Client

from steadyflow import FunctionTool, LlmAgent
from steadyflow.durable.temporal import TemporalRunner, TemporalSettings
from steadyflow.errors import ConfirmationError
from steadyflow.sessions.invocations import InvocationStatus
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_answer
from tests.durable.temporal.conftest import APP, Worker

pytestmark = [pytest.mark.temporal, pytest.mark.postgres]


@pytest.fixture
async def runner(
    postgres_url: str, temporal_client: Client, settings: TemporalSettings
) -> AsyncIterator[TemporalRunner]:
    made = TemporalRunner(
        app_name=APP,
        agent=LlmAgent(name="bank", model=ScriptedLlm([])),
        session_service=postgres_url,
        client=temporal_client,
        settings=settings,
    )
    yield made
    await made.close()


@pytest.mark.parametrize(
    ("confirmed", "runs", "text"), [(True, 1, "Sent."), (False, 0, "Not sent.")]
)
async def test_a_paused_call_runs_once_confirmed_or_never_declined(
    postgres_url: str, runner: TemporalRunner, worker: Worker, confirmed: bool, runs: int, text: str
) -> None:
    sent: list[int] = []

    def transfer(amount: int) -> dict[str, int]:
        sent.append(amount)
        return {"sent": amount}

    model = ScriptedLlm([call("transfer", {"amount": 5}), text])
    agent = LlmAgent(
        name="bank", model=model, tools=[FunctionTool(transfer, require_confirmation=True)]
    )
    session = await runner.create_session(user_id="u")
    async with worker(agent, postgres_url):
        paused = [
            e
            async for e in runner.run_async(
                user_id="u", session_id=session.id, new_message="send 5"
            )
        ]
        (record,) = await runner.session_service.list_invocations(
            app_name=APP, user_id="u", session_id=session.id
        )
        assert record.status is InvocationStatus.WAITING and sent == []
        (request_id,) = paused[-1].long_running_tool_ids or []
        answer = confirmation_answer(request_id, confirmed=confirmed)
        rest = [
            e
            async for e in runner.run_async(user_id="u", session_id=session.id, new_message=answer)
        ]
        with pytest.raises(ConfirmationError):
            async for _ in runner.run_async(user_id="u", session_id=session.id, new_message=answer):
                pass
    assert sent == [5] * runs
    assert rest[-1].text == text
    stored = await runner.session_service.get_session(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert stored is not None
    assert [e.author for e in stored.events] == ["user", "bank", "bank", "user", "bank", "bank"]
    (record,) = await runner.session_service.list_invocations(
        app_name=APP, user_id="u", session_id=session.id
    )
    assert record.status is InvocationStatus.COMPLETED
