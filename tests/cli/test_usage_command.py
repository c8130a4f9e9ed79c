"""``steadyflow usage``: spend by app, user, session or model, read from the stores."""

from __future__ import annotations

import asyncio
import json
from decimal import Decimal

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import ScriptedLlm
from steadyflow.usage import ModelPrice, SpendLimit
from tests.usage.helpers import answer

from .support import assert_one_line_error, invoke

PRICES = {
    "scripted-model": ModelPrice(input=Decimal("1"), output=Decimal("2"), max_output_tokens=1000)
}


async def spend(db: str) -> None:
    """Alice makes two calls, Bob one, under a daily per-user cap."""
    model = ScriptedLlm([answer("a", 1000, 100), answer("b", 2000, 0), answer("c", 10, 5)])
    service = SqlSessionService(db)
    runner = Runner(app_name="shop", agent=LlmAgent(name="a", model=model), session_service=service)
    config = RunConfig(spend_limits=[SpendLimit(scope="user", max_cost=1)], prices=PRICES)
    for user in ("alice", "alice", "bob"):
        session = await runner.create_session(user_id=user)
        async for _ in runner.run_async(
            user_id=user, session_id=session.id, new_message="hi", run_config=config
        ):
            pass
    await service.close()


def test_spend_is_grouped_by_user_costliest_first(cli, db) -> None:
    asyncio.run(spend(db))
    result = invoke(cli, "usage", "--session-db", db, "--by", "user", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout) == [
        {"user": "shop/alice", "attempts": 2, "tokens": 3100, "cost": "0.0032"},
        {"user": "shop/bob", "attempts": 1, "tokens": 15, "cost": "0.00002"},
    ]
    table = invoke(cli, "usage", "--session-db", db, "--by", "model")
    assert "scripted-model" in table.stdout and "total $0.003220 over 3 attempts" in table.stdout


def test_an_unknown_grouping_is_one_line_error(cli, db) -> None:
    result = invoke(cli, "usage", "--session-db", db, "--by", "team")
    assert_one_line_error(result, "--by must be one of app, user, session, model")


async def priced_turns_without_a_limit(db: str) -> None:
    model = ScriptedLlm([answer("a", 1000, 100), answer("b", 2000, 0)])
    service = SqlSessionService(db)
    runner = Runner(app_name="shop", agent=LlmAgent(name="a", model=model), session_service=service)
    for _ in range(2):
        session = await runner.create_session(user_id="alice")
        async for _ in runner.run_async(
            user_id="alice", session_id=session.id, new_message="hi", run_config=RUN_PRICED
        ):
            pass
    await service.close()


RUN_PRICED = RunConfig(prices=PRICES)


def test_priced_turns_without_a_spend_limit_are_not_reported_as_no_spend(cli, db) -> None:
    asyncio.run(priced_turns_without_a_limit(db))
    result = invoke(cli, "usage", "--session-db", db, "--by", "user", "--hours", "24")
    assert result.exit_code == 0, result.stderr
    assert " ".join(result.stdout.split()) == (
        "no spend recorded in the last 24 h. Only turns run under a spend limit "
        "(RunConfig.spend_limits) are recorded; a turn's own usage and cost are in its "
        "invocation record (steadyflow trace)"
    )


def test_the_table_says_what_it_counts(cli, db) -> None:
    asyncio.run(spend(db))
    table = invoke(cli, "usage", "--session-db", db, "--by", "user")
    first = table.stdout.splitlines()[0]
    assert first == "Only turns run under a spend limit (RunConfig.spend_limits) are recorded."
