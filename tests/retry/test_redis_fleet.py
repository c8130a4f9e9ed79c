"""Four worker processes share one Redis retry budget against a provider that returns 503s.

Each worker is a real process running agent turns through the OpenAI adapter
against the provider emulator, which answers every request with HTTP 503 and
counts what arrives. With the shared budget, the fleet's retries stay within
``max_tokens / 2`` however the workers interleave; without it, every worker
spends all its attempts.
"""

import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from tests.support.redis import RedisServer

from steadyflow.testing.emulator import Fault, ProviderEmulator

pytestmark = pytest.mark.redis

WORKER = Path(__file__).with_name("fleet_worker.py")
REPO = Path(__file__).parents[2]
WORKERS, MAX_ATTEMPTS, MAX_TOKENS = 4, 5, 10


@pytest.fixture(scope="module")
def fleet() -> Iterator[list[subprocess.Popen[str]]]:
    """Four worker processes, started once: each imports the runtime and waits for jobs."""
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        for _ in range(WORKERS)
    ]
    try:
        for proc in procs:
            assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
        yield procs
    finally:
        for proc in procs:
            assert proc.stdin is not None and proc.stdout is not None
            proc.stdin.close()
            proc.wait(timeout=60)
            proc.stdout.close()


def run_fleet(fleet: list[subprocess.Popen[str]], base_url: str, *shared: str) -> list[str]:
    """One turn on every worker at once; each worker's answer."""
    job = " ".join([base_url, "1", str(MAX_ATTEMPTS), *shared]) + "\n"
    for proc in fleet:
        assert proc.stdin is not None
        proc.stdin.write(job)
        proc.stdin.flush()
    return [proc.stdout.readline().strip() for proc in fleet if proc.stdout is not None]


@pytest.fixture
def emulator():
    with ProviderEmulator(faults=[Fault.http(503)]).running_in_thread() as emu:
        yield emu


def test_without_a_budget_every_worker_spends_all_its_attempts(fleet, emulator) -> None:
    outputs = run_fleet(fleet, emulator.openai_base_url)
    assert outputs == ["errors: 1"] * WORKERS
    assert emulator.attempts("openai") == WORKERS * MAX_ATTEMPTS


def test_a_shared_redis_budget_caps_the_fleets_retries(fleet, emulator, redis_server: RedisServer):
    prefix = f"test:{uuid.uuid4().hex}:"
    shared = (redis_server.url(), prefix, str(MAX_TOKENS))
    outputs = run_fleet(fleet, emulator.openai_base_url, *shared)
    assert outputs == ["errors: 1"] * WORKERS
    retries = emulator.attempts("openai") - WORKERS
    assert 1 <= retries <= MAX_TOKENS / 2
