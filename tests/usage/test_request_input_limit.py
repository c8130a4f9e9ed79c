"""max_request_input_tokens: a request whose input estimate is too large is never sent."""

from __future__ import annotations

import pytest

from steadyflow import LlmAgent, RunConfig
from steadyflow.errors import UsageLimitExceededError
from steadyflow.testing import ScriptedLlm
from steadyflow.testing.scripted import call
from steadyflow.usage import UsageLimits

from .helpers import records, start, turn

LIMITS = RunConfig(usage_limits=UsageLimits(max_request_input_tokens=200))


def export_report() -> dict:
    """Return the whole report."""
    return {"rows": "order shipped; " * 200}  # about 750 tokens


async def test_a_step_whose_request_grew_too_large_is_refused_before_it_is_sent() -> None:
    model = ScriptedLlm([call("export_report"), "never sent"])
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[export_report]))
    with pytest.raises(UsageLimitExceededError) as caught:
        await turn(runner, sid, LIMITS)
    assert len(model.requests) == 1  # the first request was small; the second never left
    error = caught.value
    assert (error.limit, error.maximum, error.used, error.unit) == (
        "max_request_input_tokens",
        200,
        0,
        "tokens",
    )
    assert error.needed > 700
    assert str(error).startswith("max_request_input_tokens (200 tokens) would be exceeded")
    (record,) = await records(runner, sid)
    assert record.llm_calls == 1


def lookup() -> dict:
    """Look something up."""
    return {"rows": "x " * 200}  # about 100 tokens


@pytest.mark.parametrize(
    ("limits", "outcome"),
    [
        (UsageLimits(max_request_input_tokens=400), "done"),
        (UsageLimits(max_input_tokens=400), "refused"),
    ],
    ids=["per request", "per invocation"],
)
async def test_it_bounds_each_request_not_the_invocation(limits: UsageLimits, outcome: str) -> None:
    model = ScriptedLlm([call("lookup"), call("lookup"), call("lookup"), "done"])
    runner, sid = await start(LlmAgent(name="a", model=model, tools=[lookup]))
    try:
        events = await turn(runner, sid, RunConfig(usage_limits=limits))
        ended = events[-1].text
    except UsageLimitExceededError:
        ended = "refused"
    # Each request is under 400 tokens; the four together are not.
    assert ended == outcome
