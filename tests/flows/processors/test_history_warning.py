import logging

from steadyflow import HistoryPolicy, LlmAgent
from steadyflow.history import text_tokens
from steadyflow.testing import ScriptedLlm, run_turn

# "x" * 400 is estimated at 100 tokens, plus 4 of message framing.
LONG = "x" * 400


def agent(threshold: int, **kwargs: object) -> LlmAgent:
    return LlmAgent(
        name="a",
        model=ScriptedLlm(["ok", "ok"]),
        instruction="i" * 80,
        history=HistoryPolicy(warn_input_tokens=threshold),
        **kwargs,  # type: ignore[arg-type]
    )


def instruction_tokens(llm_agent: LlmAgent) -> int:
    model = llm_agent.model
    assert isinstance(model, ScriptedLlm)
    return text_tokens(model.requests[0].config.system_instruction or "")


def warnings(caplog) -> list[logging.LogRecord]:
    return [r for r in caplog.records if r.name == "steadyflow.history"]


async def test_a_request_over_the_threshold_logs_a_warning_with_the_estimate(caplog):
    caplog.set_level(logging.WARNING, logger="steadyflow.history")
    warned = agent(threshold=100)
    await run_turn(warned, LONG)

    [record] = warnings(caplog)
    expected = 104 + instruction_tokens(warned)
    assert record.levelno == logging.WARNING
    assert f"estimated_input_tokens={expected} threshold=100" in record.getMessage()
    assert record.estimated_input_tokens == expected


async def test_a_request_at_the_threshold_logs_nothing(caplog):
    probe = agent(threshold=10**6)
    await run_turn(probe, LONG)
    caplog.set_level(logging.WARNING, logger="steadyflow.history")
    await run_turn(agent(threshold=104 + instruction_tokens(probe)), LONG)
    assert warnings(caplog) == []


async def test_the_warning_also_covers_agents_that_see_only_the_current_turn(caplog):
    caplog.set_level(logging.WARNING, logger="steadyflow.history")
    await run_turn(agent(threshold=100, include_contents="none"), LONG)
    assert len(warnings(caplog)) == 1


async def test_the_warning_counts_only_what_the_cap_lets_through(caplog):
    caplog.set_level(logging.WARNING, logger="steadyflow.history")
    model = ScriptedLlm(["ok", "ok"])
    capped = LlmAgent(
        name="a", model=model, history=HistoryPolicy(max_events=1, warn_input_tokens=100)
    )
    first = await run_turn(capped, LONG)
    await run_turn(capped, "short", runner=first.runner, session_id=first.session_id)

    assert [r.invocation_id for r in warnings(caplog)] == [first.events[0].invocation_id]
    assert [c.text for c in model.requests[1].contents] == ["short"]
