"""A worker whose synchronous tool blocks until its stdin closes: a live owner past its lease.

Prints ``SESSION <id>`` once the session exists and ``READY`` once the tool
runs. Environment: ``WORKER_DB`` (the session store's URL).
"""

from __future__ import annotations

import asyncio
import os
import sys

from steadyflow import LlmAgent, Runner
from steadyflow.sessions import open_session_service
from steadyflow.testing import ScriptedLlm, call


def refund(order_id: str) -> dict:
    """Refund an order (it blocks until the test lets go)."""
    print("READY", flush=True)
    sys.stdin.read()
    return {"refunded": order_id}


async def main() -> None:
    model = ScriptedLlm([call("refund", {"order_id": "7"}), "Refunded."])
    agent = LlmAgent(name="shop", model=model, tools=[refund])
    runner = Runner(
        app_name="shop", agent=agent, session_service=open_session_service(os.environ["WORKER_DB"])
    )
    session = await runner.create_session(user_id="u")
    print(f"SESSION {session.id}", flush=True)
    async for _ in runner.run_async(user_id="u", session_id=session.id, new_message="Refund 7"):
        pass
    await runner.close()


if __name__ == "__main__":
    asyncio.run(main())
