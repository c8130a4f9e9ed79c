"""Claude on Vertex AI: Runner -> AnthropicVertex -> anthropic's Vertex client -> emulator.

The emulator serves Vertex AI's Claude address
(``/v1/projects/{project}/locations/{region}/publishers/anthropic/models/{model}:rawPredict``)
as its own endpoint (``vertex-anthropic``) and refuses a body that still
names the model or lacks Vertex's ``anthropic_version``.
"""

from __future__ import annotations

import pytest

from steadyflow import StreamingMode
from steadyflow.errors import ConfigurationError, ModelHTTPError
from steadyflow.models import LlmRegistry
from steadyflow.models.anthropic_vertex import AnthropicVertex
from steadyflow.testing import FakeClock
from steadyflow.testing.emulator import Fault, ProviderEmulator
from tests.models.clouds import MODES, bare_turn, order_turn

module_loop = pytest.mark.asyncio(loop_scope="module")
MODEL = "claude-sonnet-4-5@20250929"
TOKEN = "ya29.fake-vertex-token"


def claude(emu: ProviderEmulator) -> AnthropicVertex:
    return AnthropicVertex(
        f"vertex/{MODEL}",
        project="acme-agents",
        region="us-east5",
        access_token=TOKEN,
        base_url=f"{emu.base_url}/v1",
    )


@module_loop
@MODES
async def test_a_turn_calls_claude_in_its_project_and_region(
    emu: ProviderEmulator, mode: StreamingMode
) -> None:
    result = await order_turn(claude(emu), mode)
    assert result.error is None
    assert "shipped" in result.complete_events[-1].text
    assert emu.attempts("vertex-anthropic") == 2 and emu.attempts("anthropic") == 0
    method = "streamRawPredict" if mode is StreamingMode.SSE else "rawPredict"
    first = emu.requests[0]
    assert first.path == (
        f"/v1/projects/acme-agents/locations/us-east5/publishers/anthropic/models/{MODEL}:{method}"
    )
    assert first.headers["authorization"] == f"Bearer {TOKEN}"
    assert first.body["anthropic_version"] and "model" not in first.body
    usage = result.complete_events[0].usage_metadata
    assert usage is not None and usage.input_tokens > 0


@module_loop
async def test_project_region_and_address_come_from_the_environment(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_VERTEX_PROJECT_ID", "env-project")
    monkeypatch.setenv("CLOUD_ML_REGION", "europe-west1")
    monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", emu.env()["ANTHROPIC_VERTEX_BASE_URL"])
    result = await order_turn(AnthropicVertex(MODEL, access_token=TOKEN))
    assert result.error is None
    assert emu.requests[0].path.startswith("/v1/projects/env-project/locations/europe-west1/")


@module_loop
async def test_vertex_quota_error_is_retried_as_429(
    emu: ProviderEmulator, clock: FakeClock
) -> None:
    emu.add_fault(Fault.http(429, message="Quota exceeded for online_prediction_requests", on=1))
    result = await order_turn(claude(emu))
    assert result.error is None
    assert emu.attempts("vertex-anthropic") == 3
    assert clock.sleeps == [0.5]


@module_loop
async def test_an_overloaded_claude_on_vertex_is_a_529_and_the_sdk_never_retries(
    emu: ProviderEmulator,
) -> None:
    emu.add_fault(Fault.http(529))
    result = await bare_turn(claude(emu))
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 529
    assert result.error.provider == "vertex-anthropic"
    assert emu.attempts("vertex-anthropic") == 1


def test_a_missing_region_is_named() -> None:
    with pytest.raises(ConfigurationError, match="CLOUD_ML_REGION"):
        AnthropicVertex(MODEL, project="p").check_configuration()


def test_vertex_claude_names_resolve_to_the_vertex_adapter() -> None:
    llm = LlmRegistry.resolve(f"vertex/{MODEL}")
    assert (type(llm), llm.model, llm.provider) == (AnthropicVertex, MODEL, "vertex-anthropic")
