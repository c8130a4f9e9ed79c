"""One phase of a confirmation turn, run as its own process on a SQLite file, then exit.

``ask``: the user asks for a transfer; the tool needs confirmation, so the
turn pauses; prints the request (JSON) and exits. ``answer yes|no``: answers
the request named on the command line (a new process, nothing shared in
memory with the first); prints the final text and exits. The tool appends a
line to the side-effect file each time it really runs, so the test counts
runs from outside both processes.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from steadyflow import FunctionTool, LlmAgent, Runner
from steadyflow.testing import ScriptedLlm, call
from steadyflow.tools import confirmation_answer, confirmation_requests


def agent(effects: Path, steps: list) -> LlmAgent:
    def transfer(amount: int) -> dict:
        """Move money.

        Args:
            amount: how much.
        """
        with effects.open("a") as file:
            file.write(f"transfer {amount}\n")
        return {"moved": amount}

    tool = FunctionTool(transfer, require_confirmation=True)
    return LlmAgent(name="bank", model=ScriptedLlm(steps), tools=[tool])


async def ask(db: str, effects: Path) -> dict:
    runner = Runner(
        app_name="app",
        agent=agent(effects, [call("transfer", {"amount": 5})]),
        session_service=f"sqlite+aiosqlite:///{db}",
    )
    session = await runner.create_session(user_id="u", session_id="s")
    events = [
        e async for e in runner.run_async(user_id="u", session_id=session.id, new_message="send 5")
    ]
    (request,) = confirmation_requests(events[-1])
    await runner.close()
    return {"request_id": request.id, "invocation_id": events[-1].invocation_id}


async def answer(db: str, effects: Path, request_id: str, confirmed: bool) -> dict:
    text = "Sent." if confirmed else "Not sent."
    runner = Runner(
        app_name="app",
        agent=agent(effects, [text]),
        session_service=f"sqlite+aiosqlite:///{db}",
    )
    message = confirmation_answer(request_id, confirmed=confirmed)
    events = [e async for e in runner.run_async(user_id="u", session_id="s", new_message=message)]
    await runner.close()
    return {"text": events[-1].text, "invocation_id": events[-1].invocation_id}


def main(argv: list[str]) -> None:
    db, effects, phase = argv[0], Path(argv[1]), argv[2]
    if phase == "ask":
        result = asyncio.run(ask(db, effects))
    else:
        result = asyncio.run(answer(db, effects, argv[3], argv[4] == "yes"))
    print(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1:])
