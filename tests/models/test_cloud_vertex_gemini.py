"""Gemini on Vertex AI: Runner -> VertexGemini -> google-genai (vertexai=True) -> emulator.

The emulator serves Vertex AI's URL shape
(``/v1beta1/projects/{project}/locations/{location}/publishers/google/models/{model}:...``)
as its own endpoint (``vertex``); the SDK signs requests with the fake
OAuth token of ``google.oauth2.credentials.Credentials``.
"""

from __future__ import annotations

import google.genai as genai
import pytest
from google.genai import types as genai_types
from google.oauth2.credentials import Credentials

from steadyflow import StreamingMode
from steadyflow.errors import ConfigurationError, ModelHTTPError
from steadyflow.models import LlmRegistry
from steadyflow.models.vertex import VertexGemini
from steadyflow.testing import FakeClock
from steadyflow.testing.emulator import Fault, ProviderEmulator
from tests.models.clouds import MODES, bare_turn, order_turn

module_loop = pytest.mark.asyncio(loop_scope="module")
MODEL = "gemini-2.5-flash"
TOKEN = "ya29.fake-vertex-token"


def vertex(emu: ProviderEmulator) -> VertexGemini:
    return VertexGemini(
        f"vertex/{MODEL}",
        project="acme-agents",
        location="europe-west4",
        base_url=emu.base_url,
        credentials=Credentials(token=TOKEN),
    )


@module_loop
@MODES
async def test_a_turn_calls_the_model_in_its_project_and_location(
    emu: ProviderEmulator, mode: StreamingMode
) -> None:
    result = await order_turn(vertex(emu), mode)
    assert result.error is None
    assert "shipped" in result.complete_events[-1].text
    assert emu.attempts("vertex") == 2 and emu.attempts("gemini") == 0
    method = "streamGenerateContent" if mode is StreamingMode.SSE else "generateContent"
    assert emu.requests[0].path == (
        f"/v1beta1/projects/acme-agents/locations/europe-west4/publishers/google/models/"
        f"{MODEL}:{method}"
    )
    assert emu.requests[0].headers["authorization"] == f"Bearer {TOKEN}"
    assert "x-goog-api-key" not in emu.requests[0].headers
    assert result.complete_events[0].usage_metadata is not None


@module_loop
async def test_project_and_location_come_from_the_environment(
    emu: ProviderEmulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GOOGLE_CLOUD_PROJECT", "env-project")
    monkeypatch.setenv("GOOGLE_CLOUD_LOCATION", "us-east5")
    monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", emu.base_url)
    monkeypatch.setenv("GOOGLE_API_KEY", "a-gemini-api-key-not-for-vertex")
    result = await order_turn(VertexGemini(MODEL, credentials=Credentials(token=TOKEN)))
    assert result.error is None
    assert emu.requests[0].path.startswith("/v1beta1/projects/env-project/locations/us-east5/")
    assert "x-goog-api-key" not in emu.requests[0].headers


@module_loop
async def test_resource_exhausted_waits_its_retry_info_delay(
    emu: ProviderEmulator, clock: FakeClock
) -> None:
    emu.add_fault(Fault.http(429, retry_delay="3s", message="Resource exhausted.", on=1))
    result = await order_turn(vertex(emu))
    assert result.error is None
    assert emu.attempts("vertex") == 3
    assert clock.sleeps == [3.0]


@module_loop
async def test_the_sdk_never_retries_on_its_own(emu: ProviderEmulator) -> None:
    emu.add_fault(Fault.http(503))
    result = await bare_turn(vertex(emu))
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 503
    assert result.error.provider == "vertex"
    assert emu.attempts("vertex") == 1


def test_a_missing_project_is_named() -> None:
    with pytest.raises(ConfigurationError, match="GOOGLE_CLOUD_PROJECT"):
        VertexGemini(MODEL).check_configuration()


def test_vertex_gemini_names_resolve_to_the_vertex_adapter() -> None:
    llm = LlmRegistry.resolve(f"vertex/{MODEL}")
    assert (type(llm), llm.model, llm.provider) == (VertexGemini, MODEL, "vertex")


@module_loop
async def test_a_client_you_pass_is_used_with_one_attempt_per_request(
    emu: ProviderEmulator,
) -> None:
    emu.add_fault(Fault.http(503))
    own = genai.Client(
        vertexai=True,
        project="own-project",
        location="us-central1",
        credentials=Credentials(token=TOKEN),
        http_options=genai_types.HttpOptions(base_url=emu.base_url),
    )
    llm = VertexGemini(MODEL, client=own)
    llm.check_configuration()  # the client's project is enough
    result = await bare_turn(llm)
    await own.aio.aclose()
    assert isinstance(result.error, ModelHTTPError) and result.error.status_code == 503
    assert emu.attempts("vertex") == 1
    assert emu.requests[0].path.startswith("/v1beta1/projects/own-project/locations/us-central1/")
