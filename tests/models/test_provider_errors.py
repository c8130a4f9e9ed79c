"""Every emulated fault, through each adapter: the project's error, one request, the verdict.

The SDKs' own retries are off, so each ``generate_content_async`` call must
put exactly one request on the wire, whatever the fault.
"""

from __future__ import annotations

import email.utils
import time
from collections.abc import Iterator

import pytest

from steadyflow.errors import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelResponseError,
    ModelTimeoutError,
)
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES
from steadyflow.testing.emulator import Fault, Reply
from steadyflow.types import Content
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.parametrize("provider", PROVIDERS),
]
streams = pytest.mark.parametrize("stream", [False, True], ids=["none", "sse"])
SDK_MODULES = {
    "gemini": "google.genai",
    "openai": "openai",
    "openai-responses": "openai",
    "anthropic": "anthropic",
}


def request() -> LlmRequest:
    return LlmRequest(contents=[Content.from_text("Where is order 812?")])


async def attempt(llm: BaseLlm, stream: bool) -> tuple[list[LlmResponse], ModelError]:
    seen: list[LlmResponse] = []
    with pytest.raises(ModelError) as caught:
        async for response in llm.generate_content_async(request(), stream=stream):
            seen.append(response)
    return seen, caught.value


def chain(error: BaseException) -> Iterator[BaseException]:
    link: BaseException | None = error
    while link is not None:
        yield link
        link = link.__cause__ or link.__context__


def retryable(llm: BaseLlm, error: BaseException) -> bool:
    return any(llm.is_exception_retryable(e, DEFAULT_RETRYABLE_STATUS_CODES) for e in chain(error))


STATUSES = [(s, False) for s in (400, 401, 403, 404, 429, 500, 502, 503, 504)]
STATUSES += [(429, True), (503, True)]  # before the stream starts: same path, streamed call


@pytest.mark.parametrize(("status", "stream"), STATUSES)
async def test_http_status_becomes_model_http_error_after_exactly_one_request(
    provider: str, stream: bool, status: int, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["never sent"], faults=[Fault.http(status, message="nope")])
    llm = make_llm(provider, emu)
    seen, error = await attempt(llm, stream)
    assert isinstance(error, ModelHTTPError)
    assert (error.status_code, error.provider, seen) == (status, llm.provider, [])
    assert "nope" in str(error)
    assert type(error.__cause__).__module__.startswith(SDK_MODULES[provider])
    assert retryable(llm, error) == (status in DEFAULT_RETRYABLE_STATUS_CODES)
    assert emu.attempts(provider) == 1


async def test_error_body_and_lower_cased_headers_are_kept(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    fault = Fault.http(503, headers={"X-Trace-Id": "t-1"}, message="busy")
    emu = await emulate(["x"], faults=[fault])
    _, error = await attempt(make_llm(provider, emu), False)
    assert error.headers["x-trace-id"] == "t-1"
    assert "busy" in str(error.body)


@pytest.mark.parametrize(
    ("hint", "expected"),
    [({"retry_after": 2}, 2.0), ({"retry_after_ms": 1500}, 1.5), ({"retry_after": "0"}, 0.0)],
    ids=["seconds", "milliseconds", "zero"],
)
async def test_429_wait_hint_is_read_from_retry_after_headers(
    provider: str, hint: dict[str, object], expected: float, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(429, **hint)])  # type: ignore[arg-type]
    llm = make_llm(provider, emu)
    _, error = await attempt(llm, False)
    assert error.retry_after == expected
    assert llm.retry_after(error) == expected


async def test_429_retry_after_as_http_date_gives_the_seconds_until_then(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    when = email.utils.formatdate(time.time() + 30, usegmt=True)
    emu = await emulate(["x"], faults=[Fault.http(429, retry_after=when)])
    _, error = await attempt(make_llm(provider, emu), False)
    assert error.retry_after is not None and 25 <= error.retry_after <= 30


@streams
async def test_connection_reset_before_headers_is_a_retryable_connection_error(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.reset()])
    llm = make_llm(provider, emu)
    seen, error = await attempt(llm, stream)
    assert isinstance(error, ModelConnectionError) and seen == []
    assert error.__cause__ is not None
    assert retryable(llm, error)
    assert emu.attempts(provider) == 1


@streams
async def test_answer_slower_than_the_timeout_is_a_retryable_timeout_error(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.delay(30)])
    llm = make_llm(provider, emu, timeout=0.05)
    seen, error = await attempt(llm, stream)
    assert isinstance(error, ModelTimeoutError) and seen == []
    assert retryable(llm, error)
    assert emu.attempts(provider) == 1


async def test_stream_broken_before_the_first_chunk_yields_nothing_and_is_retryable(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped."], faults=[Fault.stream_break(0)])
    llm = make_llm(provider, emu)
    seen, error = await attempt(llm, stream=True)
    assert isinstance(error, ModelConnectionError) and seen == []
    assert retryable(llm, error)
    assert emu.attempts(provider) == 1


async def test_stream_broken_after_the_first_chunk_yields_that_chunk_then_fails(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    answer = Reply.streamed("Order ", "812 ", "shipped.")
    emu = await emulate([answer], faults=[Fault.stream_break(1)])
    seen, error = await attempt(make_llm(provider, emu), stream=True)
    assert isinstance(error, ModelConnectionError)
    assert [(r.partial, r.text) for r in seen] == [(True, "Order ")]
    assert emu.attempts(provider) == 1


async def test_body_cut_off_mid_response_is_a_retryable_connection_error(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Order 812 shipped."], faults=[Fault.stream_break()])
    llm = make_llm(provider, emu)
    _, error = await attempt(llm, stream=False)
    assert isinstance(error, ModelConnectionError)
    assert retryable(llm, error)


@streams
async def test_malformed_json_is_a_response_error_that_is_not_retried(
    provider: str, stream: bool, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.malformed()])
    llm = make_llm(provider, emu)
    _, error = await attempt(llm, stream)
    assert isinstance(error, ModelResponseError)
    assert not retryable(llm, error)
    assert emu.attempts(provider) == 1


async def test_sdk_client_given_with_retries_on_still_sends_one_request(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["x"], faults=[Fault.http(503)])
    sdk_client = _sdk_client_with_retries(provider, emu)
    llm = make_llm(provider, emu, client=sdk_client)
    try:
        await attempt(llm, stream=False)
    finally:
        await _close(sdk_client)
    assert emu.attempts(provider) == 1


async def _close(sdk_client: object) -> None:
    aio = getattr(sdk_client, "aio", None)
    await (aio.aclose() if aio is not None else sdk_client.close())  # type: ignore[attr-defined]


def _sdk_client_with_retries(provider: str, emu: object) -> object:
    from tests.models.providers import SECRET, base_url

    if provider.startswith("openai"):
        import openai

        return openai.AsyncOpenAI(api_key=SECRET, base_url=base_url(provider, emu), max_retries=5)
    if provider == "anthropic":
        import anthropic

        return anthropic.AsyncAnthropic(
            api_key=SECRET, base_url=base_url(provider, emu), max_retries=5
        )
    from google import genai
    from google.genai import types as gt

    retries = gt.HttpRetryOptions(attempts=5, initial_delay=0.01, max_delay=0.01)
    options = gt.HttpOptions(base_url=base_url(provider, emu), retry_options=retries)
    return genai.Client(api_key=SECRET, http_options=options)
