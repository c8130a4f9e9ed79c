"""A web page of another origin, in a real browser, cannot create a session or run a turn.

The page does what the issue's attack did: ``fetch(..., {mode: "no-cors",
body: Blob})``, which needs no preflight and sends no Content-Type. The
server is token-less (the default). The counts at the server prove it
refused: no session, no model call. A rebound name (``rebound.test``
resolving to 127.0.0.1) is refused by its Host.
"""

from __future__ import annotations

import json

import pytest
from playwright.async_api import BrowserContext
from starlette.applications import Starlette
from starlette.responses import HTMLResponse
from starlette.routing import Route

from steadyflow import LlmAgent
from steadyflow.server import create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import ScriptedLlm
from tests.server.harness import APP, running
from tests.server.test_viewer import browser  # noqa: F401 - the Chromium fixture

pytestmark = pytest.mark.slow  # a real browser

ATTACK = """async (target) => {
  const send = (path, body) => fetch(target + path, {
    method: "POST", mode: "no-cors", body: new Blob([JSON.stringify(body)]),
  });
  const planted = {session_id: "planted", state: {"app:banner": "x"}};
  await send("/apps/shop/users/mallory/sessions", planted);
  const turn = {app_name: "shop", user_id: "victim", session_id: "victims", new_message: "buy"};
  await send("/run", turn);
  return true;
}"""


async def attacker_page(request: object) -> HTMLResponse:
    return HTMLResponse("<!doctype html><title>cute cats</title>")


async def test_a_page_of_another_origin_can_neither_create_a_session_nor_run_a_turn(
    browser: BrowserContext,  # noqa: F811
):
    model = ScriptedLlm(["paid answer"])
    store = InMemorySessionService()
    await store.create_session(app_name=APP, user_id="victim", session_id="victims")
    attacker = Starlette(routes=[Route("/", attacker_page)])
    async with running(create_app(LlmAgent(name=APP, model=model), store)) as server:
        async with running(attacker) as other:
            page = await browser.new_page()
            await page.goto(str(other.base_url).replace("127.0.0.1", "attacker.test"))
            assert await page.evaluate(ATTACK, str(server.base_url))
            # The same requests from the server's own origin (the viewer) pass.
            own = await browser.new_page()
            await own.goto(str(server.base_url) + "/health")
            created = await own.evaluate(
                """async () => (await fetch("/apps/shop/users/alice/sessions", {
                  method: "POST", headers: {"content-type": "application/json"}, body: "{}",
                })).status"""
            )
    assert model.calls == 0
    assert [s.user_id for s in await store.list_sessions(app_name=APP)] == ["victim", "alice"]
    assert created == 201


async def test_a_rebound_host_name_is_refused(browser: BrowserContext):  # noqa: F811
    store = InMemorySessionService()
    async with running(create_app(LlmAgent(name=APP, model=ScriptedLlm([])), store)) as server:
        page = await browser.new_page()
        rebound = str(server.base_url).replace("127.0.0.1", "rebound.test")
        response = await page.goto(rebound + "/health")
        assert response is not None and response.status == 400
        status = await page.evaluate(
            """async () => (await fetch("/apps/shop/users/u/sessions", {
              method: "POST", headers: {"content-type": "application/json"}, body: "{}",
            })).status"""
        )
    assert status == 400
    assert await store.list_sessions(app_name=APP) == []
    assert json.loads(await response.text())["error"]["type"] == "host_not_allowed"
