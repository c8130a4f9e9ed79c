"""The plugin lifecycle ADK plugins are written against: message, errors, stops, close."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from steadyflow import (
    ConfigurationError,
    Content,
    LiveRequestQueue,
    LlmAgent,
    PluginError,
    Runner,
    SequentialAgent,
)
from steadyflow.plugins import BasePlugin
from steadyflow.testing import ScriptedLlm, run_turn


class Tracker(BasePlugin):
    """Writes down the lifecycle hooks it hears."""

    def __init__(self, name: str = "tracker") -> None:
        super().__init__(name)
        self.agent_errors: list[tuple[str, Exception]] = []
        self.run_errors: list[Exception] = []
        self.cancelled = 0
        self.after_run = 0
        self.closed = 0

    async def on_agent_error_callback(
        self, *, agent: Any, callback_context: Any, error: Exception
    ) -> None:
        assert callback_context.agent_name == agent.name
        self.agent_errors.append((agent.name, error))

    async def on_run_error_callback(self, *, invocation_context: Any, error: Exception) -> None:
        self.run_errors.append(error)

    async def on_run_cancelled_callback(self, *, invocation_context: Any) -> None:
        self.cancelled += 1

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self.after_run += 1

    async def close(self) -> None:
        self.closed += 1


class Broken(BasePlugin):
    """Every notifying hook raises."""

    async def on_agent_error_callback(self, **kwargs: Any) -> None:
        raise ValueError("broken plugin")

    async def on_run_error_callback(self, **kwargs: Any) -> None:
        raise ValueError("broken plugin")


def runner_with(agent: Any, *plugins: BasePlugin) -> Runner:
    return Runner(app_name="app", agent=agent, session_service="memory://", plugins=list(plugins))


async def test_on_user_message_replaces_the_message_before_it_is_stored() -> None:
    class Normalize(BasePlugin):
        async def on_user_message_callback(self, *, invocation_context: Any, user_message: Content):
            return Content.from_text(user_message.parts[0].text.strip().lower())  # type: ignore[union-attr]

    model = ScriptedLlm(["ok"])
    agent = LlmAgent(name="a", model=model)
    result = await run_turn(agent, "  WHERE IS 812?  ", runner=runner_with(agent, Normalize("n")))

    assert result.error is None
    assert model.requests[0].contents[0].parts[0].text == "where is 812?"
    stored = (await result.stored_session()).events
    assert (stored[0].author, stored[0].text) == ("user", "where is 812?")


async def test_a_failing_on_user_message_stores_nothing_and_names_the_plugin() -> None:
    class Rejecting(BasePlugin):
        async def on_user_message_callback(self, **kwargs: Any) -> None:
            raise KeyError("tenant")

    tracker = Tracker()
    model = ScriptedLlm(["never"])
    agent = LlmAgent(name="a", model=model)
    result = await run_turn(agent, "hi", runner=runner_with(agent, Rejecting("gate"), tracker))

    assert isinstance(result.error, PluginError)
    assert (result.error.plugin_name, result.error.hook) == ("gate", "on_user_message_callback")
    assert "plugin 'gate' raised in on_user_message_callback: KeyError" in str(result.error)
    assert isinstance(result.error.__cause__, KeyError)
    assert tracker.run_errors == [result.error]
    assert (await result.stored_session()).events == [] and model.calls == 0


async def test_on_user_message_must_answer_a_content_or_none() -> None:
    class Wrong(BasePlugin):
        async def on_user_message_callback(self, **kwargs: Any) -> str:
            return "plain text"

    agent = LlmAgent(name="a", model=ScriptedLlm(["never"]))
    tracker = Tracker()
    result = await run_turn(agent, "hi", runner=runner_with(agent, Wrong("w"), tracker))
    assert isinstance(result.error, ConfigurationError)
    assert "on_user_message_callback must return a Content" in str(result.error)
    assert tracker.run_errors == [result.error]
    assert (await result.stored_session()).events == []


async def test_an_agent_crash_is_reported_once_per_agent_layer_and_once_for_the_run() -> None:
    boom = RuntimeError("model exploded")
    writer = LlmAgent(name="writer", model=ScriptedLlm([boom]))
    pipeline = SequentialAgent(name="pipeline", sub_agents=[writer])
    tracker = Tracker()
    result = await run_turn(pipeline, "go", runner=runner_with(pipeline, tracker))

    assert result.error is boom
    assert tracker.agent_errors == [("writer", boom), ("pipeline", boom)]
    assert tracker.run_errors == [boom]
    assert tracker.after_run == 0 and tracker.cancelled == 0


@pytest.mark.parametrize("where", ["before_agent_callback", "after_agent_callback"])
async def test_a_failing_agent_callback_is_reported_as_the_agents_error(where: str) -> None:
    def fail(callback_context: Any) -> None:
        raise RuntimeError(f"{where} failed")

    agent = LlmAgent(name="a", model=ScriptedLlm(["ok"]), **{where: fail})
    tracker = Tracker()
    result = await run_turn(agent, "go", runner=runner_with(agent, tracker))

    assert isinstance(result.error, RuntimeError)
    assert tracker.agent_errors == [("a", result.error)]
    assert tracker.run_errors == [result.error]


async def test_one_broken_plugin_does_not_silence_the_others_nor_hide_the_error(
    caplog: pytest.LogCaptureFixture,
) -> None:
    boom = RuntimeError("model exploded")
    agent = LlmAgent(name="a", model=ScriptedLlm([boom]))
    tracker = Tracker()
    with caplog.at_level(logging.ERROR, logger="steadyflow.plugins"):
        result = await run_turn(agent, "go", runner=runner_with(agent, Broken("broken"), tracker))

    assert result.error is boom
    assert tracker.agent_errors == [("a", boom)] and tracker.run_errors == [boom]
    logged = [r.getMessage() for r in caplog.records]
    assert any("'broken' raised in on_run_error_callback" in m for m in logged)
    assert any("'broken' raised in on_agent_error_callback" in m for m in logged)


async def test_a_run_that_succeeds_reports_no_error() -> None:
    agent = LlmAgent(name="a", model=ScriptedLlm(["ok"]))
    tracker = Tracker()
    result = await run_turn(agent, "go", runner=runner_with(agent, tracker))
    assert result.error is None
    assert (tracker.agent_errors, tracker.run_errors, tracker.cancelled) == ([], [], 0)
    assert tracker.after_run == 1


async def test_a_run_its_caller_stops_reading_is_reported_cancelled() -> None:
    agent = LlmAgent(name="a", model=ScriptedLlm(["first answer"]))
    tracker = Tracker()
    runner = runner_with(agent, tracker)
    session = await runner.create_session(user_id="u")
    events = runner.run_async(user_id="u", session_id=session.id, new_message="hi")
    await anext(events)  # the first event, then the caller goes away
    await events.aclose()

    assert tracker.cancelled == 1
    assert (tracker.run_errors, tracker.after_run) == ([], 0)


async def test_a_cancelled_task_is_reported_cancelled() -> None:
    started = asyncio.Event()

    async def wait_forever(callback_context: Any, llm_request: Any) -> None:
        started.set()
        await asyncio.Event().wait()

    agent = LlmAgent(name="a", model=ScriptedLlm(["never"]), before_model_callback=wait_forever)
    tracker = Tracker()
    task = asyncio.ensure_future(run_turn(agent, "go", runner=runner_with(agent, tracker)))
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert tracker.cancelled == 1 and tracker.run_errors == []


async def test_a_plugin_hook_that_raises_fails_the_run_naming_plugin_and_hook() -> None:
    class Faulty(BasePlugin):
        async def before_model_callback(self, **kwargs: Any) -> None:
            raise ZeroDivisionError("bad math")

    agent = LlmAgent(name="a", model=ScriptedLlm(["never"]))
    result = await run_turn(agent, "go", runner=runner_with(agent, Faulty("faulty")))

    assert isinstance(result.error, PluginError)
    assert (result.error.plugin_name, result.error.hook) == ("faulty", "before_model_callback")
    assert str(result.error) == (
        "plugin 'faulty' raised in before_model_callback: ZeroDivisionError: bad math"
    )
    assert isinstance(result.error.__cause__, ZeroDivisionError)


async def test_a_steadyflow_error_a_plugin_raises_on_purpose_keeps_its_type() -> None:
    class Tenants(BasePlugin):
        async def before_model_callback(self, **kwargs: Any) -> None:
            raise ConfigurationError("tenant 'acme' has no model configured")

    agent = LlmAgent(name="a", model=ScriptedLlm(["never"]))
    result = await run_turn(agent, "go", runner=runner_with(agent, Tenants("tenants")))

    assert type(result.error) is ConfigurationError
    assert "raised by plugin 'tenants' in before_model_callback" in result.error.__notes__


async def test_runner_close_closes_every_plugin_even_after_one_fails() -> None:
    class FailsToClose(BasePlugin):
        async def close(self) -> None:
            raise OSError("socket already gone")

    first, last = Tracker("first"), Tracker("last")
    agent = LlmAgent(name="a", model=ScriptedLlm([]))
    runner = runner_with(agent, first, FailsToClose("flaky"), last)

    with pytest.raises(PluginError) as caught:
        await runner.close()

    assert (first.closed, last.closed) == (1, 1)
    assert (caught.value.plugin_name, caught.value.hook) == ("flaky", "close")
    assert isinstance(caught.value.__cause__, OSError)


async def test_a_plugin_close_that_hangs_is_cut_at_the_timeout() -> None:
    class Hangs(BasePlugin):
        async def close(self) -> None:
            await asyncio.Event().wait()

    after = Tracker("after")
    agent = LlmAgent(name="a", model=ScriptedLlm([]))
    runner = runner_with(agent, Hangs("hangs"), after)
    runner.plugins.close_timeout = 0.01

    with pytest.raises(PluginError, match="'hangs' raised in close: TimeoutError"):
        await runner.close()
    assert after.closed == 1


def test_get_plugin_finds_a_plugin_by_name() -> None:
    tracker = Tracker("tracker")
    runner = runner_with(LlmAgent(name="a", model=ScriptedLlm([])), tracker)
    assert runner.plugins.get_plugin("tracker") is tracker
    assert runner.plugins.get_plugin("nope") is None


async def test_a_live_run_that_fails_is_reported_for_the_agent_and_the_run() -> None:
    class NoConnection(ScriptedLlm):
        def connect(self, request: Any) -> Any:
            raise ConnectionRefusedError("live endpoint down")

    agent = LlmAgent(name="a", model=NoConnection([]))
    tracker = Tracker()
    runner = runner_with(agent, tracker)
    session = await runner.create_session(user_id="u")
    queue = LiveRequestQueue()
    queue.close()
    with pytest.raises(ConnectionRefusedError) as caught:
        async for _ in runner.run_live(
            user_id="u", session_id=session.id, live_request_queue=queue
        ):
            pass
    assert tracker.agent_errors == [("a", caught.value)]
    assert tracker.run_errors == [caught.value]
