"""The README's quickstart, driven as a newcomer's shell would, in a fresh clone.

The README's Quickstart ``console`` block holds the two commands
(``make demo``, ``make test``) and the next ones. This test clones the
repository, checks that ``steadyflow`` is not on the shell's ``PATH``,
runs ``make demo`` for real (it creates ``.venv`` and installs the demo
extra from the package index), then runs the next commands the demo
printed, as printed, in one shell: activating the venv, ``steadyflow
trace`` of the demo's session, ``steadyflow run ... --emulator``, and
``steadyflow serve ... --emulator`` until its banner's viewer link answers.
Each README command after the two must be one the demo printed (with
``SESSION_ID`` for the id). Nothing is edited; the only setting the shell
gets is ``STEADYFLOW_PORT=0``, so ``serve`` takes a free port on a shared
machine.

``make test`` runs the whole suite, this test included, so here it is
checked with ``make -n`` (the target exists and installs the dev toolchain
before linting, type checking and testing); set
``STEADYFLOW_QUICKSTART_MAKE_TEST=1`` to run it for real.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # a clone, a package install, subprocesses

ROOT = Path(__file__).resolve().parents[1]
CONSOLE_BLOCK = re.compile(r"## Quickstart\n.*?```console\n(.*?)```", re.S)
SYSTEM_PATH = "/usr/local/bin:/usr/bin:/bin"
PASSED_ON = ("HOME", "LANG", "PIP_INDEX_URL", "PIP_FIND_LINKS", "PIP_CERT", "PIP_DEFAULT_TIMEOUT")


def readme_commands() -> list[str]:
    block = CONSOLE_BLOCK.search((ROOT / "README.md").read_text(encoding="utf-8"))
    assert block is not None, "README.md has no Quickstart console block"
    lines = [line for line in block.group(1).splitlines() if line.startswith("$ ")]
    return [line[2:].split("  #")[0].split(" #")[0].strip() for line in lines]


def shell_env() -> dict[str, str]:
    """A new login shell's environment: no venv on PATH, no provider keys."""
    python_dir = str(Path(shutil.which("python3", path=SYSTEM_PATH) or "/usr/bin/python3").parent)
    pyenv = [p for p in os.environ.get("PATH", "").split(os.pathsep) if "pyenv" in p]
    env = {name: os.environ[name] for name in PASSED_ON if name in os.environ}
    path = os.pathsep.join([*pyenv, python_dir, SYSTEM_PATH])
    return {**env, "PATH": path, "TERM": "dumb", "NO_COLOR": "1", "STEADYFLOW_PORT": "0"}


def bash(script: str, cwd: Path, timeout: float = 900) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-c", script],
        cwd=cwd,
        env=shell_env(),
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def printed_next(output: str) -> list[str]:
    lines = output.splitlines()
    start = lines.index("next, in this shell:")
    return [line.strip().split("   #")[0] for line in lines[start + 1 :] if line.startswith("  ")]


@pytest.fixture(scope="module")
def clone(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("quickstart") / "steadyflow"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(target)], check=True)
    return target


def test_the_readme_quickstart_runs_as_written_in_a_fresh_clone(clone: Path) -> None:
    commands = readme_commands()
    assert commands[:2] == ["make demo", "make test"]
    assert bash("command -v steadyflow", clone).returncode != 0  # as in a new shell

    demo = bash("make demo", clone)
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert "budget: 5 of 8 attempts used (2 model calls, 3 retries)" in demo.stdout
    printed = printed_next(demo.stdout)
    session_id = re.search(r"trace (\S+)", " ".join(printed))
    assert session_id is not None, printed
    for command in commands[2:]:
        assert command.replace("SESSION_ID", session_id.group(1)) in printed, (command, printed)

    serve = next(c for c in printed if " serve " in c)
    rest = "\n".join(c for c in printed if c != serve)
    after = bash(f"set -e\n{rest}\ncommand -v steadyflow", clone)
    assert after.returncode == 0, after.stdout + after.stderr
    assert "2 steps · 5 attempts (3 retries" in after.stdout  # the trace, read back
    assert "order_support: Order 977 - status: processing" in after.stdout  # run --emulator
    assert after.stdout.strip().endswith(str(clone / ".venv" / "bin" / "steadyflow"))
    check_serve(clone, printed[0], serve)

    plan = bash("make -n test", clone)
    assert plan.returncode == 0, plan.stderr
    assert "pip install -q -e '.[dev]'" in plan.stdout and "pytest" in plan.stdout
    if os.environ.get("STEADYFLOW_QUICKSTART_MAKE_TEST") == "1":
        full = bash("make test", clone, timeout=3600)
        assert full.returncode == 0, full.stdout[-5000:] + full.stderr[-5000:]


def check_serve(clone: Path, activate: str, serve: str) -> None:
    """Start the printed serve line, wait for its banner, open the viewer link, stop it."""
    import httpx

    process = subprocess.Popen(
        ["bash", "--noprofile", "--norc", "-c", f"{activate}\nexec {serve}"],
        cwd=clone,
        env=shell_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdout is not None
    try:
        viewer = None
        for line in process.stdout:
            if line.strip().startswith("viewer:"):
                viewer = line.split(":", 1)[1].strip()
                break
        assert viewer is not None, "serve printed no viewer link"
        page = httpx.get(viewer, timeout=30)
        assert page.status_code == 200 and "steadyflow viewer" in page.text
        assert httpx.get(viewer.rstrip("/") + "/apps", timeout=30).json() == {
            "apps": ["order_support"],
            "list_all_sessions": True,  # on loopback, with no token set
        }
    finally:
        process.terminate()
        process.wait(timeout=30)
        process.stdout.close()
