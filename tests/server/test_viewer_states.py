"""The viewer while it loads, and on a turn that failed: it says so, and why."""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import BrowserContext, Route, expect

from steadyflow import LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, http_error
from tests.server.harness import APP, USER, create_session, run_body, running
from tests.server.test_viewer import browser, open_page  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow  # a real browser


async def test_the_viewer_shows_loading_then_why_a_turn_failed(
    browser: BrowserContext,  # noqa: F811
) -> None:
    agent = LlmAgent(name=APP, model=ScriptedLlm([http_error(400, "the prompt is too long")]))
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await create_session(client)
        failed = await client.post("/run", json=run_body(session_id, "hi"))
        assert failed.status_code == 502
        held = asyncio.Event()

        async def hold(route: Route) -> None:
            await held.wait()
            await route.continue_()

        page = await browser.new_page()
        await page.route("**/invocations", hold)
        await page.goto(f"{client.base_url}#/sessions/{USER}/{session_id}")
        await expect(page.locator("#view .loading")).to_have_text("Loading…")
        held.set()
        reason = page.locator(".invocation .failure")
        await expect(reason).to_contain_text("This turn failed: ModelHTTPError")
        await expect(reason).to_contain_text("the prompt is too long")
        await expect(page.locator("#view .loading")).to_have_count(0)
