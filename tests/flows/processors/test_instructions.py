import pytest

from steadyflow import InMemoryRunner, LlmAgent, MissingStateKeyError
from steadyflow.context import ReadonlyContext
from steadyflow.flows.processors._instructions import fill_template
from steadyflow.testing import ScriptedLlm, call, run_turn


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
    template = 'Reply as {"ok": true} or {two words} or {1st}'
    assert fill_template(template, {}, "a") == template


def test_placeholders_with_whitespace_inside_the_braces_are_filled():
    state = {"customer_id": "C-7"}
    assert fill_template("for { customer_id }.", state, "a") == "for C-7."
    assert fill_template("[{customer_id? }][{ missing ? }]", state, "a") == "[C-7][]"
    with pytest.raises(MissingStateKeyError, match="'missing'"):
        fill_template("{ missing }", state, "a")


async def test_instruction_function_receives_a_readonly_context():
    def instruction(context: ReadonlyContext) -> str:
        assert context.agent_name == "a"
        with pytest.raises(TypeError):
            context.state["x"] = 1  # type: ignore[index]
        return f"Session {context.session.id[:4]} says {{not_filled}}"

    model = ScriptedLlm(["ok"])
    await run_turn(LlmAgent(name="a", model=model, instruction=instruction), "q")
    assert "says {not_filled}" in (model.requests[0].config.system_instruction or "")


async def test_async_instruction_provider_reads_state():
    async def instruction(context: ReadonlyContext) -> str:
        return f"Tier: {context.state.get('tier', 'none')}"

    model = ScriptedLlm(["ok"])
    await run_turn(LlmAgent(name="a", model=model, instruction=instruction), "q")
    assert "Tier: none" in (model.requests[0].config.system_instruction or "")


async def test_root_global_instruction_comes_first_for_every_agent_of_the_tree():
    child_model = ScriptedLlm(["done"])
    child = LlmAgent(name="child", model=child_model, instruction="Be the child.")
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "child"})])
    root = LlmAgent(
        name="root",
        model=root_model,
        instruction="Route.",
        global_instruction=lambda context: f"House rules for {context.agent_name}.",
        sub_agents=[child],
    )
    await run_turn(root, "q")
    root_system = root_model.requests[0].config.system_instruction or ""
    child_system = child_model.requests[0].config.system_instruction or ""
    assert root_system.startswith("House rules for root.\n\nRoute.")
    assert child_system.startswith("House rules for child.\n\nBe the child.")


async def test_missing_state_key_fails_the_turn_before_any_model_call():
    model = ScriptedLlm(["never"])
    result = await run_turn(LlmAgent(name="a", model=model, instruction="Hi {who}"), "q")
    assert isinstance(result.error, MissingStateKeyError)
    assert model.calls == 0


async def test_doubled_braces_around_a_name_render_the_bare_value_as_adk_does():
    model = ScriptedLlm(["ok"])
    agent = LlmAgent(
        name="a", model=model, instruction="Customer is {{customer_int  } and {{tier}}."
    )
    runner = InMemoryRunner(agent)
    session = await runner.create_session(user_id="u", state={"customer_int": 30, "tier": "gold"})
    await run_turn(agent, "q", runner=runner, session_id=session.id, user_id="u")
    assert "Customer is 30 and gold." in (model.requests[0].config.system_instruction or "")


async def test_an_instruction_provider_reads_the_user_id():
    def instruction(context: ReadonlyContext) -> str:
        return f"You serve user {context.user_id}."

    model = ScriptedLlm(["ok"])
    await run_turn(LlmAgent(name="a", model=model, instruction=instruction), "q", user_id="u-42")
    assert "You serve user u-42." in (model.requests[0].config.system_instruction or "")
