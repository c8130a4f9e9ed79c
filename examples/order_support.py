"""The order-support agent: one tool, a before-model cache, an after-model audit.

Run it with ``python examples/order_support.py``: it answers "Where is
order 812?" with a scripted model, printing each event. Pass ``--model
NAME`` (e.g. ``gpt-4o-mini``) to use a real provider instead.

It also defines ``root_agent`` (on ``gpt-4o-mini``) for the command line::

    steadyflow run examples/order_support.py "Where is order 812?" --model openai/gpt-4o-mini
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
from typing import Any

from steadyflow import (
    CallbackContext,
    InMemoryRunner,
    LlmAgent,
    RetryConfig,
    RunConfig,
)
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.testing import ScriptedLlm, call

ORDERS: dict[str, dict[str, Any]] = {
    "812": {"status": "shipped", "carrier": "DHL", "eta": "2026-12-03"},
    "977": {"status": "processing", "carrier": None, "eta": "2026-12-08"},
}


def lookup_order(order_id: str) -> dict[str, Any]:
    """Look up an order's status by its id.

    Args:
        order_id: the order number, digits only, e.g. "812".
    """
    order = ORDERS.get(order_id)
    if order is None:
        return {"error": f"no order {order_id!r}"}
    return {"order_id": order_id, **order}


response_cache: dict[str, str] = {}
audit_log: list[tuple[str, int, int]] = []


def cache_key(request: LlmRequest) -> str:
    """A key over the whole request, tool results included (safe mid-turn)."""
    return hashlib.sha256(request.model_dump_json().encode()).hexdigest()


def answer_from_cache(
    callback_context: CallbackContext, llm_request: LlmRequest
) -> LlmResponse | None:
    """Before-model: answer a request seen before without calling the model."""
    cached = response_cache.get(cache_key(llm_request))
    return None if cached is None else LlmResponse.from_text(cached)


def audit_usage(callback_context: CallbackContext, llm_response: LlmResponse) -> None:
    """After-model: record token usage per call; keep the response as it is."""
    usage = llm_response.usage_metadata
    if usage is not None:
        audit_log.append((callback_context.invocation_id, usage.input_tokens, usage.output_tokens))


def build_agent(model: str | BaseLlm) -> LlmAgent:
    """The order_support agent on ``model``."""
    return LlmAgent(
        name="order_support",
        model=model,
        instruction="Answer questions about the customer's orders. Use lookup_order.",
        description="Answers questions about orders.",
        tools=[lookup_order],
        before_model_callback=answer_from_cache,
        after_model_callback=audit_usage,
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )


root_agent = build_agent("gpt-4o-mini")
"""What ``steadyflow run examples/order_support.py`` loads (``--model`` replaces the model)."""


def scripted_model() -> ScriptedLlm:
    """The two-call turn: a lookup_order call, then the answer."""
    return ScriptedLlm(
        [
            call("lookup_order", {"order_id": "812"}),
            "Order 812 has shipped with DHL and should arrive on 2026-12-03.",
        ]
    )


async def main(model: str | BaseLlm, question: str) -> None:
    """Run one turn and print its events."""
    runner = InMemoryRunner(build_agent(model), app_name="order_support")
    session = await runner.create_session(user_id="demo-user")
    config = RunConfig(max_llm_calls=15, retry_config=RetryConfig(max_attempts=3))
    print(f"user: {question}")
    async for event in runner.run_async(
        user_id="demo-user", session_id=session.id, new_message=question, run_config=config
    ):
        for fc in event.get_function_calls():
            print(f"[{event.author}] calls {fc.name}({fc.args})")
        for fr in event.get_function_responses():
            print(f"[{event.author}] {fr.name} returned {fr.response}")
        if event.text:
            print(f"[{event.author}] {event.text}")
    for invocation, inp, out in audit_log:
        print(f"usage {invocation}: {inp} input tokens, {out} output tokens")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--model", help="a model name (default: a scripted model)")
    parser.add_argument("question", nargs="?", default="Where is order 812?")
    args = parser.parse_args()
    asyncio.run(main(args.model or scripted_model(), args.question))
