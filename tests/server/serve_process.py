"""``steadyflow serve`` as a user starts it: a child process, its banner read from stdout."""

from __future__ import annotations

import contextlib
import os
import queue
import signal
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BANNER_LINES = 5


@dataclass
class Served:
    """The running server: its banner, its stdout so far, where its stderr goes."""

    banner: list[str]
    stdout: list[str]
    stderr: Path

    def output(self) -> str:
        """Everything the process printed so far (uvicorn's access log is on stdout)."""
        return "\n".join(self.stdout) + "\n" + self.stderr.read_text()

    def field(self, name: str) -> str:
        """The value of a banner line such as ``viewer:``."""
        line = next(line for line in self.banner if line.strip().startswith(f"{name}:"))
        return line.split(":", 1)[1].strip().split()[0]


def _pump(stream, lines: queue.Queue[str | None], seen: list[str]) -> None:
    with stream:
        for line in stream:
            seen.append(line.rstrip("\n"))
            lines.put(seen[-1])
    lines.put(None)


@contextlib.contextmanager
def serve_process(
    tmp_path: Path, *args: str, env: dict[str, str] | None = None
) -> Iterator[Served]:
    """Run ``steadyflow serve ARGS``; yields once the banner is printed; Ctrl-C on exit."""
    log = tmp_path / "serve.log"
    argv = [sys.executable, "-m", "steadyflow", "serve", *args]
    child_env = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{ROOT / 'src'}", **(env or {})}
    with log.open("wb") as err:
        process = subprocess.Popen(
            argv, cwd=ROOT, env=child_env, stdout=subprocess.PIPE, stderr=err, text=True
        )
        lines: queue.Queue[str | None] = queue.Queue()
        seen: list[str] = []
        pump = threading.Thread(target=_pump, args=(process.stdout, lines, seen), daemon=True)
        pump.start()
        try:
            banner: list[str] = []
            while len(banner) < BANNER_LINES:
                line = lines.get(timeout=60)
                if line is None:
                    raise AssertionError(f"serve exited before its banner:\n{log.read_text()}")
                if banner or line.startswith("steadyflow serve"):
                    banner.append(line)
            yield Served(banner, seen, log)
        finally:
            if process.poll() is None:
                process.send_signal(signal.SIGINT)
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            pump.join(timeout=30)
