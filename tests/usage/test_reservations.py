"""Hard limits: every attempt reserves its worst case, and the cap is never passed.

The worst case is the estimated input plus ``max_output_tokens``, or the
model's output ceiling when the request sets none; where neither is known a
hard limit fails closed, unless the limit allows overshoot.
"""

from __future__ import annotations

import asyncio

import pytest

from steadyflow import LlmAgent, ParallelAgent, RunConfig, Runner
from steadyflow.errors import UnboundedOutputError, UsageLimitExceededError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.sessions import InMemorySessionService
from steadyflow.testing import FunctionLlm, ScriptedLlm, run_turn
from steadyflow.types import Content, GenerateContentConfig
from steadyflow.usage import ModelPrice, SpendLimit, UsageLimits
from steadyflow.usage._ceilings import output_ceiling
from steadyflow.usage._estimate import estimate_request
from steadyflow.usage.spend import SpendStore

from .helpers import answer, records, start, turn, usage
from .reservation_worker import CEILING, PRICES, longest_answer, worst_case_cost

INVOCATIONS = 8


class Gate:
    """Opens once every invocation was either refused or reached the model."""

    def __init__(self, count: int) -> None:
        self.count, self.seen = count, 0
        self.opened = asyncio.Event()

    def arrived(self) -> None:
        self.seen += 1
        if self.seen == self.count:
            self.opened.set()


@pytest.mark.parametrize("max_output_tokens", [None, 250], ids=["ceiling", "max_output"])
async def test_concurrent_invocations_never_settle_past_one_cost_cap(
    spend_store: SpendStore, max_output_tokens: int | None
) -> None:
    gate = Gate(INVOCATIONS)

    async def hold_until_all_reserved(request: LlmRequest) -> LlmResponse:
        gate.arrived()
        await gate.opened.wait()
        return longest_answer(request)

    model = FunctionLlm(hold_until_all_reserved)
    config = GenerateContentConfig(max_output_tokens=max_output_tokens)
    agent = LlmAgent(name="a", model=model, generate_content_config=config)
    runner = Runner(
        app_name="app",
        agent=agent,
        session_service=InMemorySessionService(),
        spend_store=spend_store,
    )
    out = max_output_tokens or CEILING
    about = PRICES["function-model"].cost(usage(10, out))  # the input: a few tokens
    cap = about * 3 + about / 2  # room for three and a half worst cases
    limit = SpendLimit(scope="app", max_cost=cap)
    run_config = RunConfig(spend_limits=[limit], prices=PRICES)

    async def invocation(user: str) -> str:
        session = await runner.create_session(user_id=user)
        try:
            async for _ in runner.run_async(
                user_id=user, session_id=session.id, new_message="hi", run_config=run_config
            ):
                pass
        except UsageLimitExceededError as error:
            gate.arrived()
            return error.limit
        return "answered"

    outcomes = await asyncio.wait_for(
        asyncio.gather(*(invocation(f"u{n}") for n in range(INVOCATIONS))), 60
    )
    entries = await spend_store.entries("app", 0.0)
    settled = sum(entry.cost for entry in entries)
    assert settled <= cap  # the cap is never passed ...
    assert sorted(outcomes) == ["answered"] * 3 + ["app:max_cost"] * 5  # ... nor refused early
    assert len(model.requests) == len(entries) == 3
    assert settled == worst_case_cost(model.requests[0]) * 3  # each as long as allowed


async def test_a_hard_limit_without_a_known_output_bound_fails_closed_naming_the_fixes() -> None:
    model = ScriptedLlm(["never"], model="our-private-llm")
    runner, sid = await start(LlmAgent(name="a", model=model))
    with pytest.raises(UnboundedOutputError) as caught:
        await turn(runner, sid, RunConfig(usage_limits=UsageLimits(max_total_tokens=10_000)))
    message = str(caught.value)
    assert "hard limit max_total_tokens" in message and "'our-private-llm'" in message
    assert "max_output_tokens in the agent's generate_content_config" in message
    assert "ModelPrice(..., max_output_tokens=N)" in message
    assert "allow_overshoot=True" in message
    assert model.requests == []
    (record,) = await records(runner, sid)
    assert record.llm_calls == 0 and record.error_type == "UnboundedOutputError"


async def test_a_spend_limit_fails_closed_too_unless_it_allows_overshoot() -> None:
    model = ScriptedLlm([answer("fine", 10, 5)])
    runner, sid = await start(LlmAgent(name="a", model=model))
    hard = SpendLimit(scope="user", max_total_tokens=10_000)
    with pytest.raises(UnboundedOutputError, match="hard limit user:max_total_tokens"):
        await turn(runner, sid, RunConfig(spend_limits=[hard]))
    assert model.requests == []
    soft = SpendLimit(scope="user", max_total_tokens=10_000, allow_overshoot=True)
    events = await turn(runner, sid, RunConfig(spend_limits=[soft]))
    assert [e.text for e in events] == ["fine"]


async def test_without_max_output_tokens_the_model_ceiling_is_reserved() -> None:
    model = ScriptedLlm([answer("fine", 10, 5)])
    runner, sid = await start(LlmAgent(name="a", model=model))
    prices = {"scripted-model": ModelPrice(input=1, output=1, max_output_tokens=800)}
    tight = RunConfig(usage_limits=UsageLimits(max_total_tokens=800), prices=prices)
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, tight)
    assert model.requests == []
    assert caught.value.needed == 820
    assert "+ 800 output ceiling" in caught.value.detail
    room = RunConfig(usage_limits=UsageLimits(max_total_tokens=900), prices=prices)
    assert [e.text for e in await turn(runner, sid, room)] == ["fine"]


async def test_a_limit_on_input_alone_needs_no_output_bound() -> None:
    model = ScriptedLlm([answer("fine", 10, 5)])
    runner, sid = await start(LlmAgent(name="a", model=model))
    events = await turn(runner, sid, RunConfig(usage_limits=UsageLimits(max_input_tokens=100)))
    assert [e.text for e in events] == ["fine"]


async def test_parallel_branches_reserve_against_the_invocation_limit() -> None:
    """Branches share the invocation's limits: each one's reservation is seen by the next."""
    per_branch = GenerateContentConfig(max_output_tokens=100)

    async def slow_answer(request: LlmRequest) -> LlmResponse:
        for _ in range(5):  # let every branch reach its admission first
            await asyncio.sleep(0)
        return longest_answer(request)

    models = [FunctionLlm(slow_answer) for _ in range(4)]
    branches = [
        LlmAgent(name=f"b{n}", model=model, generate_content_config=per_branch)
        for n, model in enumerate(models)
    ]
    request = LlmRequest(contents=[Content.from_text("go", role="user")])
    worst = estimate_request(request).input_tokens + 100
    limits = UsageLimits(max_total_tokens=worst * 2 + worst // 2)  # two and a half branches
    result = await run_turn(
        ParallelAgent(name="fan_out", sub_agents=branches),
        "go",
        run_config=RunConfig(usage_limits=limits),
    )
    assert isinstance(result.error, UsageLimitExceededError)
    assert sum(len(model.requests) for model in models) == 2


def test_the_ceiling_table_matches_model_families_and_the_users_price_comes_first() -> None:
    assert output_ceiling("openai", "gpt-4o-mini-2024-07-18", None) == 16_384
    assert output_ceiling("gemini", "models/gemini-2.5-flash", None) == 65_536
    assert output_ceiling("anthropic", "claude-opus-4-1-20250805", None) == 32_000
    assert output_ceiling("anthropic", "claude-opus-4-5-20251101", None) == 64_000
    assert output_ceiling("custom", "our-private-llm", None) is None
    own = {"openai:gpt-4o": ModelPrice(input=1, output=1, max_output_tokens=2_000)}
    assert output_ceiling("openai", "gpt-4o", own) == 2_000


def test_allow_overshoot_is_validated_and_kept_with_the_stored_limits() -> None:
    limits = UsageLimits(max_total_tokens=5, allow_overshoot=True)
    assert limits.to_dict() == {"max_total_tokens": 5, "allow_overshoot": True}
    assert UsageLimits.from_dict(limits.to_dict()) == limits
    from steadyflow.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="allow_overshoot must be True or False"):
        SpendLimit(scope="app", max_cost=1, allow_overshoot="yes")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="max_output_tokens must be an int > 0"):
        ModelPrice(input=1, output=1, max_output_tokens=0)
