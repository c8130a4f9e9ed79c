"""Regenerate ``docs/screenshots/timeline.png``: the viewer's timeline of a real-time demo turn.

The browser test takes its screenshots with a fake clock (no real waits), so
its bars are microseconds wide. This script runs the same demo in real time:
the order-support agent's model takes ~150 ms per attempt, the first attempt
gets a 503 with ``Retry-After: 1``, so the picture shows the one-second wait
at its true length. Needs Debian's Chromium (``scripts/ensure-services.sh``).

    .venv/bin/python scripts/viewer_screenshot.py
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import AsyncIterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "examples")]

from order_support import build_agent  # noqa: E402
from playwright.async_api import async_playwright  # noqa: E402
from tests.server.harness import running  # noqa: E402
from tests.server.test_viewer import CHROMIUM, CHROMIUM_ARGS  # noqa: E402

from steadyflow import RetryConfig  # noqa: E402
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse  # noqa: E402
from steadyflow.server import ServerLimits, create_app  # noqa: E402
from steadyflow.sessions import InMemorySessionService  # noqa: E402
from steadyflow.testing import ScriptedLlm, call, http_error  # noqa: E402

OUT = ROOT / "docs" / "screenshots" / "timeline.png"


class SlowScript(BaseLlm):
    """A ScriptedLlm that takes ``latency`` seconds before each answer, like a provider."""

    def __init__(self, latency: float) -> None:
        super().__init__("gpt-4o-mini")
        self.latency = latency
        self.script = ScriptedLlm(
            [
                http_error(503, retry_after=1.0),
                call("lookup_order", {"order_id": "812"}),
                "Order 812 has shipped with DHL and should arrive on 2026-12-03.",
            ],
            model="gpt-4o-mini",
        )

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        await asyncio.sleep(self.latency)
        async for response in self.script.generate_content_async(request, stream):
            yield response


async def main() -> None:
    limits = ServerLimits(retry_config=RetryConfig(max_attempts=3))
    app = create_app(build_agent(SlowScript(0.15)), InMemorySessionService(), limits)
    async with running(app) as client:
        created = await client.post("/apps/order_support/users/demo-user/sessions")
        session_id = created.json()["id"]
        body = {"app_name": "order_support", "user_id": "demo-user", "session_id": session_id}
        ran = await client.post("/run", json={**body, "new_message": "Where is order 812?"})
        invocation = ran.json()["events"][0]["invocation_id"]
        url = f"{client.base_url}#/sessions/demo-user/{session_id}/invocations/{invocation}"
        async with async_playwright() as playwright:
            browser = await playwright.chromium.launch(
                executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
            )
            page = await browser.new_page(viewport={"width": 1200, "height": 640})
            await page.goto(url)
            await page.locator(".attempt-row.failed").first.wait_for()
            OUT.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=OUT, full_page=True)
            await browser.close()
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    asyncio.run(main())
