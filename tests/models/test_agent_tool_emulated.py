"""``AgentTool`` on real adapters: coordinator and specialist, SDK to the strict emulator.

The emulator refuses what each provider's API refuses (a tool result
without its call, a malformed schema), so these turns prove the requests
both agents send are ones the providers accept, in plain and SSE modes.
"""

from __future__ import annotations

import pytest

from steadyflow import AgentTool, LlmAgent, RunConfig, StreamingMode
from steadyflow.testing.emulator import ToolCall
from steadyflow.testing.harness import run_turn
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest.mark.parametrize("mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_a_coordinator_asks_a_specialist_through_the_provider(
    provider: str, mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(
        [
            ToolCall("researcher", {"request": "When does order 812 arrive?"}),
            "Order 812 arrives on Friday.",
            "Your order arrives on Friday.",
        ]
    )
    llm = make_llm(provider, emu)
    specialist = LlmAgent(
        name="researcher", model=llm, description="Finds order facts.", instruction="Be exact."
    )
    coordinator = LlmAgent(
        name="coordinator", model=llm, instruction="Help.", tools=[AgentTool(specialist)]
    )
    config = RunConfig(streaming_mode=mode, max_llm_calls=3)

    result = await run_turn(coordinator, "Where is my order?", run_config=config)

    assert result.error is None
    first, specialist_request, last = emu.requests
    (declared,) = first.tools
    assert (declared.name, declared.parameters["required"]) == ("researcher", ["request"])
    assert specialist_request.system.startswith("Be exact.")
    assert [(t.role, t.text) for t in specialist_request.turns] == [
        ("user", "When does order 812 arrive?")
    ]
    (seen,) = last.turns[-1].results
    assert seen.response == {"result": "Order 812 arrives on Friday."}
    final = [e for e in result.events if not e.partial][-1]
    assert final.text == "Your order arrives on Friday."
