"""Starting the measuring processes: workers, import probes and the storm.

Every measurement runs in a child process with the side's own interpreter;
this module builds their environment (no project ``PYTHONPATH`` leaking into
a peer; SQLite files on tmpfs; ``--at`` puts a worktree's ``src`` first for
steadyflow) and reads back the one JSON line each prints.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from .envs import REPO
from .worker import RESULT_MARKER

__all__ = ["ProbeError", "child_env", "run_import_probe", "run_storm", "run_worker"]

_TMPFS = Path("/dev/shm")

# Times the import alone, in a fresh interpreter: only json/time are loaded first.
_IMPORT_PROBE = """
import json, time
def _rss():
    for line in open('/proc/self/status'):
        if line.startswith('VmRSS:'):
            return int(line.split()[1])
_r0, _c0, _w0 = _rss(), time.process_time(), time.perf_counter()
exec({statement!r})
_w1, _c1, _r1 = time.perf_counter(), time.process_time(), _rss()
print({marker!r} + json.dumps({{"wall": _w1 - _w0, "cpu": _c1 - _c0, "rss_kb": _r1 - _r0}}))
"""


class ProbeError(RuntimeError):
    """A measuring process failed; the message holds the end of its stderr."""


def child_env(*, ours: bool, src: Path | None) -> dict[str, str]:
    """The environment of a measuring process.

    Args:
        ours: the process runs steadyflow (the project's venv).
        src: a ``src`` folder to import steadyflow from instead of the
            editable install (``--at COMMIT``); only used when ``ours``.
    """
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    if ours and src is not None:
        env["PYTHONPATH"] = str(src)
    if _TMPFS.is_dir() and os.access(_TMPFS, os.W_OK):
        env["TMPDIR"] = str(_TMPFS)  # fsync on tmpfs is free: disks stay out of the numbers
    env["PYTHONHASHSEED"] = "0"
    return env


def _result_line(stdout: str) -> Any:
    for line in reversed(stdout.splitlines()):
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :])
    return None


def _run(cmd: list[str], env: dict[str, str], timeout: float) -> Any:
    try:
        done = subprocess.run(
            cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
    except subprocess.TimeoutExpired as error:
        raise ProbeError(f"{cmd[2:4]} timed out after {timeout:.0f}s") from error
    result = _result_line(done.stdout)
    if done.returncode != 0 or result is None:
        tail = "\n".join(done.stderr.strip().splitlines()[-6:])
        raise ProbeError(f"exit {done.returncode}: {tail}")
    return result


def run_worker(
    python: Path, side: str, jobs: list[dict[str, Any]], env: dict[str, str], timeout: float
) -> list[dict[str, Any]]:
    """Run ``jobs`` on ``side`` in one fresh worker process; one result per job."""
    payload = [{"scenario": j["scenario"], "params": j["params"]} for j in jobs]
    cmd = [str(python), "-m", "bench.worker", side, json.dumps(payload)]
    results: list[dict[str, Any]] = _run(cmd, env, timeout)
    return results


def run_import_probe(python: Path, statement: str, env: dict[str, str]) -> dict[str, float]:
    """Time and memory of ``statement`` in a fresh interpreter."""
    code = _IMPORT_PROBE.format(statement=statement, marker=RESULT_MARKER)
    result: dict[str, float] = _run([str(python), "-c", code], env, timeout=120)
    return result


def run_storm(seconds: float, capacity: float, env: dict[str, str]) -> dict[str, Any]:
    """The retry-storm simulation (steadyflow's retry code, virtual clock)."""
    cmd = [sys.executable, "-m", "bench.storm", "--seconds", str(seconds)]
    cmd += ["--capacity", str(capacity)]
    result: dict[str, Any] = _run(cmd, env, timeout=600)
    return result
