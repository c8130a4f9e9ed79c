"""The documentation site builds with ``mkdocs build --strict``.

``make test`` runs the build through this test (and ``make docs`` runs it
alone): a broken link or anchor, a nav entry without its page, or a
docstring griffe cannot parse (a Google ``Args:`` entry naming two
parameters at once) fails it, and the failure shows mkdocs' warnings.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from ._blocks import ROOT


@pytest.mark.slow
def test_the_site_builds_strict(tmp_path: Path) -> None:
    mkdocs = Path(sys.executable).with_name("mkdocs")
    result = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        timeout=600,
        check=False,
    )
    warnings = [line for line in result.stderr.splitlines() if not line.startswith("INFO")]
    assert result.returncode == 0, "\n".join(warnings)
    assert (tmp_path / "site" / "api" / "steadyflow" / "index.html").exists()
