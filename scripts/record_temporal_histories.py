"""Record the workflow histories the Temporal replay test replays.

Starts a Temporal dev server (the test suite's helper), runs each scenario
of ``tests/durable/temporal/scenarios.py`` through an in-process worker with
an in-memory session store, and writes each workflow's history as JSON to
``tests/durable/temporal/histories/NAME.json``. Run it only when the
workflow changes on purpose (see the scenarios module):

    .venv/bin/python scripts/record_temporal_histories.py
"""

from __future__ import annotations

import asyncio
import contextlib
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the tests package: scenarios and the dev-server helper

from temporalio.client import WorkflowFailureError  # noqa: E402
from tests.durable.temporal.scenarios import SCENARIOS  # noqa: E402
from tests.support.temporal import start_temporal  # noqa: E402

from steadyflow.durable.temporal import TemporalRunner, TemporalSettings, connect, create_worker  # noqa: E402
from steadyflow.sessions import InMemorySessionService  # noqa: E402

OUT = ROOT / "tests" / "durable" / "temporal" / "histories"


async def record() -> None:
    server = start_temporal()
    try:
        client = await connect(server.address)
        for scenario in SCENARIOS:
            agent = scenario.agent()
            service = InMemorySessionService()
            settings = TemporalSettings(task_queue=f"record-{scenario.name}")
            runner = TemporalRunner(
                app_name="replay",
                agent=agent,
                session_service=service,
                client=client,
                settings=settings,
            )
            session = await runner.create_session(user_id="u", session_id=scenario.name)
            worker = create_worker(
                client, app_name="replay", agent=agent, session_service=service, settings=settings
            )
            async with worker:
                handle = await runner.start(
                    user_id="u",
                    session_id=session.id,
                    new_message=scenario.message,
                    run_config=scenario.run_config,
                )
                with contextlib.suppress(WorkflowFailureError):
                    await handle.result()
            history = await handle.fetch_history()
            OUT.mkdir(parents=True, exist_ok=True)
            (OUT / f"{scenario.name}.json").write_text(history.to_json())
            print(f"recorded {scenario.name} ({handle.id})")
    finally:
        server.stop()


if __name__ == "__main__":
    asyncio.run(record())
