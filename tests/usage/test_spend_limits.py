"""SpendLimit through the runner: checked before every attempt, charged after it."""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal

import pytest

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.errors import ConfigurationError, UnknownPriceError, UsageLimitExceededError
from steadyflow.testing import ScriptedLlm
from steadyflow.types import GenerateContentConfig
from steadyflow.usage import ModelPrice, SpendLimit

from .helpers import answer

PRICES = {"scripted-model": ModelPrice(input=Decimal("1"), output=Decimal("1"))}
AT_MOST = GenerateContentConfig(max_output_tokens=100)


async def ask(runner: Runner, user: str, config: RunConfig) -> list:
    session = await runner.create_session(user_id=user)
    return [
        e
        async for e in runner.run_async(
            user_id=user, session_id=session.id, new_message="hi", run_config=config
        )
    ]


async def test_a_daily_user_cap_spans_sessions_and_spares_other_users(service) -> None:
    model = ScriptedLlm([answer("one", 400, 100), answer("two", 10, 10), answer("three", 10, 10)])
    agent = LlmAgent(name="a", model=model, generate_content_config=AT_MOST)
    runner = Runner(app_name="app", agent=agent, session_service=service)
    config = RunConfig(spend_limits=[SpendLimit(scope="user", max_total_tokens=501)])
    assert [e.text for e in await ask(runner, "alice", config)] == ["one"]
    with pytest.raises(UsageLimitExceededError) as caught:
        await ask(runner, "alice", config)  # another session, the same user and day
    assert caught.value.limit == "user:max_total_tokens"
    assert "500 tokens used in 86400 s" in str(caught.value)
    error = caught.value
    assert (error.maximum, error.used, error.unit, error.window) == (501, 500, "tokens", 86400)
    assert [e.text for e in await ask(runner, "bob", config)] == ["two"]
    assert len(model.requests) == 2
    entries = await runner.spend_store.entries("app", 0.0)
    assert sorted((e.user, e.tokens) for e in entries) == [("alice", 500), ("bob", 20)]


async def test_a_cost_cap_charges_the_actual_cost(service) -> None:
    model = ScriptedLlm([answer("one", 3000, 1000), answer("two", 10, 10)])
    agent = LlmAgent(name="a", model=model, generate_content_config=AT_MOST)
    runner = Runner(app_name="app", agent=agent, session_service=service)
    limit = SpendLimit(scope="app", window=timedelta(hours=1), max_cost=Decimal("0.004"))
    config = RunConfig(spend_limits=[limit], prices=PRICES)
    await ask(runner, "alice", config)
    with pytest.raises(UsageLimitExceededError) as caught:
        await ask(runner, "bob", config)
    error = caught.value
    assert error.limit == "app:max_cost" and error.unit == "usd" and error.window == 3600
    assert (error.maximum, error.used) == (Decimal("0.004"), Decimal("0.004"))
    assert isinstance(error.needed, Decimal) and error.needed > 0
    assert "app:max_cost ($0.004) would be exceeded: $0.004 used in 3600 s" in str(error)
    (entry,) = await runner.spend_store.entries("app", 0.0)
    assert entry.cost == Decimal("0.004") and entry.model == "scripted-model"


async def test_a_cost_cap_on_an_unpriced_model_fails_before_the_first_call() -> None:
    model = ScriptedLlm(["never"])
    runner = Runner(
        app_name="app", agent=LlmAgent(name="a", model=model), session_service="memory://"
    )
    config = RunConfig(spend_limits=[SpendLimit(scope="user", max_cost=1)])
    with pytest.raises(UnknownPriceError):
        await ask(runner, "alice", config)
    assert model.requests == []


def test_a_spend_limit_needs_a_cap_and_a_known_scope() -> None:
    with pytest.raises(ConfigurationError, match="set max_cost, max_total_tokens or both"):
        SpendLimit(scope="user")
    with pytest.raises(ConfigurationError, match="scope must be one of"):
        SpendLimit(scope="team", max_cost=1)  # type: ignore[arg-type]
    assert SpendLimit(scope="user", max_cost=0.5).max_cost == Decimal("0.5")
