import pytest

from steadyflow import InvocationContext, LlmAgent, MissingStateKeyError
from steadyflow.flows.processors.instructions import fill_template
from steadyflow.testing import ScriptedLlm, run_turn


def test_placeholders_are_filled_from_state():
    state = {"name": "Ada", "app:tier": "gold"}
    assert fill_template("Hi {name} ({app:tier})", state, "a") == "Hi Ada (gold)"


def test_optional_placeholder_missing_becomes_empty():
    assert fill_template("Hi {name?}!", {}, "a") == "Hi !"


def test_missing_required_key_is_an_error_naming_it():
    with pytest.raises(MissingStateKeyError, match="'customer_id'") as info:
        fill_template("Customer {customer_id}", {}, "support")
    assert info.value.key == "customer_id"
    assert "support" in str(info.value)


def test_braces_that_are_not_names_are_left_alone():
    template = 'Reply as {"ok": true} or { spaced }'
    assert fill_template(template, {}, "a") == template


async def test_instruction_function_receives_the_context():
    def instruction(ctx: InvocationContext) -> str:
        return f"Session {ctx.session.id[:4]} says {{not_filled}}"

    model = ScriptedLlm(["ok"])
    await run_turn(LlmAgent(name="a", model=model, instruction=instruction), "q")
    assert "says {not_filled}" in (model.requests[0].config.system_instruction or "")


async def test_missing_state_key_fails_the_turn_before_any_model_call():
    model = ScriptedLlm(["never"])
    result = await run_turn(LlmAgent(name="a", model=model, instruction="Hi {who}"), "q")
    assert isinstance(result.error, MissingStateKeyError)
    assert model.calls == 0
