"""Runner plugins: hooks for every agent, before the agents' own, short-circuiting the same way."""

from typing import Any

import pytest

from steadyflow import (
    ConfigurationError,
    Content,
    Event,
    LlmAgent,
    PluginError,
    Runner,
    SequentialAgent,
)
from steadyflow.models import LlmResponse
from steadyflow.plugins import BasePlugin
from steadyflow.testing import ScriptedLlm, call, run_turn


def lookup(q: str) -> dict:
    """Look something up.

    Args:
        q: the query.
    """
    return {"found": q}


class Recorder(BasePlugin):
    """Writes down every hook it sees, in order."""

    def __init__(self, seen: list[str]) -> None:
        super().__init__("recorder")
        self.seen = seen

    async def before_run_callback(self, *, invocation_context: Any) -> None:
        self.seen.append("before_run")

    async def after_run_callback(self, *, invocation_context: Any) -> None:
        self.seen.append("after_run")

    async def before_agent_callback(self, *, callback_context: Any) -> None:
        self.seen.append(f"before_agent:{callback_context.agent_name}")

    async def after_agent_callback(self, *, callback_context: Any) -> None:
        self.seen.append(f"after_agent:{callback_context.agent_name}")

    def before_model_callback(self, *, callback_context: Any, llm_request: Any) -> None:
        self.seen.append(f"before_model:{callback_context.agent_name}")

    async def after_model_callback(self, *, callback_context: Any, llm_response: Any) -> None:
        self.seen.append("after_model")

    async def before_tool_callback(self, *, tool: Any, args: Any, tool_context: Any) -> None:
        self.seen.append(f"before_tool:{tool.name}")

    async def after_tool_callback(self, **kwargs: Any) -> None:
        self.seen.append("after_tool")


def runner_with(agent, *plugins) -> Runner:
    return Runner(app_name="app", agent=agent, session_service="memory://", plugins=list(plugins))


async def test_plugin_hooks_apply_to_every_agent_in_order():
    seen: list[str] = []
    pipeline = SequentialAgent(
        name="pipeline",
        sub_agents=[
            LlmAgent(
                name="a", model=ScriptedLlm([call("lookup", {"q": "x"}), "a done"]), tools=[lookup]
            ),
            LlmAgent(name="b", model=ScriptedLlm(["b done"])),
        ],
    )
    result = await run_turn(pipeline, "go", runner=runner_with(pipeline, Recorder(seen)))

    assert result.error is None
    assert seen == [
        "before_run",
        "before_agent:pipeline",
        "before_agent:a",
        "before_model:a",
        "after_model",
        "before_tool:lookup",
        "after_tool",
        "before_model:a",
        "after_model",
        "after_agent:a",
        "before_agent:b",
        "before_model:b",
        "after_model",
        "after_agent:b",
        "after_agent:pipeline",
        "after_run",
    ]


async def test_a_plugin_runs_before_the_agents_callback_and_its_answer_skips_it():
    order: list[str] = []

    class Cache(BasePlugin):
        async def before_model_callback(self, *, callback_context, llm_request):
            order.append("plugin")
            return LlmResponse.from_text("cached")

    def own(callback_context, llm_request):
        order.append("agent")

    model = ScriptedLlm([])
    agent = LlmAgent(name="a", model=model, before_model_callback=own)
    result = await run_turn(agent, "q", runner=runner_with(agent, Cache("cache")))

    assert result.final_text == "cached"
    assert order == ["plugin"]
    assert model.calls == 0


async def test_a_plugin_tool_hook_short_circuits_the_tool():
    class Deny(BasePlugin):
        async def before_tool_callback(self, *, tool, args, tool_context):
            return {"error": f"{tool.name} is not allowed"}

    model = ScriptedLlm([call("lookup", {"q": "x"}), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[lookup])
    result = await run_turn(agent, "q", runner=runner_with(agent, Deny("deny")))
    (response,) = result.events[1].get_function_responses()
    assert response.response == {"error": "lookup is not allowed"}


async def test_a_plugin_tool_error_hook_answers_for_a_failing_tool():
    def broken(q: str) -> dict:
        """Fails.

        Args:
            q: the query.
        """
        raise RuntimeError("down")

    class Fallback(BasePlugin):
        async def on_tool_error_callback(self, *, tool, args, tool_context, error):
            return {"fallback": str(error)}

    model = ScriptedLlm([call("broken", {"q": "x"}), "ok"])
    agent = LlmAgent(name="a", model=model, tools=[broken])
    result = await run_turn(agent, "q", runner=runner_with(agent, Fallback("fallback")))
    assert result.events[1].get_function_responses()[0].response == {"fallback": "down"}


async def test_before_run_content_answers_for_the_whole_invocation():
    class Maintenance(BasePlugin):
        async def before_run_callback(self, *, invocation_context):
            return Content.from_text("Down for maintenance.")

    model = ScriptedLlm([])
    agent = LlmAgent(name="a", model=model)
    result = await run_turn(agent, "q", runner=runner_with(agent, Maintenance("m")))
    assert [(e.author, e.text) for e in result.events] == [("a", "Down for maintenance.")]
    session = await result.stored_session()
    assert session.events[1].text == "Down for maintenance."


async def test_on_event_replaces_the_event_before_it_is_stored_and_yielded():
    class Redact(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event: Event):
            if event.text:
                return event.model_copy(update={"content": Content.from_text("[redacted]")})
            return None

    agent = LlmAgent(name="a", model=ScriptedLlm(["card 4111"]))
    result = await run_turn(agent, "q", runner=runner_with(agent, Redact("redact")))
    assert result.final_text == "[redacted]"
    session = await result.stored_session()
    assert session.events[1].text == "[redacted]"


def test_plugins_must_be_base_plugins_with_unique_names():
    agent = LlmAgent(name="a", model=ScriptedLlm([]))
    with pytest.raises(ValueError, match="two plugins are named 'p'"):
        runner_with(agent, BasePlugin("p"), BasePlugin("p"))
    with pytest.raises(ValueError, match="must be BasePlugin instances"):
        runner_with(agent, object())


async def test_an_event_returned_by_on_event_keeps_the_originals_identity():
    class Rewrite(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event: Event):
            if event.author != "user":
                self.original = event
                return Event(author="", content=Content.from_text("[rewritten]"))
            return None

    plugin = Rewrite("rewrite")
    agent = LlmAgent(name="a", model=ScriptedLlm(["hello"]))
    result = await run_turn(agent, "q", runner=runner_with(agent, plugin))

    [event] = result.events
    assert event.text == "[rewritten]"
    original = plugin.original
    assert (event.id, event.author, event.invocation_id, event.timestamp) == (
        original.id,
        "a",
        original.invocation_id,
        original.timestamp,
    )
    stored = (await result.stored_session()).events[1]
    assert (stored.id, stored.author, stored.text) == (original.id, "a", "[rewritten]")


async def test_on_event_returning_something_else_than_an_event_is_a_clear_error():
    class Wrong(BasePlugin):
        async def on_event_callback(self, *, invocation_context, event: Event):
            return {"text": "not an event"}

    agent = LlmAgent(name="a", model=ScriptedLlm(["hello"]))
    result = await run_turn(agent, "q", runner=runner_with(agent, Wrong("wrong")))
    assert isinstance(result.error, ConfigurationError)
    assert "on_event_callback must return an Event or None, got dict" in str(result.error)


class AdkStyle(BasePlugin):
    """A plugin written against ADK's BasePlugin signatures."""

    def __init__(self, seen: list[Any]) -> None:
        super().__init__("adk_style")
        self.seen = seen

    async def before_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self.seen.append(("before_agent", agent.name, callback_context.agent_name))

    async def after_agent_callback(self, *, agent: Any, callback_context: Any) -> None:
        self.seen.append(("after_agent", agent.name))

    async def before_tool_callback(self, *, tool: Any, tool_args: dict, tool_context: Any) -> None:
        self.seen.append(("before_tool", tool.name, tool_args))

    async def after_tool_callback(
        self, *, tool: Any, tool_args: dict, tool_context: Any, result: dict
    ) -> dict:
        self.seen.append(("after_tool", tool_args, result))
        return {"found": "rewritten"}

    async def on_tool_error_callback(
        self, *, tool: Any, tool_args: dict, tool_context: Any, error: Exception
    ) -> dict:
        self.seen.append(("tool_error", tool.name, tool_args, type(error).__name__))
        return {"handled": True}


async def test_a_plugin_written_with_adks_hook_signatures_runs_unchanged():
    seen: list[Any] = []
    model = ScriptedLlm([call("lookup", {"q": "812"}), call("missing_tool", {"x": 1}), "done"])
    agent = LlmAgent(name="a", model=model, tools=[lookup])
    result = await run_turn(agent, "q", runner=runner_with(agent, AdkStyle(seen)))

    assert result.error is None
    assert seen == [
        ("before_agent", "a", "a"),
        ("before_tool", "lookup", {"q": "812"}),
        ("after_tool", {"q": "812"}, {"found": "812"}),
        ("tool_error", "missing_tool", {"x": 1}, "ToolNotFoundError"),
        ("after_agent", "a"),
    ]
    responses = [r.response for e in result.events for r in e.get_function_responses()]
    assert responses == [{"found": "rewritten"}, {"handled": True}]


async def test_an_adk_style_hook_that_raises_is_named_in_the_error():
    class Failing(BasePlugin):
        async def before_tool_callback(self, *, tool, tool_args, tool_context):
            raise LookupError(f"no policy for {tool_args['q']}")

    agent = LlmAgent(name="a", model=ScriptedLlm([call("lookup", {"q": "812"})]), tools=[lookup])
    result = await run_turn(agent, "q", runner=runner_with(agent, Failing("policy")))
    assert isinstance(result.error, PluginError)
    assert (result.error.plugin_name, result.error.hook) == ("policy", "before_tool_callback")
    assert "no policy for 812" in str(result.error)
