"""OpenAI models on Azure OpenAI: Runner -> AzureOpenAI -> openai's Azure client -> emulator.

The emulator serves Azure's URL shape
(``/openai/deployments/{deployment}/chat/completions?api-version=``) as its
own endpoint (``azure``), so each test sees where the SDK sent the request,
with which credentials, and how many requests arrived.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

import httpx
import openai
import pytest

from steadyflow import StreamingMode
from steadyflow.errors import ConfigurationError, ModelHTTPError
from steadyflow.models import LlmRegistry, LlmRequest
from steadyflow.models._headers import headers_reported_to
from steadyflow.models._rate_limits import Limit, read_rate_limits
from steadyflow.models.azure import DEFAULT_API_VERSION, AzureOpenAI
from steadyflow.testing import FakeClock
from steadyflow.testing.emulator import Fault, ProviderEmulator
from steadyflow.types import Content
from tests.models.clouds import MODES, bare_turn, order_turn
from tests.models.providers import SECRET
from tests.support.hostile import HostileServer, Reply

module_loop = pytest.mark.asyncio(loop_scope="module")
DEPLOYMENT = "support-gpt4o"


@module_loop
@MODES
async def test_a_turn_calls_the_deployment_at_its_azure_address(
    emu: ProviderEmulator, mode: StreamingMode
) -> None:
    llm = AzureOpenAI(f"azure/{DEPLOYMENT}", endpoint=emu.base_url, api_key=SECRET)
    result = await order_turn(llm, mode)
    assert result.error is None
    assert "shipped" in result.complete_events[-1].text
    assert emu.attempts("azure") == 2 and emu.attempts("openai") == 0
    first = emu.requests[0]
    assert first.path == f"/openai/deployments/{DEPLOYMENT}/chat/completions"
    assert first.query["api-version"] == [DEFAULT_API_VERSION]
    assert first.headers["api-key"] == SECRET and "authorization" not in first.headers
    assert first.body["model"] == DEPLOYMENT and first.stream is (mode is StreamingMode.SSE)


@module_loop
async def test_endpoint_key_and_api_version_come_from_the_environment(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in emu.env().items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("OPENAI_API_VERSION", "2025-04-01-preview")
    result = await order_turn(AzureOpenAI(DEPLOYMENT))
    assert result.error is None
    assert emu.requests[0].query["api-version"] == ["2025-04-01-preview"]
    assert emu.requests[0].headers["api-key"] == emu.env()["AZURE_OPENAI_API_KEY"]


@module_loop
async def test_an_entra_token_provider_is_sent_as_a_bearer_token(emu: ProviderEmulator) -> None:
    tokens = iter(["entra-token-1", "entra-token-2"])
    llm = AzureOpenAI(DEPLOYMENT, endpoint=emu.base_url, token_provider=lambda: next(tokens))
    result = await order_turn(llm)
    assert result.error is None
    seen = [r.headers["authorization"] for r in emu.requests]
    assert seen == ["Bearer entra-token-1", "Bearer entra-token-2"]
    assert all("api-key" not in r.headers for r in emu.requests)


@module_loop
async def test_azure_429_waits_its_retry_after_ms_and_is_counted(
    emu: ProviderEmulator, clock: FakeClock
) -> None:
    azure_body = {
        "error": {
            "code": "429",
            "message": "Requests to the ChatCompletions_Create "
            "Operation have exceeded the token rate limit of your deployment.",
        }
    }
    emu.add_fault(Fault.http(429, retry_after_ms=1800, retry_after=2, body=azure_body, on=1))
    result = await order_turn(AzureOpenAI(DEPLOYMENT, endpoint=emu.base_url, api_key=SECRET))
    assert result.error is None
    assert emu.attempts("azure") == 3  # the throttled attempt, its retry, the second call
    assert clock.sleeps == [1.8]  # retry-after-ms wins over the coarser retry-after


@module_loop
async def test_the_sdk_never_retries_on_its_own(emu: ProviderEmulator) -> None:
    emu.add_fault(Fault.http(503))
    result = await bare_turn(AzureOpenAI(DEPLOYMENT, endpoint=emu.base_url, api_key=SECRET))
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 503
    assert result.error.provider == "azure"
    assert emu.attempts("azure") == 1


def test_a_missing_endpoint_is_named() -> None:
    llm = AzureOpenAI(DEPLOYMENT, api_key=SECRET)
    with pytest.raises(ConfigurationError, match="AZURE_OPENAI_ENDPOINT"):
        llm.check_configuration()


def test_a_missing_key_is_named_unless_a_token_provider_is_given() -> None:
    with pytest.raises(ConfigurationError, match="AZURE_OPENAI_API_KEY"):
        AzureOpenAI(DEPLOYMENT, endpoint="https://r.openai.azure.com").check_configuration()
    with_token = AzureOpenAI(
        DEPLOYMENT, endpoint="https://r.openai.azure.com", token_provider=lambda: "t"
    )
    with_token.check_configuration()


def test_azure_names_resolve_to_the_deployment() -> None:
    llm = LlmRegistry.resolve(f"azure/{DEPLOYMENT}")
    assert (type(llm), llm.model, llm.provider) == (AzureOpenAI, DEPLOYMENT, "azure")


AZURE_LIMITS = {
    "x-ratelimit-limit-requests": "120",
    "x-ratelimit-remaining-requests": "119",
    "x-ratelimit-limit-tokens": "120000",
    "x-ratelimit-remaining-tokens": "119500",
}


@pytest.mark.asyncio
async def test_azure_rate_limit_headers_reach_the_retry_loop(hostile: HostileServer) -> None:
    completion = {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1,
        "model": "gpt-4o",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "hi"}, "finish_reason": "stop"}
        ],
        "usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
    }
    hostile.script(Reply(headers=AZURE_LIMITS, body=[json.dumps(completion).encode()]))
    llm = AzureOpenAI(DEPLOYMENT, endpoint=hostile.url, api_key=SECRET)
    reports: list[Mapping[str, str]] = []
    with headers_reported_to(reports.append):
        async for _ in llm.generate_content_async(LlmRequest(contents=[Content.from_text("hi")])):
            pass
    await llm.aclose()
    assert hostile.requests[0].path.startswith(f"/openai/deployments/{DEPLOYMENT}/chat/completions")
    assert read_rate_limits(reports[-1]) == {
        "requests": Limit(120.0, 119.0, None),
        "tokens": Limit(120000.0, 119500.0, None),
    }


@module_loop
async def test_a_client_you_pass_is_used_with_its_retries_off(emu: ProviderEmulator) -> None:
    emu.add_fault(Fault.http(503))
    own = openai.AsyncAzureOpenAI(
        azure_endpoint=emu.base_url, api_key=SECRET, api_version="2024-10-21", max_retries=5
    )
    llm = AzureOpenAI(DEPLOYMENT, client=own)
    llm.check_configuration()  # the client's endpoint and key are enough
    result = await bare_turn(llm)
    await own.close()
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 503
    assert emu.attempts("azure") == 1


@module_loop
async def test_the_emulator_refuses_an_azure_request_without_api_version(
    emu: ProviderEmulator,
) -> None:
    body = {"model": DEPLOYMENT, "messages": [{"role": "user", "content": "hi"}]}
    async with httpx.AsyncClient(base_url=emu.base_url) as http:
        answer = await http.post(f"/openai/deployments/{DEPLOYMENT}/chat/completions", json=body)
    assert answer.status_code == 400
    assert "api-version" in answer.json()["error"]["message"]
