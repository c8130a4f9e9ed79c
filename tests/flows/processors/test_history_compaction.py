import logging
from collections.abc import Iterator

import pytest

from steadyflow import (
    Compaction,
    HistoryPolicy,
    LlmAgent,
    LlmCallsLimitExceededError,
    RetryConfig,
    RunConfig,
    Runner,
    UsageMetadata,
)
from steadyflow.errors import ModelHTTPError
from steadyflow.history import SUMMARY_KEY, is_summary_event
from steadyflow.history.summary import SUMMARY_PREFIX
from steadyflow.models import LlmResponse
from steadyflow.testing import FakeClock, ScriptedLlm, fake_clock, http_error, run_turn
from steadyflow.testing.harness import TurnResult

RETRY3 = RunConfig(retry_config=RetryConfig(max_attempts=3, jitter_ratio=0.0))


@pytest.fixture
def clock() -> Iterator[FakeClock]:
    with fake_clock() as testing_clock:
        yield testing_clock


class Chat:
    """One agent (cap of 6 events, compaction keeping half) and a conversation with it."""

    def __init__(self, summarizer: ScriptedLlm, **policy: object) -> None:
        self.model = ScriptedLlm([f"answer {i}" for i in range(1, 30)])
        self.summarizer = summarizer
        settings: dict[str, object] = {
            "max_events": 6,
            "compaction": Compaction(model=summarizer, keep_fraction=0.5),
        }
        settings.update(policy)
        self.agent = LlmAgent(name="a", model=self.model, history=HistoryPolicy(**settings))
        self.first: TurnResult | None = None
        self.turns = 0

    async def turn(self, run_config: RunConfig | None = None) -> TurnResult:
        self.turns += 1
        text = f"question {self.turns}"
        if self.first is None:
            self.first = await run_turn(self.agent, text, run_config=run_config)
            return self.first
        return await run_turn(
            self.agent,
            text,
            runner=self.first.runner,
            session_id=self.first.session_id,
            run_config=run_config,
        )

    async def turns_to(self, count: int) -> TurnResult:
        result = await self.turn()
        while self.turns < count:
            result = await self.turn()
        return result

    async def summaries(self) -> list[str]:
        assert self.first is not None
        events = (await self.first.stored_session()).events
        return [e.text for e in events if is_summary_event(e)]

    def texts(self, request_index: int = -1) -> list[str]:
        return [c.text for c in self.model.requests[request_index].contents]


async def test_the_summary_replaces_the_old_events_in_the_request():
    chat = Chat(ScriptedLlm(["they asked 1 to 3"]))
    await chat.turns_to(4)  # 7 events of history: over the cap of 6

    assert chat.texts() == [SUMMARY_PREFIX + "they asked 1 to 3", "answer 3", "question 4"]


async def test_compaction_runs_once_per_crossing():
    chat = Chat(ScriptedLlm(["first summary", "second summary"]))
    await chat.turns_to(5)
    assert chat.summarizer.calls == 1  # crossed at turn 4; turn 5 fits behind the summary
    assert chat.texts()[0] == SUMMARY_PREFIX + "first summary"

    await chat.turn()  # turn 6 crosses again
    assert chat.summarizer.calls == 2
    assert await chat.summaries() == [
        SUMMARY_PREFIX + s for s in ["first summary", "second summary"]
    ]
    assert chat.texts() == [SUMMARY_PREFIX + "second summary", "answer 5", "question 6"]


async def test_a_new_summary_is_written_from_the_previous_one_and_the_newly_dropped_events():
    chat = Chat(ScriptedLlm(["first summary", "second summary"]))
    await chat.turns_to(6)
    transcript = chat.summarizer.requests[1].contents[0].text
    assert transcript.startswith(f"Earlier summary:\n{SUMMARY_PREFIX}first summary")
    assert "[agent] answer 3\n[user] question 4\n[agent] answer 4\n[user] question 5" in transcript
    assert "question 3" not in transcript


async def test_the_summary_call_uses_the_configured_instruction_and_no_tools():
    chat = Chat(
        ScriptedLlm(["s"]), compaction=Compaction(model=ScriptedLlm(["s"]), instruction="Be brief.")
    )
    summarizer = chat.agent.history.compaction.model  # type: ignore[union-attr]
    await chat.turns_to(4)
    request = summarizer.requests[0]  # type: ignore[union-attr]
    assert request.config.system_instruction == "Be brief."
    assert request.config.tools == []


async def test_the_summary_is_stored_as_an_agent_event_with_usage_and_not_yielded():
    chat = Chat(ScriptedLlm(["s"]))
    result = await chat.turns_to(4)
    assert chat.first is not None
    stored = [e for e in (await chat.first.stored_session()).events if is_summary_event(e)]
    assert len(stored) == 1
    summary = stored[0]
    assert summary.author == "a"
    assert summary.custom_metadata is not None
    assert summary.custom_metadata[SUMMARY_KEY]["events_covered"] == 5
    assert summary.usage_metadata is not None and summary.usage_metadata.output_tokens > 0
    assert not any(is_summary_event(e) for e in result.events)


async def test_the_compaction_call_counts_against_max_llm_calls():
    chat = Chat(ScriptedLlm(["s"]))
    await chat.turns_to(3)
    result = await chat.turn(RunConfig(max_llm_calls=1))

    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert chat.summarizer.calls == 1
    assert len(chat.model.requests) == 3  # the agent's own call was over budget


async def test_the_compaction_call_is_retried_by_the_policy_on_a_503(clock):
    chat = Chat(ScriptedLlm([http_error(503), "after a retry"]))
    await chat.turns_to(3)
    result = await chat.turn(RETRY3)

    assert result.error is None
    assert chat.summarizer.calls == 2
    assert clock.sleeps == [0.5]
    assert chat.texts()[0] == SUMMARY_PREFIX + "after a retry"


async def test_each_compaction_attempt_is_counted_against_the_budget(clock):
    chat = Chat(ScriptedLlm([http_error(503), "after a retry"]))
    await chat.turns_to(3)
    limited = RunConfig(max_llm_calls=2, retry_config=RETRY3.retry_config)
    result = await chat.turn(limited)

    assert isinstance(result.error, LlmCallsLimitExceededError)
    assert chat.summarizer.calls == 2


async def test_a_failed_compaction_fails_the_step_and_stores_no_summary():
    chat = Chat(ScriptedLlm([http_error(400), "later"]))
    await chat.turns_to(3)
    failed = await chat.turn()

    assert isinstance(failed.error, ModelHTTPError)
    assert await chat.summaries() == []
    assert len(chat.model.requests) == 3
    await chat.turn()
    assert chat.texts()[0] == SUMMARY_PREFIX + "later"


async def test_without_a_compaction_model_the_agent_model_writes_the_summary():
    model = ScriptedLlm(["a1", "a2", "a3", "the summary", "a4"])
    agent = LlmAgent(
        name="a", model=model, history=HistoryPolicy(max_events=6, compaction=Compaction())
    )
    first = await run_turn(agent, "q1")
    for text in ["q2", "q3", "q4"]:
        await run_turn(agent, text, runner=first.runner, session_id=first.session_id)
    assert model.requests[3].config.system_instruction == Compaction().instruction
    assert model.requests[4].contents[0].text == SUMMARY_PREFIX + "the summary"


async def test_under_a_token_budget_the_summary_length_is_limited_to_half_the_freed_room():
    chat = Chat(ScriptedLlm(["s"]), max_events=None, max_tokens=60)
    await chat.turns_to(6)
    assert chat.summarizer.requests[0].config.max_output_tokens == 15  # (1 - 0.5) * 60 / 2


async def test_the_first_summary_of_a_long_session_reads_at_most_one_cap_of_it():
    chat = Chat(ScriptedLlm(["s"]))
    await chat.turns_to(2)
    assert chat.first is not None and chat.first.runner is not None
    runner = chat.first.runner
    session = await chat.first.stored_session()
    for i in range(300):
        await runner.session_service.append_event(
            session, session.events[0].model_copy(update={"id": f"x{i}"})
        )
    chat.agent.history = HistoryPolicy(
        max_events=6, compaction=Compaction(model=chat.summarizer)
    )  # a new policy on an old session
    await chat.turn()

    transcript = chat.summarizer.requests[0].contents[0].text
    assert transcript.startswith("(")
    assert "earlier messages omitted" in transcript.splitlines()[0]
    assert len(transcript.splitlines()) == 1 + 6


def summarizing_agent(model: ScriptedLlm, summarizer: ScriptedLlm) -> LlmAgent:
    policy = HistoryPolicy(max_events=6, compaction=Compaction(model=summarizer))
    return LlmAgent(name="a", model=model, history=policy)


async def test_a_stored_summary_is_reused_after_a_restart(tmp_path):
    url = f"sqlite:///{tmp_path / 'sessions.db'}"
    before = Runner(
        app_name="app",
        agent=summarizing_agent(ScriptedLlm(["a1", "a2", "a3", "a4"]), ScriptedLlm(["gist"])),
        session_service=url,
    )
    session = await before.create_session(user_id="u")
    for turn in range(1, 5):
        await run_turn(before.agent, f"q{turn}", runner=before, session_id=session.id, user_id="u")
    await before.close()

    model, summarizer = ScriptedLlm(["a5"]), ScriptedLlm([])
    after = Runner(app_name="app", agent=summarizing_agent(model, summarizer), session_service=url)
    await run_turn(after.agent, "q5", runner=after, session_id=session.id, user_id="u")
    await after.close()

    assert summarizer.calls == 0
    assert [c.text for c in model.requests[0].contents] == [
        SUMMARY_PREFIX + "gist",
        "a3",
        "q4",
        "a4",
        "q5",
    ]


async def test_a_summary_larger_than_the_room_it_frees_logs_a_warning(caplog):
    caplog.set_level(logging.WARNING, logger="steadyflow.history")
    usage = UsageMetadata(input_tokens=10, output_tokens=500, total_tokens=510)
    chat = Chat(
        ScriptedLlm([LlmResponse.from_text("long", usage_metadata=usage)]),
        max_events=None,
        max_tokens=60,
    )
    await chat.turns_to(6)
    [record] = [r for r in caplog.records if r.name == "steadyflow.history"]
    assert "more than the 30 that compaction frees" in record.getMessage()
