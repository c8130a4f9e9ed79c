"""Agent turns on real adapters: Runner -> flow -> retry policy -> SDK -> HTTP -> emulator.

For each adapter in NONE and SSE modes: the two-call order-support turn,
parallel calls, usage on events; then the fault matrix with retries on,
asserting the requests the emulator saw, the waits (fake clock), and that
no failed attempt left an event or duplicated text.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from steadyflow import LlmAgent, RetryConfig, RunConfig, StreamingMode
from steadyflow.errors import ModelConnectionError, ModelHTTPError
from steadyflow.events import Event
from steadyflow.models import BaseLlm
from steadyflow.testing import FakeClock, fake_clock
from steadyflow.testing.emulator import Fault
from steadyflow.testing.harness import TurnResult, run_turn
from tests.models.providers import PROVIDERS, Emulate, MakeLlm

pytestmark = pytest.mark.asyncio(loop_scope="module")
MODES = pytest.mark.parametrize(
    "mode", [StreamingMode.NONE, StreamingMode.SSE], ids=["none", "sse"]
)
RETRIES = RetryConfig(max_attempts=3, initial_backoff=0.5, jitter_ratio=0.0)
# Seconds per attempt (connect to last byte). Only the read-timeout rows need the
# timeout to fire, so only they run with a short one (its stalled attempt waits far
# longer); the other rows get room for a loaded machine: at a load average of 14 a
# healthy attempt passed 1.5 s and was cut, which made the row retry once more.
TIMEOUT = 2.0
ROOMY_TIMEOUT = 30.0
ANSWER_812 = "Order 812 - status: shipped, eta: Friday."


def lookup_order(order_id: str) -> dict[str, str]:
    """Look up an order by its number."""
    return {"order_id": order_id, "status": "shipped", "eta": "Friday"}


def support_agent(llm: BaseLlm) -> LlmAgent:
    return LlmAgent(
        name="support",
        model=llm,
        instruction="Answer questions about the customer's orders. Use lookup_order.",
        tools=[lookup_order],
    )


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


async def turn(llm: BaseLlm, text: str, mode: StreamingMode) -> TurnResult:
    config = RunConfig(streaming_mode=mode, retry_config=RETRIES, max_llm_calls=10)
    return await run_turn(support_agent(llm), text, run_config=config)


def complete(result: TurnResult) -> list[Event]:
    return [e for e in result.events if not e.partial]


async def stored_ids(result: TurnResult) -> list[str]:
    """Ids of the agent's events in the stored session (partials are never stored)."""
    session = await result.stored_session()
    return [e.id for e in session.events if e.author == "support"]


def partial_text(result: TurnResult) -> str:
    return "".join(e.text for e in result.events if e.partial)


@MODES
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_order_support_turn_is_two_model_calls_and_three_events(
    provider: str, mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    result = await turn(make_llm(provider, emu), "Where is order 812?", mode)
    assert result.error is None
    call_event, response_event, final = complete(result)
    assert [(c.name, c.args) for c in call_event.get_function_calls()] == [
        ("lookup_order", {"order_id": "812"})
    ]
    (tool_response,) = response_event.get_function_responses()
    assert tool_response.id == call_event.get_function_calls()[0].id
    assert final.text == ANSWER_812
    assert emu.attempts(provider) == 2
    (result_seen,) = emu.requests[1].turns[-1].results
    assert result_seen.response == lookup_order("812")
    assert await stored_ids(result) == [call_event.id, response_event.id, final.id]


@MODES
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_usage_is_recorded_on_the_model_events(
    provider: str, mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    result = await turn(make_llm(provider, emu), "Where is order 812?", mode)
    call_event, _, final = complete(result)
    for event in (call_event, final):
        usage = event.usage_metadata
        assert usage is not None and usage.input_tokens > 0 and usage.output_tokens > 0
        assert usage.total_tokens == usage.input_tokens + usage.output_tokens


@MODES
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_parallel_calls_run_in_one_step_and_answer_together(
    provider: str, mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    result = await turn(make_llm(provider, emu), "Where are orders 812 and 913?", mode)
    call_event, response_event, final = complete(result)
    calls = call_event.get_function_calls()
    assert [c.args["order_id"] for c in calls] == ["812", "913"]
    responses = response_event.get_function_responses()
    assert [r.id for r in responses] == [c.id for c in calls]
    assert "Order 812" in final.text and "Order 913" in final.text
    assert emu.attempts(provider) == 2


@MODES
@pytest.mark.parametrize("provider", PROVIDERS)
async def test_streamed_text_is_never_duplicated(
    provider: str, mode: StreamingMode, emulate: Emulate, make_llm: MakeLlm
) -> None:
    emu = await emulate()
    result = await turn(make_llm(provider, emu), "Where is order 812?", mode)
    expected = ANSWER_812 if mode is StreamingMode.SSE else ""
    assert partial_text(result) == expected
    assert [e.text for e in complete(result) if e.text] == [ANSWER_812]


# -- the fault matrix ---------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One fault on the turn's second model call and what must follow."""

    fault: Fault
    retried: bool
    sleeps: tuple[float, ...] = ()
    error: type[Exception] | None = None
    status: int | None = None


def matrix_case(fault_name: str, mode: StreamingMode) -> Case:
    sse = mode is StreamingMode.SSE
    cases = {
        "429+retry-after": Case(Fault.http(429, retry_after=2, on=2), True, (2.0,)),
        "503": Case(Fault.http(503, on=2), True, (0.5,)),
        "529": Case(Fault.http(529, on=2), True, (0.5,)),
        "connection reset": Case(Fault.reset(on=2), True, (0.5,)),
        "read timeout": Case(Fault.delay(30, on=2), True, (0.5,)),
        "stream broken before first chunk": Case(Fault.stream_break(0, on=2), True, (0.5,)),
        "stream broken after first chunk": (
            Case(Fault.stream_break(1, on=2), False, error=ModelConnectionError)
            if sse
            else Case(Fault.stream_break(1, on=2), True, (0.5,))
        ),
        "400": Case(Fault.http(400, on=2), False, error=ModelHTTPError, status=400),
        "401": Case(Fault.http(401, on=2), False, error=ModelHTTPError, status=401),
    }
    return cases[fault_name]


FAULTS = [
    "429+retry-after",
    "503",
    "529",
    "connection reset",
    "read timeout",
    "stream broken before first chunk",
    "stream broken after first chunk",
    "400",
    "401",
]
MATRIX = [
    (provider, fault)
    for provider in PROVIDERS
    for fault in FAULTS
    if fault != "529" or provider in ("anthropic", "openai-responses")
]


@MODES
@pytest.mark.parametrize(("provider", "fault_name"), MATRIX)
async def test_fault_matrix(
    provider: str,
    fault_name: str,
    mode: StreamingMode,
    emulate: Emulate,
    make_llm: MakeLlm,
    clock: FakeClock,
) -> None:
    case = matrix_case(fault_name, mode)
    emu = await emulate(faults=[case.fault])
    timeout = TIMEOUT if fault_name == "read timeout" else ROOMY_TIMEOUT
    result = await turn(make_llm(provider, emu, timeout=timeout), "Where is order 812?", mode)
    assert emu.attempts(provider) == (3 if case.retried else 2)
    assert tuple(clock.sleeps) == case.sleeps
    events = complete(result)
    stored = await stored_ids(result)
    if case.retried:
        assert result.error is None
        assert [len(e.get_function_calls()) for e in events] == [1, 0, 0]
        assert [e.text for e in events if e.text] == [ANSWER_812]
        assert partial_text(result) == (ANSWER_812 if mode is StreamingMode.SSE else "")
        assert stored == [e.id for e in events]
        return
    assert case.error is not None and isinstance(result.error, case.error)
    assert getattr(result.error, "status_code", None) == case.status
    assert len(events) == 2  # the call and its response; the failed attempt left nothing
    assert stored == [e.id for e in events]
    assert partial_text(result) == ("Order " if fault_name.endswith("after first chunk") else "")
