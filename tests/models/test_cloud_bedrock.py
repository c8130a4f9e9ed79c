"""Claude on Amazon Bedrock: Runner -> AnthropicBedrock -> anthropic's Bedrock client -> emulator.

The emulator serves Bedrock's runtime address (``/model/{model}/invoke``,
``/invoke-with-response-stream`` in AWS's binary event stream) as its own
endpoint (``bedrock``); the SDK signs every request with fake AWS keys
(Signature Version 4, through botocore), or sends a Bedrock API key.
"""

from __future__ import annotations

import json

import pytest

from steadyflow import StreamingMode
from steadyflow.errors import ConfigurationError, ModelHTTPError
from steadyflow.models import LlmRegistry, LlmRequest
from steadyflow.models.bedrock import AnthropicBedrock
from steadyflow.retry._config import DEFAULT_RETRYABLE_STATUS_CODES
from steadyflow.testing import FakeClock
from steadyflow.testing.emulator import Fault, ProviderEmulator
from steadyflow.testing.emulator._eventstream import event_message
from steadyflow.types import Content
from tests.models.clouds import MODES, bare_turn, order_turn
from tests.support.hostile import HostileServer, Reply

module_loop = pytest.mark.asyncio(loop_scope="module")
MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
SECRET_KEY = "fake/Secret+Key-DO-NOT-LEAK-9876"


def claude(emu: ProviderEmulator) -> AnthropicBedrock:
    return AnthropicBedrock(
        f"bedrock/{MODEL}",
        region="eu-central-1",
        access_key="AKIDFAKEEXAMPLE",
        secret_key=SECRET_KEY,
        base_url=emu.base_url,
    )


@module_loop
@MODES
async def test_a_turn_invokes_the_model_signed_for_its_region(
    emu: ProviderEmulator, mode: StreamingMode
) -> None:
    result = await order_turn(claude(emu), mode)
    assert result.error is None
    assert "shipped" in result.complete_events[-1].text
    assert emu.attempts("bedrock") == 2 and emu.attempts("anthropic") == 0
    method = "invoke-with-response-stream" if mode is StreamingMode.SSE else "invoke"
    first = emu.requests[0]
    assert first.path == f"/model/{MODEL}/{method}"
    signature = first.headers["authorization"]
    assert signature.startswith("AWS4-HMAC-SHA256 Credential=AKIDFAKEEXAMPLE/")
    assert "/eu-central-1/bedrock/aws4_request" in signature
    assert "model" not in first.body and "stream" not in first.body
    usage = result.complete_events[0].usage_metadata
    assert usage is not None and usage.input_tokens > 0


@module_loop
async def test_a_bedrock_api_key_is_sent_as_a_bearer_token(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AWS_REGION", "us-west-2")
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-1")
    monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", emu.env()["ANTHROPIC_BEDROCK_BASE_URL"])
    result = await order_turn(AnthropicBedrock(MODEL))
    assert result.error is None
    assert emu.requests[0].headers["authorization"] == "Bearer bedrock-api-key-1"


@module_loop
async def test_a_throttling_exception_is_retried_as_429(
    emu: ProviderEmulator, clock: FakeClock
) -> None:
    emu.add_fault(Fault.http(429, message="Too many requests, please wait.", on=1))
    result = await order_turn(claude(emu))
    assert result.error is None
    assert emu.attempts("bedrock") == 3
    assert clock.sleeps == [0.5]


@module_loop
async def test_a_bedrock_error_names_its_exception_and_the_sdk_never_retries(
    emu: ProviderEmulator,
) -> None:
    emu.add_fault(Fault.http(503, message="Bedrock is unable to process your request."))
    result = await bare_turn(claude(emu))
    error = result.error
    assert isinstance(error, ModelHTTPError) and error.status_code == 503
    assert error.provider == "bedrock"
    assert error.headers["x-amzn-errortype"] == "ServiceUnavailableException"
    assert "unable to process" in str(error) and SECRET_KEY not in str(error)
    assert emu.attempts("bedrock") == 1


def test_a_missing_region_is_named() -> None:
    with pytest.raises(ConfigurationError, match="AWS_REGION"):
        AnthropicBedrock(MODEL).check_configuration()


@pytest.mark.parametrize(
    "name", [f"bedrock/{MODEL}", "bedrock/anthropic.claude-3-5-haiku-20241022-v1:0"]
)
def test_bedrock_claude_names_resolve_to_the_bedrock_adapter(name: str) -> None:
    llm = LlmRegistry.resolve(name)
    assert (type(llm), llm.model, llm.provider) == (
        AnthropicBedrock,
        name.removeprefix("bedrock/"),
        "bedrock",
    )


@pytest.mark.asyncio
async def test_a_throttling_frame_inside_the_stream_is_a_retryable_429(
    hostile: HostileServer,
) -> None:
    frame = event_message(
        {
            ":message-type": "exception",
            ":exception-type": "throttlingException",
            ":content-type": "application/json",
        },
        json.dumps({"message": "Too many tokens, please wait."}).encode(),
    )
    stream = {"content-type": "application/vnd.amazon.eventstream"}
    hostile.script(Reply(headers=stream, body=[frame]))
    llm = AnthropicBedrock(
        MODEL, region="us-east-1", api_key="bedrock-key-1234", base_url=hostile.url
    )
    request = LlmRequest(contents=[Content.from_text("hi")])
    with pytest.raises(ModelHTTPError) as caught:
        async for _ in llm.generate_content_async(request, stream=True):
            pass
    await llm.aclose()
    assert caught.value.status_code == 429
    assert "Too many tokens" in str(caught.value)
    assert llm.is_exception_retryable(caught.value, DEFAULT_RETRYABLE_STATUS_CODES)
