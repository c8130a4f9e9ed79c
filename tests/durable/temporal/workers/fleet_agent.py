"""The agent of the fleet kill tests, loaded by ``steadyflow worker`` in each worker process.

Two tools, each appending to a side-effect file the test reads: ``charge``
(not idempotent: at most once) and ``ticket`` (idempotent: may run again,
with the same idempotency key). The worker named by ``FLEET_HANG_TOOLS``
starts its tools and never finishes them, so the test can kill it mid-tool.
"""

from __future__ import annotations

import asyncio
import os

from steadyflow import FunctionTool, LlmAgent, ToolContext
from steadyflow.models.openai import OpenAI

EFFECTS = os.environ["FLEET_EFFECTS"]
WORKER = os.environ["FLEET_WORKER"]
HANG = os.environ.get("FLEET_HANG_TOOLS") == WORKER


def effect(line: str) -> None:
    with open(EFFECTS, "a") as file:
        file.write(line + "\n")
        file.flush()
        os.fsync(file.fileno())


async def _run(name: str, tool_context: ToolContext) -> None:
    effect(f"{name} start {WORKER} {tool_context.idempotency_key}")
    if HANG:
        await asyncio.Event().wait()  # killed here
    effect(f"{name} done {WORKER} {tool_context.idempotency_key}")


async def charge(amount: int, tool_context: ToolContext) -> dict[str, int]:
    """Charge the card (not idempotent)."""
    await _run("charge", tool_context)
    return {"charged": amount}


async def ticket(subject: str, tool_context: ToolContext) -> dict[str, str]:
    """Open a ticket (idempotent by its key)."""
    await _run("ticket", tool_context)
    return {"ticket": subject}


root_agent = LlmAgent(
    name="fleet",
    model=OpenAI("gpt-4o-mini", base_url=os.environ["OPENAI_BASE_URL"], api_key="emulator-key"),
    tools=[FunctionTool(charge), FunctionTool(ticket, idempotent=True)],
)
