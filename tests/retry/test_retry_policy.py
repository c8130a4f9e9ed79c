import pytest
from hypothesis import given
from hypothesis import strategies as st

from steadyflow.retry import (
    RetryConfig,
    RetryDecision,
    RetryDetails,
    RetryReason,
    backoff_delay,
    decide,
)

NO_JITTER = RetryConfig(max_attempts=10, jitter_ratio=0.0)


def failed(attempt: int = 1, **facts) -> RetryDetails:
    facts.setdefault("retryable", True)
    return RetryDetails(attempt=attempt, **facts)


def test_retryable_first_failure_retries_after_initial_backoff() -> None:
    assert decide(NO_JITTER, failed(1)) == RetryDecision(True, 0.5, RetryReason.RETRYABLE)


def test_backoff_doubles_per_retry_up_to_the_cap() -> None:
    config = RetryConfig(max_attempts=10, initial_backoff=0.5, max_backoff=4.0, jitter_ratio=0)
    delays = [backoff_delay(config, n) for n in range(1, 8)]
    assert delays == [0.5, 1.0, 2.0, 4.0, 4.0, 4.0, 4.0]


def test_multiplier_sets_the_growth() -> None:
    config = RetryConfig(initial_backoff=1.0, max_backoff=100.0, multiplier=3.0, jitter_ratio=0)
    assert [backoff_delay(config, n) for n in (1, 2, 3)] == [1.0, 3.0, 9.0]


def test_full_jitter_draws_reach_the_ratio_bounds() -> None:
    config = RetryConfig(initial_backoff=0.5, jitter_ratio=0.2)
    assert backoff_delay(config, 1, jitter=-1.0) == pytest.approx(0.4)
    assert backoff_delay(config, 1, jitter=1.0) == pytest.approx(0.6)


def test_jitter_never_lifts_a_delay_over_the_cap() -> None:
    config = RetryConfig(initial_backoff=0.5, max_backoff=1.0, jitter_ratio=0.5)
    assert backoff_delay(config, 5, jitter=1.0) == 1.0


@given(
    retry=st.integers(min_value=1, max_value=60),
    jitter=st.floats(min_value=-1.0, max_value=1.0),
    ratio=st.floats(min_value=0.0, max_value=1.0),
)
def test_jittered_delay_lies_within_ratio_of_base_and_under_cap(retry, jitter, ratio) -> None:
    config = RetryConfig(initial_backoff=0.5, max_backoff=8.0, jitter_ratio=ratio)
    base = min(0.5 * 2.0 ** (retry - 1), 8.0)
    delay = backoff_delay(config, retry, jitter)
    assert base * (1 - ratio) - 1e-9 <= delay <= min(base * (1 + ratio), 8.0) + 1e-9


def test_huge_retry_numbers_stay_at_the_cap() -> None:
    config = RetryConfig(max_backoff=8.0, multiplier=10.0, jitter_ratio=0)
    assert backoff_delay(config, 10_000) == 8.0


@pytest.mark.parametrize(
    ("retry", "jitter", "field"),
    [(0, 0.0, "retry_number"), (1, 1.5, "jitter"), (1, -1.01, "jitter")],
)
def test_backoff_rejects_bad_arguments(retry, jitter, field) -> None:
    with pytest.raises(ValueError, match=field):
        backoff_delay(RetryConfig(), retry, jitter)


def test_non_retryable_error_gives_up() -> None:
    decision = decide(NO_JITTER, failed(1, retryable=False))
    assert decision == RetryDecision(False, 0.0, RetryReason.NOT_RETRYABLE)


def test_last_allowed_attempt_gives_up() -> None:
    config = RetryConfig(max_attempts=3)
    assert decide(config, failed(2)).retry
    assert decide(config, failed(3)).reason is RetryReason.ATTEMPTS_EXHAUSTED


def test_disabled_config_never_retries_a_retryable_error() -> None:
    assert decide(RetryConfig(), failed(1)).reason is RetryReason.ATTEMPTS_EXHAUSTED


def test_an_attempt_that_emitted_output_is_never_retried() -> None:
    decision = decide(NO_JITTER, failed(1, output_emitted=True))
    assert decision.reason is RetryReason.OUTPUT_EMITTED
    assert not decision.retry


def test_call_limit_in_the_chain_is_never_retried_even_when_retryable() -> None:
    decision = decide(NO_JITTER, failed(1, call_limit_in_chain=True))
    assert decision.reason is RetryReason.CALL_LIMIT


def test_hint_longer_than_backoff_is_waited() -> None:
    assert decide(NO_JITTER, failed(1, retry_after=3.0)).delay == 3.0


def test_hint_shorter_than_backoff_waits_the_backoff() -> None:
    assert decide(NO_JITTER, failed(3, retry_after=0.1)).delay == 2.0


def test_hint_above_max_retry_after_gives_up_at_once() -> None:
    config = RetryConfig(max_attempts=5, max_retry_after=60.0)
    decision = decide(config, failed(1, retry_after=600.0))
    assert decision == RetryDecision(False, 0.0, RetryReason.HINT_TOO_LONG)


def test_hint_equal_to_max_retry_after_is_waited() -> None:
    config = RetryConfig(max_attempts=5, max_retry_after=60.0, jitter_ratio=0)
    assert decide(config, failed(1, retry_after=60.0)).delay == 60.0


def test_hint_is_ignored_when_not_respected() -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0, respect_retry_after=False)
    assert decide(config, failed(1, retry_after=600.0)) == RetryDecision(
        True, 0.5, RetryReason.RETRYABLE
    )


def test_wait_that_would_pass_total_timeout_is_not_started() -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0, total_timeout=1.0)
    decision = decide(config, failed(2, elapsed=0.5))
    assert decision == RetryDecision(False, 0.0, RetryReason.TOTAL_TIMEOUT)


def test_wait_ending_exactly_at_total_timeout_is_allowed() -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0, total_timeout=1.5)
    assert decide(config, failed(2, elapsed=0.5)).delay == 1.0


def test_total_timeout_counts_the_hint_wait() -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0, total_timeout=10.0)
    assert decide(config, failed(1, retry_after=30.0)).reason is RetryReason.TOTAL_TIMEOUT


def test_decision_uses_the_given_jitter_draw() -> None:
    config = RetryConfig(max_attempts=5, jitter_ratio=0.2)
    assert decide(config, failed(1), jitter=1.0).delay == pytest.approx(0.6)
