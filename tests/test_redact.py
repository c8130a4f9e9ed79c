"""Every credential form in a URL is masked wherever steadyflow shows the URL."""

import logging

import pytest

from steadyflow import RetryConfig
from steadyflow._redact import redact_url
from steadyflow.cli._store import shown_url
from steadyflow.errors import ConfigurationError
from steadyflow.retry import (
    CircuitBreaker,
    RedisCircuitBreaker,
    RedisRetryBudget,
    TokenBucketRetryBudget,
)
from steadyflow.sessions import open_session_service
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import FakeClock
from tests.support.servers import free_port

SECRET = "s3cr3t"


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        (f"redis://bob:{SECRET}@h:6379/0", "redis://bob:***@h:6379/0"),
        (f"redis://:{SECRET}@h", "redis://***@h"),
        (f"redis://{SECRET}@h/0", "redis://***@h/0"),
        (f"redis://h:6379/0?password={SECRET}&db=1", "redis://h:6379/0?password=***&db=1"),
        (f"redis://h/0?username=bob&Password={SECRET}", "redis://h/0?username=***&Password=***"),
        (f"unix:///tmp/redis.sock?password={SECRET}", "unix:///tmp/redis.sock?password=***"),
        (f"postgresql://app:a/b@{SECRET}@db/x", "postgresql://app:***@db/x"),
        (f"redis://bob:a?{SECRET}@h/0", "redis://bob:***@h/0"),
        ("sqlite:///data/a@b.db", "sqlite:///data/a@b.db"),
        ("redis://h:6379/0?db=1", "redis://h:6379/0?db=1"),
    ],
)
def test_redact_url_masks_userinfo_and_credential_query_parameters(url, shown):
    assert redact_url(url) == shown


def query_password_url() -> str:
    return f"redis://127.0.0.1:{free_port()}/0?password={SECRET}&username=ops"


async def test_redis_budget_and_breaker_reprs_hide_a_query_password():
    budget = RedisRetryBudget(TokenBucketRetryBudget(), url=query_password_url())
    breaker = RedisCircuitBreaker(CircuitBreaker(), url=query_password_url())
    config = RetryConfig(max_attempts=2, budget=budget, circuit_breaker=breaker)
    for shown in (repr(budget), repr(breaker), repr(config)):
        assert SECRET not in shown and "ops" not in shown
        assert "password=***" in shown
    await budget.aclose()
    await breaker.aclose()


async def test_the_redis_unavailable_warning_hides_a_query_password(caplog):
    budget = RedisRetryBudget(
        TokenBucketRetryBudget(), url=query_password_url(), clock=FakeClock(), timeout=0.2
    )
    with caplog.at_level(logging.WARNING, logger="steadyflow.retry.redis"):
        await budget.record("openai:gpt-4o", failed=True)
    assert "unavailable" in caplog.text
    assert SECRET not in caplog.text and "password=***" in caplog.text
    await budget.aclose()


def test_sql_store_repr_hides_a_query_password():
    service = SqlSessionService(f"postgresql://app@db.internal/sessions?password={SECRET}")
    assert SECRET not in repr(service) and "password=***" in repr(service)


def test_a_refused_session_url_is_named_without_its_password():
    with pytest.raises(ConfigurationError) as refused:
        open_session_service(f"mysql://app:{SECRET}@db/x?password={SECRET}")
    assert SECRET not in str(refused.value) and "app:***@db" in str(refused.value)


def test_the_cli_shows_session_urls_through_the_same_helper():
    url = f"postgresql://db/x?password={SECRET}"
    assert shown_url(url) == redact_url(url) == "postgresql://db/x?password=***"
