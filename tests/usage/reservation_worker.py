"""One process of the fleet reservation tests, and the model they share with the in-process ones.

Run as ``python tests/usage/reservation_worker.py KIND URL PREFIX WORKER MAX_OUT CAP MODE``:
it builds a runner on the shared spend store (``KIND`` ``sqlite``/``postgres``:
the session database at ``URL``; ``redis``: a ``RedisSpendStore`` at ``URL``
under ``PREFIX``), prints ``ready``, waits for a line on stdin, then runs
two invocations at once under an app-wide ``SpendLimit(max_cost=CAP)`` and
prints each outcome (``answered`` or the refusing limit) as a JSON list.
``MAX_OUT`` 0 leaves the request's ``max_output_tokens`` unset (the model's
ceiling is reserved). ``MODE`` ``hang``: one invocation whose model never
answers, after printing ``holding`` (the test kills the process there).
"""

from __future__ import annotations

import asyncio
import json
import sys
from decimal import Decimal

from steadyflow import LlmAgent, RunConfig, Runner
from steadyflow.errors import UsageLimitExceededError
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.sessions import InMemorySessionService
from steadyflow.sessions.sql import SqlSessionService
from steadyflow.testing import FunctionLlm
from steadyflow.types import Content, GenerateContentConfig, UsageMetadata
from steadyflow.usage import ModelPrice, SpendLimit
from steadyflow.usage._estimate import estimate_request
from steadyflow.usage.redis import RedisSpendStore

CEILING = 600
PRICES = {
    "function-model": ModelPrice(
        input=Decimal("1"), output=Decimal("4"), max_output_tokens=CEILING
    ),
    "scripted-model": ModelPrice(input=Decimal("1"), output=Decimal("4")),
}


def longest_answer(request: LlmRequest) -> LlmResponse:
    """An answer as long as the model allows, whose input is exactly the estimate."""
    out = request.config.max_output_tokens or CEILING
    inp = estimate_request(request).input_tokens
    return LlmResponse(
        content=Content.from_text("x" * 4 * out, role="model"),
        finish_reason="STOP",
        usage_metadata=UsageMetadata(input_tokens=inp, output_tokens=out, total_tokens=inp + out),
    )


def cost_of(inp: int, out: int) -> Decimal:
    """What ``inp`` input and ``out`` output tokens cost at the shared price."""
    usage = UsageMetadata(input_tokens=inp, output_tokens=out, total_tokens=inp + out)
    return PRICES["function-model"].cost(usage)


def worst_case_cost(request: LlmRequest) -> Decimal:
    """What an attempt of ``request`` reserves, and (answering at length) is charged."""
    out = request.config.max_output_tokens or CEILING
    return cost_of(estimate_request(request).input_tokens, out)


async def _never(request: LlmRequest) -> LlmResponse:
    print("holding", flush=True)
    await asyncio.Event().wait()
    raise AssertionError("unreachable")


async def main(kind: str, url: str, prefix: str, worker: str, max_out: int, cap: str, mode: str):
    store = None
    if kind == "redis":
        service, store = InMemorySessionService(), RedisSpendStore(url=url, prefix=prefix)
    else:
        service = SqlSessionService(url)
    model = FunctionLlm(_never if mode == "hang" else longest_answer)
    config = GenerateContentConfig(max_output_tokens=max_out or None)
    agent = LlmAgent(name="a", model=model, generate_content_config=config)
    runner = Runner(app_name="app", agent=agent, session_service=service, spend_store=store)
    limit = SpendLimit(scope="app", max_cost=Decimal(cap))
    run_config = RunConfig(spend_limits=[limit], prices=PRICES)

    async def invocation(user: str) -> str:
        session = await runner.create_session(user_id=user)
        try:
            async for _ in runner.run_async(
                user_id=user, session_id=session.id, new_message="hi", run_config=run_config
            ):
                pass
        except UsageLimitExceededError as error:
            return error.limit
        return "answered"

    print("ready", flush=True)
    await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    users = [f"w{worker}-{n}" for n in range(1 if mode == "hang" else 2)]
    outcomes = await asyncio.gather(*(invocation(user) for user in users))
    print(json.dumps(outcomes), flush=True)
    await runner.close()
    if store is not None:
        await store.aclose()


if __name__ == "__main__":
    kind, url, prefix, worker, max_out, cap, mode = sys.argv[1:8]
    asyncio.run(main(kind, url, prefix, worker, int(max_out), cap, mode))
