"""A turn driven by the instruction alone (an empty message): every provider takes the request.

The Gemini SDK refuses empty contents, Anthropic a request without
messages; like ADK, each adapter then sends one user turn asking the model
to follow the system instruction.
"""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent
from steadyflow.testing.harness import run_turn
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

pytestmark = [
    pytest.mark.asyncio(loop_scope="module"),
    pytest.mark.parametrize("provider", PROVIDERS),
]
PROMPT = "Handle the requests as specified in the System Instruction."


async def test_an_empty_message_sends_one_user_turn_asking_to_follow_the_instruction(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate(["Here is today's summary."])
    agent = LlmAgent(name="a", model=make_llm(provider, emu), instruction="Summarize today.")

    result = await run_turn(agent, "")

    assert result.error is None, result.error
    assert result.events[-1].text == "Here is today's summary."
    (seen,) = emu.requests
    assert seen.system.startswith("Summarize today.")
    assert [(t.role, t.text) for t in seen.turns] == [("user", PROMPT)]
