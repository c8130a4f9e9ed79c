"""The interpreters each side runs in, and what is installed in them.

Every peer gets its own virtualenv under ``bench/.venvs/<distribution>``
(gitignored), built from the same CPython as the project's ``.venv`` so all
sides run on one interpreter. Nothing is ever installed into the project's
``.venv``. A stamp file marks a finished install, so later runs reuse it;
``upgrade=True`` asks pip for the newest release again. A further
virtualenv, ``steadyflow-core``, holds ``pip install .`` without extras: the
package count of the core install is read there.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

from .sides import SIDES, Side

__all__ = [
    "CORE_VENV",
    "REPO",
    "VENVS",
    "distribution_version",
    "ensure_core_venv",
    "ensure_peer",
    "installed_packages",
    "python_for",
]

REPO = Path(__file__).resolve().parent.parent
VENVS = REPO / "bench" / ".venvs"
CORE_VENV = VENVS / "steadyflow-core"
_STAMP = ".bench-installed"
_BOOTSTRAP = frozenset({"pip", "setuptools", "wheel"})


def _base_python() -> str:
    """The CPython behind the running interpreter (the project's venv)."""
    return str(getattr(sys, "_base_executable", sys.executable))


def _run(cmd: list[str], log: Path) -> None:
    with log.open("a") as out:
        out.write("$ " + " ".join(cmd) + "\n")
        out.flush()
        done = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({done.returncode}); see {log}")


def _install(venv: Path, args: list[str], stamp_value: str) -> Path:
    python = venv / "bin" / "python"
    stamp = venv / _STAMP
    if stamp.exists() and stamp.read_text() == stamp_value:
        return python
    VENVS.mkdir(parents=True, exist_ok=True)
    log = VENVS / f"{venv.name}.log"
    if not python.exists():
        _run([_base_python(), "-m", "venv", str(venv)], log)
    _run([str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", *args], log)
    stamp.write_text(stamp_value)
    return python


def ensure_peer(side: Side, *, upgrade: bool = False) -> Path:
    """The peer's interpreter, installing the peer first when needed."""
    if side.requirement is None:
        raise ValueError(f"{side.name} is not a peer")
    venv = VENVS / side.requirement
    if upgrade and (venv / _STAMP).exists():
        (venv / _STAMP).unlink()
    args = ["--upgrade", side.requirement] if upgrade else [side.requirement]
    return _install(venv, args, side.requirement)


def ensure_core_venv() -> Path:
    """A venv with ``pip install .`` (no extras), rebuilt when pyproject.toml changes."""
    digest = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    return _install(CORE_VENV, ["--force-reinstall", str(REPO)], digest)


def python_for(side: Side) -> Path:
    """The interpreter a side's workers run with (ours: the project's venv)."""
    if side.requirement is None:
        return Path(sys.executable)
    return VENVS / side.requirement / "bin" / "python"


def _query(python: Path, code: str) -> str:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [str(python), "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return done.stdout.strip()


def distribution_version(python: Path, distribution: str) -> str:
    """The installed version of ``distribution`` in ``python``'s environment."""
    code = f"import importlib.metadata as m; print(m.version({distribution!r}))"
    return _query(python, code)


def installed_packages(python: Path) -> list[str]:
    """Distributions installed in ``python``'s environment, without pip/setuptools/wheel."""
    code = (
        "import importlib.metadata as m, json; "
        "print(json.dumps(sorted({d.metadata['Name'].lower() for d in m.distributions()})))"
    )
    names: list[str] = json.loads(_query(python, code))
    return [n for n in names if n not in _BOOTSTRAP]


def all_sides() -> list[Side]:
    """Every side, steadyflow first."""
    return list(SIDES.values())
