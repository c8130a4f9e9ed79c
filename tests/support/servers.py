"""Helpers every throwaway test server shares: free ports, a non-root user, skip-or-fail.

Server modules (``postgres.py``, later ``redis.py``) start real binaries on
loopback in a temp dir. Some servers refuse to run as root, and tests run as
root in containers and CI, so they run as an unprivileged system user.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

import pytest

SERVER_USER = "steadyflow-pg"
FALLBACK_USER = "nobody"


class ServerUnavailableError(RuntimeError):
    """A test server could not be started; the message says why."""


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def unprivileged_user() -> str | None:
    """The user to run servers as: None when not root, else a system user.

    Creates ``steadyflow-pg`` with ``useradd`` when missing; falls back to
    ``nobody`` when that fails.
    """
    if os.geteuid() != 0:
        return None
    if not _user_exists(SERVER_USER) and shutil.which("useradd"):
        argv = ["useradd", "--system", "--no-create-home", "--shell", "/usr/sbin/nologin"]
        subprocess.run([*argv, SERVER_USER], capture_output=True, check=False)
    if _user_exists(SERVER_USER):
        return SERVER_USER
    if _user_exists(FALLBACK_USER):
        return FALLBACK_USER
    raise ServerUnavailableError(f"running as root and neither {SERVER_USER} nor nobody exist")


def give_to(path: str, user: str | None) -> None:
    """Make ``path`` owned by ``user`` (no-op when ``user`` is None)."""
    if user is not None:
        entry = pwd.getpwnam(user)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def run_as(user: str | None, argv: Sequence[str], *, timeout: float = 60.0) -> str:
    """Run ``argv`` as ``user``; return its output or raise ``ServerUnavailableError``."""
    cmd = list(argv) if user is None else ["runuser", "-u", user, "--", *argv]
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise ServerUnavailableError(f"{argv[0]} failed: {exc}") from exc
    if done.returncode != 0:
        raise ServerUnavailableError(
            f"{' '.join(argv)} exited {done.returncode}: {done.stderr.strip() or done.stdout}"
        )
    return done.stdout


def stop_server(process: subprocess.Popen[bytes], base_dir: Path) -> None:
    """Stop a server process (terminate, then kill after 10 s) and delete its files."""
    try:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
    finally:
        shutil.rmtree(base_dir, ignore_errors=True)


def server_unavailable(reason: str) -> NoReturn:
    """Skip the test locally, but fail it in CI (``CI=true``), where servers must run."""
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"test server unavailable in CI: {reason}", pytrace=False)
    pytest.skip(f"test server unavailable: {reason}")


def _user_exists(name: str) -> bool:
    try:
        pwd.getpwnam(name)
    except KeyError:
        return False
    return True
