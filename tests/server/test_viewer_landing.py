"""The viewer's landing page and a confirmed turn's timeline, in headless Chromium."""

from __future__ import annotations

from typing import Any

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

APP = "bank"


def bank_agent(*steps: Any) -> LlmAgent:
    def refund(order_id: str) -> dict:
        """Refund an order.

        Args:
            order_id: the order.
        """
        return {"refunded": order_id}

    model = ScriptedLlm(list(steps))
    return LlmAgent(name=APP, model=model, tools=[FunctionTool(refund, require_confirmation=True)])


async def new_session(client: Any, user: str, headers: dict[str, str] | None = None) -> str:
    response = await client.post(f"/apps/{APP}/users/{user}/sessions", headers=headers)
    session_id: str = response.json()["id"]
    return session_id


async def test_on_loopback_without_tokens_the_landing_lists_every_users_sessions(
    browser: BrowserContext,
):
    app = create_app(bank_agent(), InMemorySessionService())
    async with running(app) as client:
        ann, bob = await new_session(client, "ann"), await new_session(client, "bob")
        page, problems = await open_page(browser, str(client.base_url))
        await expect(page.locator(f'tr[data-session="{ann}"]')).to_contain_text("ann")
        await expect(page.locator(f'tr[data-session="{bob}"]')).to_contain_text("bob")
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=ARTIFACTS / "viewer-landing-local.png", full_page=True)
    assert problems == []


async def test_with_the_auth_token_only_the_landing_asks_whose_sessions(browser: BrowserContext):
    app = create_app(bank_agent(), InMemorySessionService(), auth_token="user-token")
    await browser.add_init_script("sessionStorage.setItem('steadyflow.token', 'user-token')")
    async with running(app) as client:
        token = {"authorization": "Bearer user-token"}
        ann = await new_session(client, "ann", token)
        page, problems = await open_page(browser, str(client.base_url))
        await expect(page.locator("p.ask-user")).to_contain_text("Whose sessions?")
        await page.screenshot(path=ARTIFACTS / "viewer-landing-ask.png", full_page=True)
        await page.locator("form.user-sessions input").fill("ann")
        await page.locator("form.user-sessions button").click()
        await expect(page.locator(f'tr[data-session="{ann}"]')).to_contain_text("ann")
        await page.locator("a.brand").click()
        await expect(page.locator(".known-users a")).to_have_text(["ann"])
        await page.screenshot(path=ARTIFACTS / "viewer-landing-known.png", full_page=True)
    assert problems == []


async def answer(client: Any, user: str, session_id: str, confirmed: bool) -> None:
    body = {"app_name": APP, "user_id": user, "session_id": session_id}
    paused = (await client.post("/run", json={**body, "new_message": "Refund order 7"})).json()
    (request,) = [
        part["function_call"]
        for event in paused["events"]
        for part in event["content"]["parts"]
        if part.get("function_call", {}).get("name") == "steadyflow_request_confirmation"
    ]
    reply = {
        "role": "user",
        "parts": [
            {
                "function_response": {
                    "id": request["id"],
                    "name": request["name"],
                    "response": {"confirmed": confirmed},
                }
            }
        ],
    }
    assert (await client.post("/run", json={**body, "new_message": reply})).status_code == 200


async def test_the_timeline_draws_the_wait_for_a_person_as_its_own_span(browser: BrowserContext):
    agent = bank_agent(call("refund", {"order_id": "7"}), "Order 7 is refunded.")
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await new_session(client, "ann")
        await answer(client, "ann", session_id, confirmed=True)
        (record,) = (
            await client.get(f"/apps/{APP}/users/ann/sessions/{session_id}/invocations")
        ).json()
        url = f"{client.base_url}/#/sessions/ann/{session_id}/invocations/{record['id']}"
        page, problems = await open_page(browser, url)
        await expect(page.locator(".tool-row")).to_contain_text("asked a person to confirm")
        wait = page.locator(".person-wait .person-row")
        await expect(wait).to_have_count(1)
        await expect(wait).to_contain_text("a person answered after")
        await expect(page.locator("dl.summary")).to_contain_text("a person took")
        steps = page.locator("section.step")
        await expect(steps).to_have_count(2)
        person_box = await wait.locator(".bar.person").bounding_box()
        first, second = [await steps.nth(i).locator(".step-span").bounding_box() for i in (0, 1)]
        assert person_box and first and second
        assert abs(person_box["x"] - (first["x"] + first["width"])) < 2  # from the ask...
        assert abs(person_box["x"] + person_box["width"] - second["x"]) < 2  # ...to the answer
        await page.screenshot(path=ARTIFACTS / "viewer-timeline-person.png", full_page=True)
    assert problems == []


async def test_a_declined_turn_is_one_card_in_the_conversation(browser: BrowserContext):
    agent = bank_agent(call("refund", {"order_id": "7"}), "I did not refund order 7.")
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await new_session(client, "ann")
        await answer(client, "ann", session_id, confirmed=False)
        url = f"{client.base_url}/#/sessions/ann/{session_id}"
        page, problems = await open_page(browser, url)
        cards = page.locator("section.invocation")
        await expect(cards).to_have_count(1)
        await expect(cards).to_contain_text("declined by a person")
        await expect(cards).to_contain_text("I did not refund order 7.")
        await page.screenshot(path=ARTIFACTS / "viewer-declined.png", full_page=True)
    assert problems == []


async def test_a_waiting_invocations_timeline_shows_the_wait_still_open(browser: BrowserContext):
    agent = bank_agent(call("refund", {"order_id": "7"}))
    async with running(create_app(agent, InMemorySessionService())) as client:
        session_id = await new_session(client, "ann")
        body = {"app_name": APP, "user_id": "ann", "session_id": session_id}
        assert (await client.post("/run", json={**body, "new_message": "Refund 7"})).is_success
        (record,) = (
            await client.get(f"/apps/{APP}/users/ann/sessions/{session_id}/invocations")
        ).json()
        assert record["status"] == "waiting"
        url = f"{client.base_url}/#/sessions/ann/{session_id}/invocations/{record['id']}"
        page, problems = await open_page(browser, url)
        summary = page.locator("dl.summary")
        await expect(summary).to_contain_text("waiting for a person")
        await expect(summary).to_contain_text("(still waiting)")
        await expect(summary).not_to_contain_text("0 µs (still waiting)")  # counts until now
        wait = page.locator(".person-wait.open .person-row")
        await expect(wait).to_contain_text("waiting for a person")
        await page.screenshot(path=ARTIFACTS / "viewer-timeline-waiting.png", full_page=True)
    assert problems == []
