"""Scenarios on one side, in a process of their own: ``python -m bench.worker SIDE JOBS``.

The orchestrator starts this with the side's own interpreter (a peer's
virtualenv, or the project's for steadyflow), so each framework runs with
exactly its own dependencies. ``JOBS`` is a JSON list of
``{"scenario": ..., "params": {...}}`` run in order; the results are printed
as one JSON list after ``RESULT_MARKER``. Anything else on stdout or stderr
is the framework's.

On a ``steadyflow @<sha>`` baseline side (``--baseline``), a scenario that
needs an API the older code lacks (an ``ImportError``, ``AttributeError`` or
``TypeError`` from the adapter) is reported as skipped, "n/a at <sha>: ...",
and the next job still runs; on every other side such an error is a failure.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
import platform
import sys
from typing import Any

from . import drivers
from .sides import side_named

__all__ = ["RESULT_MARKER", "run_scenario"]

RESULT_MARKER = "BENCH_RESULT "

_DRIVERS = {
    "per_call": drivers.per_call,
    "history": drivers.history,
    "concurrency": drivers.concurrency,
    "streaming": drivers.streaming,
}


async def run_scenario(side: str, scenario: str, params: dict[str, Any]) -> dict[str, Any]:
    """Run ``scenario`` with ``params`` on ``side``'s adapter; its result dict."""
    chosen = side_named(side)
    driver = _DRIVERS.get(scenario)
    if driver is None:
        raise ValueError(f"unknown scenario {scenario!r}; known: {', '.join(_DRIVERS)}")
    try:
        module = importlib.import_module(f"bench.sides.{chosen.module}")
        adapter = module.make_adapter()
        try:
            result: dict[str, Any] = await driver(adapter, **params)
        finally:
            await adapter.close()
    except (ImportError, AttributeError, TypeError) as error:
        if not chosen.is_baseline:
            raise
        first = (str(error).splitlines() or [""])[0][:120]
        result = {"skipped": f"{type(error).__name__}: {first}"}
    if chosen.is_baseline and "skipped" in result:
        result["skipped"] = f"n/a at {chosen.baseline_commit}: {result['skipped']}"
    result["python"] = platform.python_version()
    return result


async def _run_jobs(side: str, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [await run_scenario(side, job["scenario"], job["params"]) for job in jobs]


def main(argv: list[str]) -> int:
    """Entry point: ``SIDE JOBS_JSON``."""
    if len(argv) != 2:
        print("usage: python -m bench.worker SIDE JOBS_JSON", file=sys.stderr)
        return 2
    side, raw = argv
    # Frameworks log warnings (missing usage data, retries); only the marker line is read.
    logging.disable(logging.WARNING)
    results = asyncio.run(_run_jobs(side, json.loads(raw)))
    print(RESULT_MARKER + json.dumps(results), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
