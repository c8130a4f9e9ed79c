"""What the cloud adapter tests share: the order-support agent and one turn through it."""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.models.anthropic_vertex import AnthropicVertex
from steadyflow.models.azure import AzureOpenAI
from steadyflow.models.bedrock import AnthropicBedrock
from steadyflow.models.vertex import VertexGemini
from steadyflow.testing.harness import TurnResult, run_turn

CloudLlm = AzureOpenAI | VertexGemini | AnthropicVertex | AnthropicBedrock

RETRIES = RetryConfig(max_attempts=3, initial_backoff=0.5, jitter_ratio=0.0)
MODES = pytest.mark.parametrize(
    "mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"]
)


def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its number."""
    return {"order_id": order_id, "status": "shipped", "eta": "Friday"}


async def order_turn(llm: CloudLlm, mode: StreamingMode = StreamingMode.NONE) -> TurnResult:
    """The two-call order-support turn, retries on; the adapter is closed after it."""
    agent = LlmAgent(name="support", model=llm, tools=[lookup_order], instruction="Help.")
    config = RunConfig(streaming_mode=mode, retry_config=RETRIES, max_llm_calls=10)
    try:
        return await run_turn(agent, "Where is order 812?", run_config=config)
    finally:
        await llm.aclose()


async def bare_turn(llm: CloudLlm) -> TurnResult:
    """One turn with retries off (the default); the adapter is closed after it."""
    try:
        return await run_turn(LlmAgent(name="support", model=llm), "hi")
    finally:
        await llm.aclose()
