import pytest

from steadyflow import LlmAgent
from steadyflow.errors import ConfigurationError
from steadyflow.testing import ScriptedLlm
from steadyflow.testing.harness import run_turn


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"name": "has space"}, "identifier"),
        ({"name": "user"}, "reserved"),
        ({"name": "a", "include_contents": "some"}, "include_contents"),
        ({"name": "a", "model": 42}, "model must be"),
        ({"name": "a", "tools": [42]}, "tools must be"),
    ],
)
def test_bad_arguments_are_rejected_naming_what_is_wrong(kwargs, message):
    with pytest.raises(ValueError, match=message):
        LlmAgent(**kwargs)


def test_duplicate_tool_names_are_rejected():
    def f() -> None:
        """F."""

    with pytest.raises(ValueError, match="two tools named 'f'"):
        LlmAgent(name="a", model=ScriptedLlm([]), tools=[f, f])


def test_an_agent_cannot_have_two_parents():
    child = LlmAgent(name="child")
    LlmAgent(name="p1", sub_agents=[child])
    with pytest.raises(ValueError, match="already has parent 'p1'"):
        LlmAgent(name="p2", sub_agents=[child])


def test_agent_without_any_model_says_so():
    with pytest.raises(ValueError, match="has no model"):
        _ = LlmAgent(name="a").canonical_model


async def test_a_model_assigned_after_construction_answers_the_next_turn():
    first, second = ScriptedLlm(["from the first"]), ScriptedLlm(["from the second"])
    agent = LlmAgent(name="helpdesk", instruction="Help.")
    agent.model = first
    assert (await run_turn(agent, "hi")).final_text == "from the first"
    agent.model = second
    assert (await run_turn(agent, "again")).final_text == "from the second"
    assert (len(first.requests), len(second.requests)) == (1, 1)


def test_assigning_something_that_is_no_model_is_refused_naming_the_agent():
    agent = LlmAgent(name="helpdesk", model=ScriptedLlm([]))
    with pytest.raises(ConfigurationError, match="agent 'helpdesk': model must be"):
        agent.model = 42
    assert isinstance(agent.model, ScriptedLlm)
