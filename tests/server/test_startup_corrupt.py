"""The start-up sweep skips a corrupt record, logs it, and resumes the others."""

from __future__ import annotations

import logging

from steadyflow import LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm
from tests.durable.test_corrupt_records import crashed_sessions
from tests.server.harness import running


async def test_a_corrupt_record_is_logged_and_the_healthy_one_resumes_at_start_up(caplog):
    caplog.set_level(logging.INFO, logger="steadyflow.durable")
    service = InMemorySessionService()
    ids = await crashed_sessions(service, ["bad", "ok"])
    (record,) = await service.list_invocations(
        app_name="app", user_id="user-bad", session_id=ids["bad"]
    )
    record.llm_calls = -1000  # never trusted: the resume would spend 1,000 calls too many
    await service.update_invocation(record)
    model = ScriptedLlm(["resumed"])
    app = create_app(LlmAgent(name="app", model=model), service, resume_expired=True)

    async with running(app) as http:
        assert (await http.get("/health")).status_code == 200  # started: the sweep is under way
        await app.state.resume_sweep

    (ok,) = await service.list_invocations(app_name="app", user_id="user-ok", session_id=ids["ok"])
    assert (ok.status.value, len(model.requests)) == ("completed", 1)
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == [
        f"start-up resume: e-bad session {ids['bad']} (user user-bad) corrupt: "
        "llm_calls is -1000, not a count (an int >= 0)"
    ]
