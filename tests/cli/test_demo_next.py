"""The demo's last lines: next commands that work as typed, in the shell that ran the demo."""

import os
import sys
from pathlib import Path

from tests.cli.support import invoke, session_ids

VENV_BIN = Path(sys.executable).parent
ROOT = Path(__file__).resolve().parents[2]


def demo(cli, db, env=None):
    return invoke(cli, "demo", "--session-db", db, "--chunk-delay", "0", "--faults", "", env=env)


def next_lines(output: str) -> list[str]:
    lines = output.splitlines()
    start = lines.index("next, in this shell:")
    return [line.strip() for line in lines[start + 1 :] if line.startswith("  ")]


def path_without_venv() -> str:
    entries = os.environ.get("PATH", "").split(os.pathsep)
    return os.pathsep.join(e for e in entries if Path(e).resolve() != VENV_BIN.resolve())


def test_outside_the_venv_the_first_next_line_activates_it(cli, db, clock, monkeypatch) -> None:
    monkeypatch.setenv("PATH", path_without_venv())
    lines = next_lines(demo(cli, db).stdout)
    activate = os.path.relpath(VENV_BIN / "activate")
    assert lines[0] == f"source {activate}   # puts the steadyflow command on PATH"
    assert lines[1].startswith("steadyflow trace ")


def test_with_the_venv_on_path_no_activation_is_offered(cli, db, clock, monkeypatch) -> None:
    monkeypatch.setenv("PATH", f"{VENV_BIN}{os.pathsep}{path_without_venv()}")
    lines = next_lines(demo(cli, db).stdout)
    assert lines[0].startswith("steadyflow trace ")
    assert not any(line.startswith("source ") for line in lines)


def test_the_see_it_again_line_names_a_database_that_is_not_the_default(cli, db, clock) -> None:
    result = demo(cli, db)
    (session_id,) = session_ids(cli, db)
    trace_line = next(line for line in next_lines(result.stdout) if " trace " in line)
    command = trace_line.split("#")[0].split()
    assert command == ["steadyflow", "trace", session_id, "--session-db", db]
    again = invoke(cli, *command[1:])
    assert again.exit_code == 0, again.stderr
    assert "2 steps · 2 attempts (0 retries" in again.stdout


def test_a_session_in_memory_is_not_offered_again(cli, clock) -> None:
    result = demo(cli, "memory://")
    assert result.exit_code == 0, result.stderr
    assert "steadyflow trace" not in result.stdout
    assert "the session lived in memory (--session-db memory://) and is gone" in result.stdout


def test_the_next_lines_run_and_serve_the_example_on_the_emulator(
    cli, db, clock, monkeypatch
) -> None:
    monkeypatch.chdir(ROOT)
    lines = next_lines(demo(cli, db).stdout)
    run = 'steadyflow run examples/order_support.py "Where is order 977?" --emulator'
    assert any(line.startswith(run) for line in lines)
    serve = "steadyflow serve examples/order_support.py --emulator"
    assert any(line.startswith(serve) for line in lines)
