"""Turn time with a history cap: a session of 3,200 prior events vs an empty one.

A turn rebuilds the request from the session. Without a cap, the request (and
the provider adapter's work converting it) grows with the session; with a
``HistoryPolicy`` cap the contents processor sends a bounded window and does
work proportional to that window, so a turn at 3,200 prior events should
cost what a turn at 0 costs, within noise.

For each policy the script times ``--turns`` turns on a fresh session (0
prior events) and on a session pre-filled with ``--prior`` events (user
questions, answers, and a tool call/response pair every fourth turn),
interleaving the two so machine drift hits both alike. The first turn on
the long session, which converts the whole history once, is reported
separately ("cold"). The model answers at once but walks the request's
parts, as an adapter converting it would. Sessions are in memory, so the
numbers isolate the runtime from the store.

Run: ``.venv/bin/python bench/history_cap.py [--prior 3200] [--turns 300]``
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time
from collections.abc import AsyncIterator

from steadyflow import (
    Content,
    Event,
    FunctionCall,
    HistoryPolicy,
    LlmAgent,
    Part,
    RunConfig,
    Runner,
    Session,
)
from steadyflow.context import InvocationContext, LlmCallBudget
from steadyflow.flows.processors import ContentsProcessor
from steadyflow.models import BaseLlm, LlmRequest, LlmResponse
from steadyflow.sessions.in_memory import InMemorySessionService
from steadyflow.types import UsageMetadata

USER = "u"


QUESTION = "and what about the next order? " * 3
ANSWER = "here is what I found about it. " * 3


class AdapterLikeLlm(BaseLlm):
    """Answers at once after touching every part of the request, like a converting adapter."""

    def __init__(self) -> None:
        super().__init__("instant")

    async def generate_content_async(
        self, request: LlmRequest, stream: bool = False
    ) -> AsyncIterator[LlmResponse]:
        size = sum(len(p.text or "") for c in request.contents for p in c.parts)
        usage = UsageMetadata(input_tokens=size // 4, output_tokens=24, total_tokens=size // 4 + 24)
        yield LlmResponse.from_text(ANSWER, usage_metadata=usage)


def history(count: int) -> list[Event]:
    """``count`` events: question/answer turns, a tool call and response every fourth turn."""
    events: list[Event] = []
    turn = 0
    while len(events) < count:
        events.append(Event(author="user", content=Content.from_text(f"{turn} {QUESTION}")))
        if turn % 4 == 0:
            call = FunctionCall(id=f"c{turn}", name="lookup", args={"q": turn})
            parts = [Part(function_call=call)]
            events.append(Event(author="a", content=Content(role="model", parts=parts)))
            answer = Part.from_function_response("lookup", {"found": turn}, id=f"c{turn}")
            events.append(Event(author="a", content=Content(role="user", parts=[answer])))
        events.append(Event(author="a", content=Content.from_text(f"{turn} {ANSWER}", "model")))
        turn += 1
    return events[:count]


async def timed_turn(runner: Runner, session_id: str) -> float:
    start = time.perf_counter()
    async for _ in runner.run_async(user_id=USER, session_id=session_id, new_message=QUESTION):
        pass
    return time.perf_counter() - start


async def measure(
    policy: HistoryPolicy | None, sizes: list[int], turns: int, freeze: bool
) -> dict[str, float]:
    """Median turn time (s) per prior-events size, the IQR at 0, and the cold first turn."""
    agent = LlmAgent(name="a", model=AdapterLikeLlm(), history=policy)
    runner = Runner(app_name="bench", agent=agent, session_service=InMemorySessionService())
    sessions: dict[int, str] = {}
    cold = 0.0
    for size in sizes:
        if size == 0:
            continue
        session = await runner.create_session(user_id=USER)
        for event in history(size):
            await runner.session_service.append_event(session, event)
        cold = await timed_turn(runner, session.id)  # the largest size is last
        sessions[size] = session.id
    times: dict[int, list[float]] = {size: [] for size in sizes}
    gc.collect()
    if freeze:
        gc.freeze()  # the pre-filled history is no longer scanned by every collection
    for _ in range(turns):
        for size in sizes:
            session_id = sessions.get(size) or (await runner.create_session(user_id=USER)).id
            times[size].append(await timed_turn(runner, session_id))
    quartiles = statistics.quantiles(times[0], n=4)
    result = {f"@{size}": statistics.median(values) for size, values in times.items()}
    result.update(iqr=quartiles[2] - quartiles[0], cold=cold)
    gc.unfreeze()
    return result


async def measure_step(policy: HistoryPolicy | None, sizes: list[int], steps: int) -> list[float]:
    """Median time (s) of the contents step alone, one new user message per step."""
    agent = LlmAgent(name="a", model=AdapterLikeLlm(), history=policy)
    results = []
    for size in sizes:
        processor = ContentsProcessor()
        session = Session(app_name="bench", user_id=USER, events=history(size))
        ctx = InvocationContext(
            invocation_id="e-bench",
            agent=agent,
            session=session,
            session_service=InMemorySessionService(),
            run_config=RunConfig(),
            budget=LlmCallBudget(0),
        )
        await processor.process(agent, ctx, LlmRequest())  # the one-time conversion
        times = []
        for _ in range(steps):
            session.events.append(Event(author="user", content=Content.from_text(QUESTION)))
            start = time.perf_counter()
            await processor.process(agent, ctx, LlmRequest())
            times.append(time.perf_counter() - start)
        results.append(statistics.median(times))
    return results


POLICIES: dict[str, HistoryPolicy | None] = {
    "no policy": None,
    "max_events=50": HistoryPolicy(max_events=50),
    "max_tokens=1500": HistoryPolicy(max_tokens=1500),
}


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--prior", type=int, default=3200, help="events in the long session")
    parser.add_argument("--full", type=int, default=400, help="a session past the cap already")
    parser.add_argument("--turns", type=int, default=300, help="timed turns per session")
    parser.add_argument(
        "--no-freeze", action="store_true", help="let the collector scan the pre-filled history"
    )
    args = parser.parse_args()
    sizes = [0, args.full, args.prior]
    freeze = not args.no_freeze
    await measure(None, sizes, 20, freeze)  # warm the interpreter before the first row
    gc_note = "history frozen out of GC" if freeze else "GC scans everything"
    print(f"median turn time (ms) over {args.turns} turns, by events already in the session")
    print(f"({gc_note})")
    columns = [f"@{size}" for size in sizes]
    print(f"{'policy':<17}" + "".join(f"{c:>9}" for c in [*columns, "IQR@0", "ratio", "cold"]))
    for name, policy in POLICIES.items():
        r = await measure(policy, sizes, args.turns, freeze)
        cells = [r[c] * 1e3 for c in columns] + [r["iqr"] * 1e3]
        ratio = r[columns[-1]] / r[columns[0]]
        row = "".join(f"{v:>9.3f}" for v in cells) + f"{ratio:>9.2f}{r['cold'] * 1e3:>9.1f}"
        print(f"{name:<17}{row}")
    print(f"\ncontents step alone (us), median of {args.turns * 4} steps")
    print(f"{'policy':<17}" + "".join(f"{c:>9}" for c in columns))
    for name, policy in POLICIES.items():
        steps = await measure_step(policy, sizes, args.turns * 4)
        print(f"{name:<17}" + "".join(f"{v * 1e6:>9.1f}" for v in steps))


if __name__ == "__main__":
    asyncio.run(main())
