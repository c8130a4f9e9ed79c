"""The banner's viewer link, opened in a real browser, shows the demo's timeline.

The way a newcomer goes: ``steadyflow demo`` stores its session in SQLite,
``steadyflow serve ... --auth-token`` prints a viewer link carrying the
token in its fragment; Chromium opens that link, the viewer takes the
token (no prompt) and drops it from the address bar, and the demo's
invocation shows its attempts: the 429, the 503, the broken stream.
"""

from __future__ import annotations

import asyncio

import pytest
from playwright.async_api import BrowserContext, expect
from typer.testing import CliRunner

from steadyflow.testing import fake_clock
from tests.cli.support import invoke
from tests.server.serve_process import ROOT, serve_process
from tests.server.test_viewer import browser, open_page  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow  # a browser and a child process

TOKEN = "viewer-link-token"


def run_demo(db: str) -> None:
    with fake_clock():
        result = invoke(CliRunner(), "demo", "--session-db", db, "--chunk-delay", "0")
    assert result.exit_code == 0, result.stdout + result.stderr


async def test_the_banners_link_opens_the_viewer_on_the_demos_timeline(
    browser: BrowserContext,  # noqa: F811
    tmp_path,
) -> None:
    db = f"sqlite:///{tmp_path / 'sessions.db'}"
    await asyncio.to_thread(run_demo, db)  # the demo runs its own event loop
    args = [str(ROOT / "examples" / "order_support.py"), "--port", "0", "--session-db", db]
    args += ["--emulator", "--auth-token", TOKEN]
    with serve_process(tmp_path, *args) as served:
        page, problems = await open_page(browser, served.field("viewer"))
        await page.locator("form.user-sessions input").fill("demo")
        await page.locator("form.user-sessions button").click()
        await page.locator("table.sessions a").first.click()
        await expect(page.locator(".bubble.agent")).to_contain_text("Order 812 - status: shipped")
        footer = page.locator(".invocation footer").first
        await expect(footer).to_contain_text("2 steps · 5 attempts")
        await page.locator("a.timeline-link").first.click()
        step1 = page.locator('.step[data-step="1"]')
        await expect(step1.locator(".attempt-row")).to_have_count(3)
        await expect(step1.locator(".attempt-row.failed .bar-label").first).to_contain_text("429")
        await expect(page.locator('.step[data-step="2"] .attempt-row')).to_have_count(2)
        await expect(page.locator("dl.summary")).to_contain_text("5 of 8 attempts")
        assert TOKEN not in page.url
        assert await page.evaluate("sessionStorage.getItem('steadyflow.token')") == TOKEN
        assert await page.locator("form.token").count() == 0
    # Listing every user's sessions needs the operator token: that one 403 is expected.
    assert [p for p in problems if "status of 403" not in p] == []
    assert TOKEN not in served.output().replace(served.field("viewer"), "")
