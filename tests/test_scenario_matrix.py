"""The scenarios users reach, crossed with every provider dialect, streamed and not.

Generated from two tables rather than written one by one: each provider
dialect of the emulator (through its real SDK adapter), streaming on and
off, times each scenario below. After every scenario the same invariants
are checked, and checked again after one more turn:

- the emulator refused nothing (every turn ended as the scenario expects,
  and every scripted answer was used);
- no tool ran twice (each call id ran at most once);
- every stored call pairs with exactly one result;
- the invocations' attempt counts add up to the emulator's request log;
- the session takes one more turn.

No real sleeps: retry waits go through the testing clock, and the
cancelled tool waits on an event.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field

import pytest

from steadyflow import (
    Content,
    FunctionTool,
    GenerateContentConfig,
    LlmAgent,
    ParallelAgent,
    RetryConfig,
    RunConfig,
    Runner,
    SequentialAgent,
    StreamingMode,
    ToolContext,
)
from steadyflow.models import BaseLlm
from steadyflow.plugins import BasePlugin
from steadyflow.sessions import InMemorySessionService, Session
from steadyflow.testing.clock import fake_clock
from steadyflow.testing.emulator import Fault, ProviderEmulator, ToolCall
from steadyflow.tools import confirmation_answer, confirmation_requests
from steadyflow.usage import UsageLimits
from tests.models.providers import ADAPTERS, MODELS, PROVIDERS, SECRET, base_url

APP, USER = "shop", "u"


@dataclass
class World:
    """What a scenario works with: the emulator, an adapter aimed at it, the run settings."""

    emu: ProviderEmulator
    llm: BaseLlm
    config: RunConfig
    runs: list[str] = field(default_factory=lambda: [])  # call ids of the tool runs, in order
    service: InMemorySessionService = field(default_factory=InMemorySessionService)

    def lookup_tool(self) -> Callable[..., dict]:
        def lookup(order_id: str, tool_context: ToolContext) -> dict:
            """Look an order up."""
            self.runs.append(tool_context.function_call_id or "")
            return {"order": order_id, "status": "shipped"}

        return lookup

    def runner(self, agent, **options) -> Runner:
        return Runner(app_name=APP, agent=agent, session_service=self.service, **options)

    async def turn(self, runner: Runner, session_id: str, message: Content | str) -> list:
        events = runner.run_async(
            user_id=USER, session_id=session_id, new_message=message, run_config=self.config
        )
        return [e async for e in events]


Scenario = Callable[[World], Awaitable[tuple[Runner, str]]]
"""Builds its agent, runs its turns against ``world.emu``; returns the runner and session id."""


async def retries(world: World) -> tuple[Runner, str]:
    """A 503 on the first attempt, retried (the wait recorded by the testing clock)."""
    world.emu.add_fault(Fault.http(503, on=1))
    world.emu.add_script(ToolCall("lookup", {"order_id": "7"}), "Shipped.")
    world.config = RunConfig(
        streaming_mode=world.config.streaming_mode, retry_config=RetryConfig(max_attempts=3)
    )
    runner = world.runner(LlmAgent(name=APP, model=world.llm, tools=[world.lookup_tool()]))
    session = await runner.create_session(user_id=USER)
    with fake_clock() as clock:
        events = await world.turn(runner, session.id, "Where is 7?")
    assert events[-1].text == "Shipped." and len(clock.sleeps) == 1
    return runner, session.id


def _confirmed(answer: bool) -> Scenario:
    async def confirmation(world: World) -> tuple[Runner, str]:
        lookup = FunctionTool(world.lookup_tool(), require_confirmation=True)
        world.emu.add_script(ToolCall("lookup", {"order_id": "7"}), "Done as you said.")
        runner = world.runner(LlmAgent(name=APP, model=world.llm, tools=[lookup]))
        session = await runner.create_session(user_id=USER)
        paused = await world.turn(runner, session.id, "Look 7 up")
        (request,) = [r for e in paused for r in confirmation_requests(e)]
        rest = await world.turn(
            runner, session.id, confirmation_answer(request.id, confirmed=answer)
        )
        assert rest[-1].text == "Done as you said."
        assert len(world.runs) == (1 if answer else 0)
        return runner, session.id

    confirmation.__name__ = "confirmed" if answer else "declined"
    return confirmation


async def cancel_during_a_tool(world: World) -> tuple[Runner, str]:
    """The caller cancels its task while a tool runs."""
    entered = asyncio.Event()

    async def refund(order_id: str, tool_context: ToolContext) -> dict:
        """Refund an order (slowly)."""
        world.runs.append(tool_context.function_call_id or "")
        entered.set()
        await asyncio.Event().wait()  # only the cancellation ends it
        return {"refunded": order_id}

    world.emu.add_script(ToolCall("refund", {"order_id": "7"}))
    runner = world.runner(LlmAgent(name=APP, model=world.llm, tools=[refund]))
    session = await runner.create_session(user_id=USER)
    task = asyncio.create_task(world.turn(runner, session.id, "Refund 7"))
    await asyncio.wait_for(entered.wait(), 10)
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)
    return runner, session.id


async def crash_and_resume(world: World) -> tuple[Runner, str]:
    """The process goes down inside a tool; the resume tells the model its outcome is unknown."""

    def refund(order_id: str, tool_context: ToolContext) -> dict:
        """Refund an order."""
        world.runs.append(tool_context.function_call_id or "")
        raise SystemExit("the process went down")

    world.emu.add_script(ToolCall("refund", {"order_id": "7"}), "I could not confirm it.")
    runner = world.runner(LlmAgent(name=APP, model=world.llm, tools=[refund]))
    session = await runner.create_session(user_id=USER)
    with pytest.raises(SystemExit):
        await world.turn(runner, session.id, "Refund 7")
    resumed = [e async for e in runner.resume_async(user_id=USER, session_id=session.id)]
    assert resumed[-1].text == "I could not confirm it."
    return runner, session.id


async def parallel_agents(world: World) -> tuple[Runner, str]:
    branches = [LlmAgent(name=n, model=world.llm) for n in ("left", "right")]
    world.emu.add_script("one side", "other side")
    runner = world.runner(ParallelAgent(name=APP, sub_agents=branches))
    session = await runner.create_session(user_id=USER)
    events = await world.turn(runner, session.id, "Both of you")
    assert sorted(e.text for e in events if not e.partial) == ["one side", "other side"]
    return runner, session.id


async def sequential_agents(world: World) -> tuple[Runner, str]:
    stages = [
        LlmAgent(name="find", model=world.llm, tools=[world.lookup_tool()]),
        LlmAgent(name="tell", model=world.llm),
    ]
    world.emu.add_script(ToolCall("lookup", {"order_id": "7"}), "Found 7.", "Told the customer.")
    runner = world.runner(SequentialAgent(name=APP, sub_agents=stages))
    session = await runner.create_session(user_id=USER)
    events = await world.turn(runner, session.id, "Find 7 and tell")
    assert events[-1].text == "Told the customer."
    return runner, session.id


async def usage_limits(world: World) -> tuple[Runner, str]:
    world.config = RunConfig(
        streaming_mode=world.config.streaming_mode,
        usage_limits=UsageLimits(max_total_tokens=1_000_000),
    )
    world.emu.add_script(ToolCall("lookup", {"order_id": "7"}), "Shipped.")
    bounded = GenerateContentConfig(max_output_tokens=1000)  # a hard limit reserves it
    agent = LlmAgent(
        name=APP, model=world.llm, tools=[world.lookup_tool()], generate_content_config=bounded
    )
    runner = world.runner(agent)
    session = await runner.create_session(user_id=USER)
    events = await world.turn(runner, session.id, "Where is 7?")
    assert events[-1].text == "Shipped."
    return runner, session.id


class CountingPlugin(BasePlugin):
    """Counts the model calls it saw before they left."""

    def __init__(self) -> None:
        super().__init__(name="counting")
        self.model_calls = 0

    async def before_model_callback(self, *, callback_context, llm_request):
        self.model_calls += 1
        return None


async def a_plugin(world: World) -> tuple[Runner, str]:
    plugin = CountingPlugin()
    world.emu.add_script(ToolCall("lookup", {"order_id": "7"}), "Shipped.")
    agent = LlmAgent(name=APP, model=world.llm, tools=[world.lookup_tool()])
    runner = world.runner(agent, plugins=[plugin])
    session = await runner.create_session(user_id=USER)
    await world.turn(runner, session.id, "Where is 7?")
    assert plugin.model_calls == world.emu.attempts() == 2
    return runner, session.id


SCENARIOS: list[Scenario] = [
    retries,
    _confirmed(True),
    _confirmed(False),
    cancel_during_a_tool,
    crash_and_resume,
    parallel_agents,
    sequential_agents,
    usage_limits,
    a_plugin,
]


def unpaired(session: Session) -> Counter[str]:
    """Call ids whose count of results is not exactly one (empty: every call is answered)."""
    balance: Counter[str] = Counter()
    for event in session.events:
        for call in event.get_function_calls():
            balance[call.id or ""] += 1
        for response in event.get_function_responses():
            balance[response.id or ""] -= 1
    return Counter({call_id: n for call_id, n in balance.items() if n != 0})


async def check_invariants(world: World, runner: Runner, session_id: str) -> None:
    session = await world.service.get_session(app_name=APP, user_id=USER, session_id=session_id)
    assert session is not None
    assert unpaired(session) == Counter()
    assert [n for n in Counter(world.runs).values() if n > 1] == []
    records = await world.service.list_invocations(
        app_name=APP, user_id=USER, session_id=session_id
    )
    assert sum(r.llm_calls for r in records) == world.emu.attempts()
    assert world.emu.script_remaining == 0


@asynccontextmanager
async def world_for(provider: str, stream: bool) -> AsyncIterator[World]:
    async with ProviderEmulator([]) as emu:  # scripted only: an unexpected request is refused
        adapter = ADAPTERS[provider]
        llm = adapter(MODELS[provider], api_key=SECRET, base_url=base_url(provider, emu))
        mode = StreamingMode.SSE if stream else StreamingMode.NONE
        try:
            yield World(emu, llm, RunConfig(streaming_mode=mode))
        finally:
            await llm.aclose()


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
@pytest.mark.parametrize("stream", [False, True], ids=["call", "stream"])
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_the_session_holds_its_invariants(provider: str, stream: bool, scenario: Scenario):
    async with world_for(provider, stream) as world:
        runner, session_id = await scenario(world)
        await check_invariants(world, runner, session_id)

        answers_needed = 2 if scenario in (parallel_agents, sequential_agents) else 1
        world.emu.add_script(*["One more answer."] * answers_needed)
        world.config = RunConfig(streaming_mode=world.config.streaming_mode)
        events = await world.turn(runner, session_id, "One more thing")

        assert events[-1].text == "One more answer."
        await check_invariants(world, runner, session_id)
