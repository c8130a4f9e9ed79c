"""Fixtures for the command-line tests: a runner, a database, agent files, a fake clock."""

from __future__ import annotations

import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from steadyflow.testing import FakeClock, fake_clock

AGENT_FILE = """
from steadyflow import LlmAgent
from steadyflow.testing import ScriptedLlm, Stream, call, http_error


def lookup_order(order_id: str) -> dict:
    \"\"\"Look up an order.\"\"\"
    return {"order_id": order_id, "status": "shipped"}


root_agent = LlmAgent(
    name="shop",
    model=ScriptedLlm({script}),
    tools=[lookup_order],
)
"""

ORDER_SCRIPT = '[call("lookup_order", {"order_id": "812"}), "Order 812 has shipped."]'


@pytest.fixture
def cli() -> CliRunner:
    return CliRunner()


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'sessions.db'}"


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


@pytest.fixture
def agent_file(tmp_path: Path):
    """Writes an agent file whose ScriptedLlm follows ``script`` (Python source)."""

    def write(script: str = ORDER_SCRIPT, name: str = "agent.py") -> str:
        path = tmp_path / name
        path.write_text(textwrap.dedent(AGENT_FILE.replace("{script}", script)), encoding="utf-8")
        return str(path)

    return write
