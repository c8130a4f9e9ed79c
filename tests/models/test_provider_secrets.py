"""API keys: read from the environment, required at the first call, never leaked."""

from __future__ import annotations

import logging
from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import ConfigurationError, ModelError
from steadyflow.models import BaseLlm, LlmRequest
from steadyflow.testing import fake_clock
from steadyflow.testing.emulator import Fault
from steadyflow.testing.harness import run_turn
from steadyflow.types import Content
from tests.models.providers import ADAPTERS, MODELS, PROVIDERS, SECRET, Emulate, MakeLlm, base_url
from tests.support.otel import span_exporter

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.parametrize("provider", PROVIDERS),
]
KEY_ENV = {
    "gemini": "GOOGLE_API_KEY",
    "openai": "OPENAI_API_KEY",
    "openai-responses": "OPENAI_API_KEY",
    "anthropic": "ANTHROPIC_API_KEY",
}
FAULTS = [
    Fault.http(401, on=1),
    Fault.http(429, retry_after=1, on=2),
    Fault.reset(on=3),
    Fault.stream_break(1, on=4),
    Fault.malformed(on=5),
]


def request() -> LlmRequest:
    return LlmRequest(contents=[Content.from_text("Where is order 812?")])


async def call(llm: BaseLlm, stream: bool = False) -> BaseException | None:
    try:
        async for _ in llm.generate_content_async(request(), stream=stream):
            pass
    except Exception as error:
        return error
    return None


def texts_of(error: BaseException) -> Iterator[str]:
    seen: set[int] = set()
    pending: list[BaseException | None] = [error]
    while pending:
        link = pending.pop()
        if link is None or id(link) in seen:
            continue
        seen.add(id(link))
        yield str(link)
        yield repr(link)
        yield repr(vars(link))
        pending += [link.__cause__, link.__context__]


async def test_the_key_is_sent_to_the_provider(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["ok"], api_key=SECRET)
    assert await call(make_llm(provider, emu)) is None


async def test_key_and_base_url_come_from_the_environment(
    provider: str, emulate: Emulate, monkeypatch: pytest.MonkeyPatch
) -> None:
    emu = await emulate(["ok"], api_key="env-key-1")
    for name, value in emu.env().items():
        if "BASE_URL" in name:
            monkeypatch.setenv(name, value)
    monkeypatch.setenv(KEY_ENV[provider], "env-key-1")
    llm = ADAPTERS[provider](MODELS[provider])
    try:
        assert await call(llm) is None
    finally:
        await llm.aclose()
    assert emu.attempts(provider) == 1


async def test_missing_key_fails_at_the_first_call_naming_the_variable(
    provider: str, emulate: Emulate
) -> None:
    emu = await emulate(["ok"])
    llm = ADAPTERS[provider](MODELS[provider], base_url=base_url(provider, emu))
    error = await call(llm)
    assert isinstance(error, ConfigurationError)
    assert KEY_ENV[provider] in str(error)
    assert emu.attempts(provider) == 0


async def test_secret_never_appears_in_logs_or_error_messages(
    provider: str, emulate: Emulate, make_llm: MakeLlm, caplog: pytest.LogCaptureFixture
) -> None:
    emu = await emulate(["ok"] * 6, faults=FAULTS)
    llm = make_llm(provider, emu)
    caplog.set_level(logging.DEBUG)
    errors = [await call(llm, stream=n >= 3) for n in range(6)]
    assert [type(e).__name__ for e in errors] == [
        "ModelHTTPError",
        "ModelHTTPError",
        "ModelConnectionError",
        "ModelConnectionError",
        "ModelResponseError",
        "NoneType",
    ]
    assert caplog.records, "the SDKs log at DEBUG; the check must see their records"
    for record in caplog.records:
        assert SECRET not in record.getMessage()
        assert SECRET not in repr(record.args)
    for error in errors:
        if error is not None:
            assert not [t for t in texts_of(error) if SECRET in t]
    assert SECRET not in repr(llm)


@pytest.fixture(scope="module")
def spans() -> Iterator[InMemorySpanExporter]:
    exporter = span_exporter()
    exporter.clear()
    yield exporter
    exporter.clear()


async def test_secret_never_appears_in_span_attributes_or_events(
    provider: str, emulate: Emulate, make_llm: MakeLlm, spans: InMemorySpanExporter
) -> None:
    emu = await emulate(
        ["Order 812 shipped."], faults=[Fault.http(503, on=1), Fault.http(401, on=3)]
    )
    agent = LlmAgent(name="support", model=make_llm(provider, emu))
    retry = RunConfig(
        streaming_mode=StreamingMode.SSE, retry_config=RetryConfig(max_attempts=2, jitter_ratio=0)
    )
    spans.clear()
    with fake_clock():
        ok = await run_turn(agent, "Where is order 812?", run_config=retry)
        failed = await run_turn(agent, "And order 900?", run_config=retry)
    assert ok.error is None and isinstance(failed.error, ModelError)
    finished = spans.get_finished_spans()
    assert finished
    for span in finished:
        assert SECRET not in repr(dict(span.attributes or {}))
        for event in span.events:
            assert SECRET not in repr(dict(event.attributes or {}))


async def test_a_short_key_leaves_the_providers_message_whole(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    text = "tool_use ids were found without tool_result blocks"
    emu = await emulate(["ok"], faults=[Fault.http(400, on=1, message=text)])
    error = await call(make_llm(provider, emu, api_key="t"))
    assert isinstance(error, ModelError)
    assert text in str(error)
    assert "***" not in str(error)


async def test_the_token_holding_the_key_is_masked_whole(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    text = f"key {SECRET}. is revoked; so is x{SECRET}-old, tool_use ids aside"
    emu = await emulate(["ok"], faults=[Fault.http(400, on=1, message=text)])
    error = await call(make_llm(provider, emu))
    assert isinstance(error, ModelError)
    assert "key ***. is revoked; so is ***, tool_use ids aside" in str(error)
