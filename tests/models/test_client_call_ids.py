"""Client-made call ids (``sf-...``) never reach a model; pairing by id still holds.

A model call without an id gets one on the client so the session can pair
its response; as ADK strips its own, the request leaves them out, and the
adapters whose APIs pair by id (Anthropic, OpenAI) give the calls ids of
their own, in order. The emulator checks pairing as strictly as each API.
"""

from __future__ import annotations

from typing import Any

import pytest

from steadyflow import LlmAgent, Runner
from steadyflow.testing import ScriptedLlm, call, run_turn
from steadyflow.testing.emulator import ProviderEmulator
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

pytestmark = pytest.mark.asyncio(loop_scope="module")


def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its number."""
    return {"order_id": order_id, "status": "shipped"}


def agent_on(model: Any, include_contents: str = "default") -> LlmAgent:
    return LlmAgent(
        name="support", model=model, tools=[lookup_order], include_contents=include_contents
    )


@pytest.mark.parametrize("include_contents", ["default", "none"])
async def test_the_model_never_sees_client_ids_and_keeps_provider_ids(
    include_contents: str,
) -> None:
    model = ScriptedLlm(
        [
            [call("lookup_order", {"order_id": "1"}), call("lookup_order", {"order_id": "2"})],
            call("lookup_order", {"order_id": "3"}, id="toolu_issued"),
            "both shipped",
        ]
    )
    result = await run_turn(agent_on(model, include_contents), "where are 1, 2 and 3?")

    assert result.error is None
    stored = (await result.stored_session()).events
    stored_ids = [c.id for e in stored for c in e.get_function_calls()]
    assert [i[:3] for i in stored_ids] == ["sf-", "sf-", "too"]  # the session keeps them
    last = model.requests[-1].contents
    sent = [
        (p.function_call or p.function_response).id  # type: ignore[union-attr]
        for c in last
        for p in c.parts
        if p.function_call or p.function_response
    ]
    assert sent == [None, None, None, None, "toolu_issued", "toolu_issued"]


def _sent_call_ids(provider: str, body: dict[str, Any]) -> list[tuple[str, str | None]]:
    """(kind, id) of every call and result in a request body, in order."""
    found: list[tuple[str, str | None]] = []
    if provider == "anthropic":
        for message in body["messages"]:
            for block in message["content"] if isinstance(message["content"], list) else []:
                if block["type"] == "tool_use":
                    found.append(("call", block["id"]))
                elif block["type"] == "tool_result":
                    found.append(("result", block["tool_use_id"]))
    elif provider == "openai":
        for message in body["messages"]:
            for tool_call in message.get("tool_calls") or []:
                found.append(("call", tool_call["id"]))
            if message["role"] == "tool":
                found.append(("result", message["tool_call_id"]))
    elif provider == "openai-responses":
        for item in body["input"]:
            if item.get("type") == "function_call":
                found.append(("call", item["call_id"]))
            elif item.get("type") == "function_call_output":
                found.append(("result", item["call_id"]))
    else:
        for content in body["contents"]:
            for part in content["parts"]:
                if "functionCall" in part:
                    found.append(("call", part["functionCall"].get("id")))
                elif "functionResponse" in part:
                    found.append(("result", part["functionResponse"].get("id")))
    return found


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_calls_paired_by_client_ids_reach_each_provider_paired_without_them(
    provider: str, emulate: Emulate, make_llm: MakeLlm
) -> None:
    # First turn: a model that issues no ids (two parallel calls of one tool).
    scripted = ScriptedLlm(
        [
            [call("lookup_order", {"order_id": "1"}), call("lookup_order", {"order_id": "2"})],
            "both shipped",
        ]
    )
    first = await run_turn(agent_on(scripted), "where are 1 and 2?")
    assert first.error is None
    # Second turn on the same session: a real adapter against the strict emulator.
    emu: ProviderEmulator = await emulate(["anything else?"])
    runner = Runner(
        app_name=first.runner.app_name,
        agent=agent_on(make_llm(provider, emu)),
        session_service=first.runner.session_service,
    )
    second = await run_turn(runner.agent, "thanks", runner=runner, session_id=first.session_id)

    assert second.error is None, second.error
    assert second.final_text == "anything else?"
    sent = _sent_call_ids(provider, emu.requests[-1].body)
    assert [kind for kind, _ in sent] == ["call", "call", "result", "result"]
    ids = [i for _, i in sent]
    assert not any(i and i.startswith("sf-") for i in ids)
    if provider == "gemini":
        assert ids == [None, None, None, None]  # Gemini pairs by name and order
    else:
        assert ids[0] != ids[1] and ids[2:] == ids[:2]  # each result names its own call
