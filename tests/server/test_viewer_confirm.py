"""The viewer shows a waiting invocation and a person confirms it (headless Chromium)."""

from __future__ import annotations

import pytest
from playwright.async_api import BrowserContext, expect

from steadyflow import FunctionTool, LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm, call
from tests.server.harness import running
from tests.server.test_viewer import ARTIFACTS, browser, open_page

__all__ = ["browser"]  # the fixture, shared with the viewer's other tests

pytestmark = pytest.mark.slow  # a real browser

APP, USER = "bank", "demo-user"


def bank_agent(runs: list[str]) -> LlmAgent:
    def refund(order_id: str) -> dict:
        """Refund an order.

        Args:
            order_id: the order.
        """
        runs.append(order_id)
        return {"refunded": order_id}

    model = ScriptedLlm([call("refund", {"order_id": "7"}), "Order 7 is refunded."])
    return LlmAgent(name=APP, model=model, tools=[FunctionTool(refund, require_confirmation=True)])


async def test_a_person_confirms_a_waiting_call_and_sees_its_result(browser: BrowserContext):
    runs: list[str] = []
    async with running(create_app(bank_agent(runs), InMemorySessionService())) as client:
        session_id = (await client.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
        body = {"app_name": APP, "user_id": USER, "session_id": session_id}
        paused = await client.post("/run", json={**body, "new_message": "Refund order 7"})
        assert paused.status_code == 200 and runs == []

        page, problems = await open_page(
            browser, f"{client.base_url}/#/sessions/{USER}/{session_id}"
        )
        waiting = page.locator("section.invocation.waiting")
        await expect(waiting.locator("footer")).to_contain_text("waiting for a person")
        card = waiting.locator(".confirm-card")
        await expect(card.locator(".confirm-hint")).to_contain_text("refund")
        await expect(card.locator("code")).to_have_text('refund({"order_id":"7"})')
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=ARTIFACTS / "viewer-confirm.png", full_page=True)
        await card.locator("button.confirm").click()

        await expect(page.locator(".chip.result")).to_contain_text('refund: {"refunded":"7"}')
        await expect(page.locator(".bubble.agent")).to_contain_text("Order 7 is refunded.")
        await expect(page.locator(".confirm-card")).to_have_count(0)
        await expect(page.locator(".chip.confirmation.user")).to_contain_text("confirmed")
        await expect(page.locator("section.invocation.waiting")).to_have_count(0)
        await page.screenshot(path=ARTIFACTS / "viewer-confirmed.png", full_page=True)
    assert runs == ["7"]
    assert problems == []
