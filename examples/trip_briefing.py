"""A multi-agent pipeline: a parallel fan-out, then a loop that exits on a condition.

::

    briefing (SequentialAgent)
    ├── research (ParallelAgent)      two lookups at once, each on its own branch
    │   ├── weather (LlmAgent)        get_weather -> state["weather"]
    │   └── events (LlmAgent)         list_events -> state["events"]
    └── polish (LoopAgent, max 3)     draft, review, again until the critic is happy
        ├── writer (LlmAgent)         state -> state["draft"]
        └── critic (LlmAgent)         exit_loop when the draft covers everything,
                                      else feedback -> state["feedback"]

Run it with ``python examples/trip_briefing.py`` (or ``make demo-tree``): the
provider emulator serves the OpenAI wire format on loopback and a small
rule-based responder plays each agent's model, so no key and no network are
needed; the run prints the events, then the invocation's stored trace as the
agent tree.

``root_agent`` (on ``gpt-4o-mini``) is what ``steadyflow run
examples/trip_briefing.py "Plan my weekend in Lisbon"`` loads.
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from steadyflow import (
    LlmAgent,
    LoopAgent,
    ParallelAgent,
    RunConfig,
    Runner,
    SequentialAgent,
)
from steadyflow.models import BaseLlm
from steadyflow.testing.emulator import EmulatedRequest, ProviderEmulator, ScriptItem, ToolCall
from steadyflow.tools import exit_loop
from steadyflow.trace_record import InvocationTrace

QUESTION = "Plan my weekend in Lisbon"
FEEDBACK = "Add the events."


def get_weather(city: str) -> dict[str, Any]:
    """The weekend forecast for a city.

    Args:
        city: the city's name, e.g. "Lisbon".
    """
    return {"city": city, "forecast": "sunny", "high_c": 21}


def list_events(city: str) -> dict[str, Any]:
    """What is on in a city this weekend.

    Args:
        city: the city's name, e.g. "Lisbon".
    """
    return {"city": city, "events": ["fado night in Alfama", "the Saturday flea market"]}


def build_agent(model: str | BaseLlm) -> SequentialAgent:
    """The briefing pipeline, every model call on ``model``."""
    research = ParallelAgent(
        name="research",
        sub_agents=[
            LlmAgent(
                name="weather",
                model=model,
                instruction="Look up the weekend weather for the user's city. One sentence.",
                tools=[get_weather],
                output_key="weather",
            ),
            LlmAgent(
                name="events",
                model=model,
                instruction="List what is on in the user's city this weekend. One sentence.",
                tools=[list_events],
                output_key="events",
            ),
        ],
    )
    polish = LoopAgent(
        name="polish",
        max_iterations=3,
        sub_agents=[
            LlmAgent(
                name="writer",
                model=model,
                instruction=(
                    "Write a two-sentence weekend briefing. Weather: {weather} "
                    "Events: {events} Feedback on your last draft: { feedback? }"
                ),
                output_key="draft",
                include_contents="none",
            ),
            LlmAgent(
                name="critic",
                model=model,
                instruction=(
                    "Review this briefing: {draft} If it covers both the weather and the "
                    f"events, call exit_loop. Otherwise answer only: {FEEDBACK}"
                ),
                tools=[exit_loop],
                output_key="feedback",
                include_contents="none",
            ),
        ],
    )
    return SequentialAgent(
        name="briefing",
        description="Writes a weekend briefing for a city.",
        sub_agents=[research, polish],
    )


root_agent = build_agent("gpt-4o-mini")
"""What ``steadyflow run examples/trip_briefing.py`` loads (``--model`` replaces the model)."""

_AGENT = re.compile(r'Your internal name is "(\w+)"')
_CITY = re.compile(r"\bin ([A-Z][a-z]+)")


def _between(text: str, start: str, end: str) -> str:
    tail = text.split(start, 1)[1] if start in text else ""
    return tail.split(end, 1)[0].strip()


def respond(request: EmulatedRequest) -> ScriptItem:
    """Each agent's model, by rule: the emulator calls this once per request."""
    match = _AGENT.search(request.system)
    agent = match.group(1) if match else ""
    last = request.last
    if agent in ("weather", "events"):
        if last is not None and last.results:
            result = last.results[-1].response
            if agent == "weather":
                return f"{result['city']}: {result['forecast']}, up to {result['high_c']} C."
            return f"On in {result['city']}: " + " and ".join(result["events"]) + "."
        city = _CITY.search(request.last_user_text)
        tool = "get_weather" if agent == "weather" else "list_events"
        return ToolCall(tool, {"city": city.group(1) if city else "Lisbon"})
    if agent == "writer":
        weather = _between(request.system, "Weather:", "Events:")
        events = _between(request.system, "Events:", "Feedback")
        if FEEDBACK in _between(request.system, "last draft:", "\n"):
            return f"Your weekend: {weather} {events}"
        return f"Your weekend: {weather}"
    if agent == "critic":
        if last is not None and last.results:
            return "Done."
        draft = _between(request.system, "Review this briefing:", "If it covers")
        return ToolCall("exit_loop") if "On in" in draft else FEEDBACK
    return "I am not part of this example."


def print_tree(trace: InvocationTrace) -> None:
    """The trace's steps, indented by their place in the agent tree."""
    print(f"\ntrace: {len(trace.steps)} steps, {trace.budget_used} model calls, {trace.status}")
    shown: list[str] = []
    for step in trace.steps:
        path = step.path or [step.agent]
        for depth, name in enumerate(path[:-1]):
            if len(shown) <= depth or shown[depth] != name:
                del shown[depth:]
                shown.append(name)
                print("  " * (depth + 1) + name)
        tools = ", ".join(tool.name for tool in step.tools)
        detail = f" -> {tools}" if tools else ""
        print("  " * len(path) + f"step {step.number}: {step.agent} ({step.model}){detail}")


async def run(emulator: ProviderEmulator) -> InvocationTrace:
    """One turn of the briefing against ``emulator``; prints events and the trace tree."""
    from steadyflow.models.openai import OpenAI

    model = OpenAI("gpt-4o-mini", api_key="example", base_url=emulator.openai_base_url)
    runner = Runner(app_name="trip_briefing", agent=build_agent(model), session_service="memory://")
    session = await runner.create_session(user_id="traveller")
    print(f"user: {QUESTION}")
    async for event in runner.run_async(
        user_id="traveller",
        session_id=session.id,
        new_message=QUESTION,
        run_config=RunConfig(max_llm_calls=20),
    ):
        for fc in event.get_function_calls():
            print(f"[{event.author}] calls {fc.name}({fc.args})")
        if event.text:
            print(f"[{event.author}] {event.text}")
    records = await runner.session_service.list_invocations(
        app_name="trip_briefing", user_id="traveller", session_id=session.id
    )
    trace = records[-1].trace
    assert trace is not None
    print_tree(trace)
    await runner.close()
    return trace


async def main() -> None:
    """Start the emulator, run the briefing, stop the emulator."""
    async with ProviderEmulator(responder=respond) as emulator:
        await run(emulator)


if __name__ == "__main__":
    asyncio.run(main())
