"""The trace viewer in a real browser: headless Chromium (Debian's) driven by Playwright.

A demo session is made the way a user would make one: the order-support
agent answers "Where is order 812?" through the API while its model's first
attempt fails with a 503 and the retry policy is on. The browser then walks
sessions list -> conversation -> timeline, and chats with the agent while
the answer streams. Screenshots land in ``test-artifacts/``.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import BrowserContext, Page, async_playwright, expect

from steadyflow import Content, RetryConfig
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call, fake_clock, http_error
from tests.server.harness import Gate, running
from tests.support.servers import server_unavailable

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "examples"))
from order_support import build_agent

pytestmark = pytest.mark.slow  # a real browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    # Foreign names that resolve to loopback: another site's page, and a rebound name.
    "--host-resolver-rules=MAP attacker.test 127.0.0.1, MAP rebound.test 127.0.0.1",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
APP, USER = "order_support", "demo-user"
OPERATOR = "operator-token"
ANSWER_812 = "Order 812 has shipped with DHL and should arrive on 2026-12-03."


class DemoModel(BaseLlm):
    """The demo turn's script; then one chat answer streamed in two chunks around a gate."""

    def __init__(self, gate: Gate) -> None:
        super().__init__("demo-model")
        self.gate = gate
        self.script = ScriptedLlm(
            [
                http_error(503, retry_after=2.0),
                call("lookup_order", {"order_id": "812"}),
                ANSWER_812,
            ]
        )

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        if self.script.remaining():
            async for response in self.script.generate_content_async(request, stream):
                yield response
            return
        yield LlmResponse(content=Content.from_text("Order 977 is ", role="model"), partial=True)
        await self.gate.hold()
        yield LlmResponse(
            content=Content.from_text("still processing.", role="model"), partial=True
        )
        yield LlmResponse(content=Content.from_text("Order 977 is still processing.", role="model"))


@pytest.fixture
async def browser(tmp_path: Path) -> AsyncIterator[BrowserContext]:
    """Chromium with a fresh profile; skipped locally (failed in CI) when it is missing."""
    if not os.access(CHROMIUM, os.X_OK):
        server_unavailable(f"{CHROMIUM} not found; run scripts/ensure-services.sh")
    async with async_playwright() as playwright:
        context = await playwright.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 900},
        )
        yield context
        await context.close()


async def make_demo_session(client: Any) -> str:
    session_id: str = (await client.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
    body = {"app_name": APP, "user_id": USER, "session_id": session_id}
    body |= {"new_message": "Where is order 812?", "run_config": {"retry_max_attempts": 3}}
    with fake_clock():  # the 2 s Retry-After wait is recorded, not slept
        assert (await client.post("/run", json=body)).status_code == 200
    return session_id


async def open_page(browser: BrowserContext, url: str) -> tuple[Page, list[str]]:
    page = await browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    await page.goto(url)
    return page, problems


async def test_sessions_conversation_timeline_and_a_streamed_chat(browser: BrowserContext):
    gate = Gate()
    limits = ServerLimits(retry_config=RetryConfig(max_attempts=1))
    app = create_app(
        build_agent(DemoModel(gate)), InMemorySessionService(), limits, operator_token=OPERATOR
    )
    ARTIFACTS.mkdir(exist_ok=True)
    await browser.add_init_script(f"sessionStorage.setItem('steadyflow.token', '{OPERATOR}')")
    async with running(app) as client:
        session_id = await make_demo_session(client)
        page, problems = await open_page(browser, str(client.base_url))

        row = page.locator(f'tr[data-session="{session_id}"]')
        await expect(row).to_contain_text(USER)
        await expect(row.locator("td.first-message")).to_have_text("Where is order 812?")
        await expect(row.locator("td.status")).to_have_text("completed")
        await page.screenshot(path=ARTIFACTS / "viewer-sessions.png")
        await row.locator("a").click()

        await expect(page.locator(".bubble.agent")).to_contain_text(ANSWER_812)
        await expect(page.locator(".chip.call")).to_contain_text('lookup_order({"order_id":"812"})')
        await page.locator("a.timeline-link").first.click()

        failed = page.locator('.step[data-step="1"] .attempt-row.failed')
        await expect(failed.locator(".bar.attempt.error")).to_be_visible()
        await expect(failed.locator(".bar-label")).to_have_text("ModelHTTPError · 503")
        wait = page.locator('.step[data-step="1"] .wait-row .bar-label')
        await expect(wait).to_have_text("wait 2.00 s · set by Retry-After")
        await expect(page.locator(".tool-row .label")).to_have_text(["tool lookup_order"])
        await expect(page.locator("dl.summary")).to_contain_text("3 of 25 attempts")
        await page.screenshot(path=ARTIFACTS / "viewer-timeline.png", full_page=True)
        details = page.locator('.step[data-step="1"] details.llm-request')
        await details.locator("summary").click()
        await expect(details.locator("pre")).to_contain_text("Where is order 812?")
        await page.screenshot(path=ARTIFACTS / "viewer-request.png", full_page=True)

        await page.locator("#crumbs a").nth(1).click()
        await page.locator(".chat input").fill("And order 977?")
        await page.locator(".chat button").click()
        await gate.entered.wait()
        streaming = page.locator(".bubble.streaming")
        await expect(streaming).to_contain_text("Order 977 is")
        await page.screenshot(path=ARTIFACTS / "viewer-streaming.png")
        gate.release.set()

        final = page.locator(".bubble.agent", has_text="Order 977 is still processing.")
        await expect(final).to_have_count(1)
        await expect(page.locator(".bubble.streaming")).to_have_count(0)
        await expect(page.locator("a.timeline-link")).to_have_count(2)
        await page.screenshot(path=ARTIFACTS / "viewer-chat.png", full_page=True)
    assert problems == []


async def test_without_the_operator_token_the_viewer_lists_one_users_sessions(
    browser: BrowserContext,
):
    agent = build_agent(ScriptedLlm([ANSWER_812]))
    app = create_app(agent, InMemorySessionService(), auth_token="user-token")
    await browser.add_init_script("sessionStorage.setItem('steadyflow.token', 'user-token')")
    token = {"authorization": "Bearer user-token"}
    async with running(app) as client:
        mine = (await client.post(f"/apps/{APP}/users/{USER}/sessions", headers=token)).json()["id"]
        theirs = (
            await client.post(f"/apps/{APP}/users/someone-else/sessions", headers=token)
        ).json()["id"]
        page, _ = await open_page(browser, str(client.base_url))
        await page.locator("form.user-sessions input").fill(USER)
        await page.locator("form.user-sessions button").click()
        await expect(page.locator(f'tr[data-session="{mine}"]')).to_contain_text(USER)
        await expect(page.locator(f'tr[data-session="{theirs}"]')).to_have_count(0)
