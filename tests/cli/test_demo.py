"""``steadyflow demo``: a real SDK against the emulator, through a 429, a 503, a broken stream."""

import pytest

from tests.cli.support import assert_one_line_error, invoke, session_ids


def demo(cli, db, *args: str):
    return invoke(cli, "demo", "--session-db", db, "--chunk-delay", "0", *args)


@pytest.mark.parametrize("provider", ["openai", "anthropic", "gemini"])
def test_demo_retries_through_the_faults_and_answers(cli, db, clock, provider) -> None:
    result = demo(cli, db, "--provider", provider)
    assert result.exit_code == 0, result.stdout + result.stderr
    out = result.stdout
    assert "attempt 1" in out and "429 ModelHTTPError, Retry-After 1 s" in out
    assert "waiting 1.00 s (Retry-After)" in out
    assert "503 ModelHTTPError" in out and "(backoff)" in out
    assert "ModelConnectionError" in out  # the stream that broke before its first chunk
    assert "→ lookup_order(order_id='812')" in out
    assert "order_support: Order 812 - status: shipped, carrier: DHL, eta: 2026-12-03." in out
    assert "budget: 5 of 8 attempts used (2 model calls, 3 retries)" in out
    assert len(clock.sleeps) == 3 and clock.sleeps[0] == 1.0


def test_demo_stores_the_session_and_its_timeline(cli, db, clock) -> None:
    result = demo(cli, db)
    (session_id,) = session_ids(cli, db)
    assert f"session {session_id} in sqlite:///" in result.stdout
    assert f"steadyflow trace {session_id}" in result.stdout
    again = invoke(cli, "trace", session_id, "--session-db", db)
    assert "2 steps · 5 attempts (3 retries" in again.stdout


def test_demo_without_streaming_resets_a_connection_instead(cli, db, clock) -> None:
    result = demo(cli, db, "--no-stream")
    assert result.exit_code == 0, result.stderr
    assert "reset@4" in result.stdout and "not streaming" in result.stdout
    assert "budget: 5 of 8 attempts used" in result.stdout


def test_an_empty_fault_script_runs_clean(cli, db, clock) -> None:
    result = demo(cli, db, "--faults", "")
    assert result.exit_code == 0, result.stderr
    assert "budget: 2 of 8 attempts used (2 model calls, 0 retries)" in result.stdout
    assert clock.sleeps == []


def test_a_bad_fault_script_is_one_line_exit_2(cli, db) -> None:
    assert_one_line_error(demo(cli, db, "--faults", "418@x"), "--faults", "bad fault spec")


def test_an_unknown_provider_is_one_line_exit_2(cli, db) -> None:
    assert_one_line_error(demo(cli, db, "--provider", "cohere"), "'cohere'", "gemini")


def test_an_error_detail_is_cut_after_a_whole_word(cli, db, clock) -> None:
    result = demo(cli, db, "--no-stream", "--faults", "reset@1")
    assert result.exit_code == 0, result.stderr
    (line,) = [line for line in result.stdout.splitlines() if "ModelConnectionError (" in line]
    detail = line.split("ModelConnectionError (", 1)[1].rsplit(") (", 1)[0]
    assert detail.endswith("/v1/chat/completions …"), detail
