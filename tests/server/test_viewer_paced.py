"""The viewer draws a paced wait: the second turn waited for the provider's rate limit."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest
from playwright.async_api import BrowserContext, expect

from steadyflow import LlmAgent, RetryConfig
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse, report_response_headers
from steadyflow.retry import ProviderPacer
from steadyflow.server import ServerLimits, create_app
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import fake_clock
from tests.server.harness import running
from tests.server.test_viewer import OPERATOR, browser, open_page

pytestmark = pytest.mark.slow  # a real browser
__all__ = ["browser"]  # the fixture, imported for this module's tests

APP, USER = "paced", "u1"


class OneAMinute(BaseLlm):
    """Answers at once, and says (as OpenAI does) that 60 a minute are allowed, none left."""

    provider = "openai"

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        report_response_headers(
            {
                "x-ratelimit-limit-requests": "60",
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": "1s",
            }
        )
        yield LlmResponse.from_text("done")


async def test_the_timeline_shows_the_paced_wait(browser: BrowserContext) -> None:
    pacer = ProviderPacer(headroom=0.0)
    limits = ServerLimits(retry_config=RetryConfig(pacer=pacer))
    agent = LlmAgent(name="worker", model=OneAMinute(model="gpt-x"))
    app = create_app(agent, InMemorySessionService(), limits, operator_token=OPERATOR, app_name=APP)
    await browser.add_init_script(f"sessionStorage.setItem('steadyflow.token', '{OPERATOR}')")
    async with running(app) as client:
        session_id = (await client.post(f"/apps/{APP}/users/{USER}/sessions")).json()["id"]
        body = {"app_name": APP, "user_id": USER, "session_id": session_id}
        with fake_clock():  # the paced second is recorded, not slept
            for text in ("one", "two"):
                reply = await client.post("/run", json=body | {"new_message": text})
                assert reply.status_code == 200
        page, problems = await open_page(browser, str(client.base_url))
        await page.locator(f'tr[data-session="{session_id}"] a').click()
        await page.locator("a.timeline-link").last.click()
        paced = page.locator('.step[data-step="1"] .paced-row .bar-label')
        await expect(paced).to_have_text("paced 1.00 s · the provider's rate limit")
        assert problems == []
