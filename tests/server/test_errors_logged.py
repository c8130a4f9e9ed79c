"""A turn that fails with a 500 leaves its traceback in the server log."""

from __future__ import annotations

import logging

import pytest

from steadyflow import LlmAgent
from steadyflow.models.openai import OpenAI
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from tests.server.harness import APP, create_session, run_body, running


async def test_a_missing_api_key_is_a_500_with_its_traceback_logged(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    agent = LlmAgent(name=APP, model=OpenAI("gpt-4o-mini", base_url="http://127.0.0.1:9/v1"))
    with caplog.at_level(logging.ERROR, logger="steadyflow.server"):
        async with running(create_app(agent, InMemorySessionService())) as client:
            session_id = await create_session(client)
            response = await client.post("/run", json=run_body(session_id, "hi"))
    assert response.status_code == 500
    assert "set OPENAI_API_KEY" in response.json()["error"]["message"]
    [record] = [r for r in caplog.records if r.name == "steadyflow.server"]
    assert record.exc_info is not None and record.exc_info[0].__name__ == "ConfigurationError"
