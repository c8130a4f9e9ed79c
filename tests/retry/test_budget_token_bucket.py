"""TokenBucketRetryBudget: exact token arithmetic and the half-full retry rule."""

import copy

import pytest

from steadyflow.retry import RetryBudget, TokenBucketRetryBudget

KEY = "openai:gpt-4o"


async def fail(budget: TokenBucketRetryBudget, times: int, key: str = KEY) -> None:
    for _ in range(times):
        await budget.record(key, failed=True)


async def succeed(budget: TokenBucketRetryBudget, times: int, key: str = KEY) -> None:
    for _ in range(times):
        await budget.record(key, failed=False)


def test_defaults_are_grpcs_100_tokens_and_ratio_0_1() -> None:
    budget = TokenBucketRetryBudget()
    assert (budget.max_tokens, budget.token_ratio) == (100.0, 0.1)
    assert isinstance(budget, RetryBudget)


def test_a_key_starts_with_a_full_bucket() -> None:
    assert TokenBucketRetryBudget(max_tokens=10).tokens(KEY) == 10.0


async def test_each_failure_costs_exactly_one_token() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10)
    await fail(budget, 3)
    assert budget.tokens(KEY) == 7.0


async def test_each_success_adds_exactly_token_ratio() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10, token_ratio=0.1)
    await fail(budget, 6)
    await succeed(budget, 7)
    assert budget.tokens(KEY) == 4.7


async def test_thirty_successes_of_0_1_add_exactly_three_tokens() -> None:
    budget = TokenBucketRetryBudget(max_tokens=100, token_ratio=0.1)
    await fail(budget, 50)
    await succeed(budget, 30)
    assert budget.tokens(KEY) == 53.0


async def test_tokens_never_exceed_max_tokens() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10, token_ratio=0.5)
    await fail(budget, 1)
    await succeed(budget, 5)
    assert budget.tokens(KEY) == 10.0


async def test_tokens_never_drop_below_zero() -> None:
    budget = TokenBucketRetryBudget(max_tokens=3)
    await fail(budget, 10)
    assert budget.tokens(KEY) == 0.0


async def test_retries_are_allowed_while_tokens_are_above_half() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10)
    await fail(budget, 4)
    assert budget.tokens(KEY) == 6.0
    assert await budget.allow(KEY, retry=True)


async def test_no_retries_once_tokens_reach_half() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10)
    await fail(budget, 5)
    assert budget.tokens(KEY) == 5.0
    assert not await budget.allow(KEY, retry=True)


async def test_one_success_past_half_lets_retries_resume() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10, token_ratio=0.1)
    await fail(budget, 5)
    await succeed(budget, 1)
    assert budget.tokens(KEY) == 5.1
    assert await budget.allow(KEY, retry=True)


async def test_first_attempts_are_never_refused() -> None:
    budget = TokenBucketRetryBudget(max_tokens=2)
    await fail(budget, 5)
    assert await budget.allow(KEY, retry=False)


async def test_keys_have_separate_buckets() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10)
    await fail(budget, 8, key="openai:gpt-4o")
    assert not await budget.allow("openai:gpt-4o", retry=True)
    assert await budget.allow("anthropic:claude", retry=True)
    assert budget.tokens("anthropic:claude") == 10.0


async def test_token_ratio_counts_to_three_decimals() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10, token_ratio=0.0014)
    await fail(budget, 1)
    await succeed(budget, 10)
    assert budget.tokens(KEY) == 9.01


async def test_a_deep_copy_shares_the_bucket() -> None:
    budget = TokenBucketRetryBudget(max_tokens=10)
    assert copy.deepcopy(budget) is budget


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_tokens": 0}, "max_tokens must be > 0"),
        ({"max_tokens": -5}, "max_tokens must be > 0"),
        ({"max_tokens": float("inf")}, "max_tokens must be a finite number"),
        ({"max_tokens": "100"}, "max_tokens must be a finite number"),
        ({"token_ratio": 0}, "token_ratio must be >= 0.001"),
        ({"token_ratio": True}, "token_ratio must be a finite number"),
    ],
)
def test_invalid_settings_name_the_field(kwargs, message) -> None:
    with pytest.raises(ValueError, match=message):
        TokenBucketRetryBudget(**kwargs)
