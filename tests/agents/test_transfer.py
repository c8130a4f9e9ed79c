"""AutoFlow: transfers between agents, flow choice, and who answers next."""

import pytest
from pydantic import BaseModel

from steadyflow import (
    AgentNotFoundError,
    AgentTransferError,
    ConfigurationError,
    Content,
    LlmAgent,
    LongRunningFunctionTool,
    Part,
    ToolContext,
)
from steadyflow.flows import AutoFlow, SingleFlow
from steadyflow.testing import ScriptedLlm, call, run_turn


def test_flow_choice_follows_the_transfer_rules():
    lone = LlmAgent(
        name="lone",
        model=ScriptedLlm([]),
        disallow_transfer_to_parent=True,
        disallow_transfer_to_peers=True,
    )
    assert isinstance(lone.flow, SingleFlow)
    assert isinstance(LlmAgent(name="open", model=ScriptedLlm([])).flow, AutoFlow)


async def test_root_transfers_to_a_sub_agent_which_continues_the_invocation():
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "billing"})])
    billing_model = ScriptedLlm(["Your invoice is paid."])
    billing = LlmAgent(name="billing", model=billing_model, description="Invoices.")
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])

    result = await run_turn(root, "Is my invoice paid?")

    assert result.error is None
    assert [e.author for e in result.events] == ["root", "root", "billing"]
    assert result.final_text == "Your invoice is paid."
    assert "billing: Invoices." in (root_model.requests[0].config.system_instruction or "")
    assert "transfer_to_agent" in root_model.requests[0].tool_names()
    # the sub-agent sees the user's question and the root's transfer as context
    assert billing_model.requests[0].contents[0].parts[0].text == "Is my invoice paid?"


async def test_next_turn_goes_to_the_agent_that_answered_last():
    billing_model = ScriptedLlm(["paid", "also paid"])
    billing = LlmAgent(name="billing", model=billing_model)
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "billing"})])
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])

    first = await run_turn(root, "invoice 1?")
    second = await run_turn(root, "invoice 2?", runner=first.runner, session_id=first.session_id)

    assert second.final_text == "also paid"
    assert root_model.calls == 1


async def test_agent_that_cannot_transfer_back_does_not_keep_the_conversation():
    billing = LlmAgent(
        name="billing", model=ScriptedLlm(["paid"]), disallow_transfer_to_parent=True
    )
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "billing"}), "root again"])
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])

    first = await run_turn(root, "q1")
    second = await run_turn(root, "q2", runner=first.runner, session_id=first.session_id)
    assert second.final_text == "root again"


async def test_sub_agent_can_transfer_to_a_peer():
    sales = LlmAgent(name="sales", model=ScriptedLlm(["sales here"]), description="Sales.")
    support = LlmAgent(
        name="support",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "sales"})]),
    )
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "support"})]),
        sub_agents=[support, sales],
    )
    result = await run_turn(root, "buy")
    assert result.final_text == "sales here"
    assert [e.author for e in result.events][-1] == "sales"


async def test_transfer_to_a_forbidden_agent_is_an_error_the_model_reads():
    sales = LlmAgent(name="sales", model=ScriptedLlm([]))
    support = LlmAgent(
        name="support",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "sales"}), "staying"]),
        disallow_transfer_to_peers=True,
    )
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "support"})]),
        sub_agents=[support, sales],
    )
    result = await run_turn(root, "buy")
    assert result.final_text == "staying"
    error = result.events[3].get_function_responses()[0].response["error"]
    assert error == "cannot transfer to 'sales'; agents you can transfer to: root"


async def test_include_contents_none_sees_only_the_current_turn():
    model = ScriptedLlm(["first answer", "second answer"])
    agent = LlmAgent(name="a", model=model, include_contents="none")
    first = await run_turn(agent, "first question")
    await run_turn(agent, "second question", runner=first.runner, session_id=first.session_id)

    second_request = model.requests[1]
    assert [c.text for c in second_request.contents] == ["second question"]


async def test_default_contents_replay_the_history():
    model = ScriptedLlm(["first answer", "second answer"])
    agent = LlmAgent(name="a", model=model)
    first = await run_turn(agent, "first question")
    await run_turn(agent, "second question", runner=first.runner, session_id=first.session_id)
    assert [c.text for c in model.requests[1].contents] == [
        "first question",
        "first answer",
        "second question",
    ]


class Verdict(BaseModel):
    approved: bool
    reason: str


async def test_output_schema_and_output_key_store_the_parsed_answer():
    model = ScriptedLlm(['{"approved": true, "reason": "ok"}'])
    agent = LlmAgent(name="judge", model=model, output_schema=Verdict, output_key="verdict")
    result = await run_turn(agent, "approve?")

    request = model.requests[0]
    assert request.config.response_mime_type == "application/json"
    assert request.config.response_schema == Verdict.model_json_schema()
    session = await result.stored_session()
    assert session.state["verdict"] == {"approved": True, "reason": "ok"}


async def test_sub_agent_without_a_model_uses_its_ancestors():
    model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "helper"}), "helped"])
    helper = LlmAgent(name="helper")
    root = LlmAgent(name="root", model=model, sub_agents=[helper])
    result = await run_turn(root, "help")
    assert result.final_text == "helped"
    assert helper.canonical_model is model


def hand_over(agent_name: str, tool_context: ToolContext) -> str:
    """A user tool that sets the transfer action itself.

    Args:
        agent_name: where to go.
    """
    tool_context.actions.transfer_to_agent = agent_name
    return "handing over"


async def test_a_user_tools_transfer_to_a_forbidden_peer_is_an_error_naming_both_agents():
    sales = LlmAgent(name="sales", model=ScriptedLlm(["never"]))
    support = LlmAgent(
        name="support",
        model=ScriptedLlm([call("hand_over", {"agent_name": "sales"})]),
        tools=[hand_over],
        disallow_transfer_to_peers=True,
    )
    root = LlmAgent(
        name="root",
        model=ScriptedLlm([call("transfer_to_agent", {"agent_name": "support"})]),
        sub_agents=[support, sales],
    )
    result = await run_turn(root, "buy")

    assert isinstance(result.error, AgentTransferError)
    assert (result.error.from_agent, result.error.to_agent) == ("support", "sales")
    assert "'support' may not transfer to 'sales'" in str(result.error)
    assert sales.canonical_model.calls == 0  # type: ignore[attr-defined]


async def test_a_callbacks_transfer_to_an_unknown_agent_names_both_agents():
    def reroute(tool, args, tool_context, tool_response):
        tool_context.actions.transfer_to_agent = "nobody"

    model = ScriptedLlm([call("hand_over", {"agent_name": "root"})])
    lone = LlmAgent(name="lone", model=model, tools=[hand_over], after_tool_callback=reroute)
    result = await run_turn(lone, "q")

    assert isinstance(result.error, AgentNotFoundError)
    assert "'lone' cannot transfer to 'nobody'" in str(result.error)


def test_a_user_tool_named_transfer_to_agent_is_refused_when_the_agent_is_built():
    def transfer_to_agent(agent_name: str) -> str:
        """My own transfer.

        Args:
            agent_name: where.
        """
        return agent_name

    with pytest.raises(ConfigurationError, match="'transfer_to_agent' is reserved"):
        LlmAgent(name="a", model=ScriptedLlm([]), tools=[transfer_to_agent])


async def test_a_long_running_result_is_answered_by_the_agent_that_made_the_call():
    def approve(amount: int) -> None:
        """Ask for approval.

        Args:
            amount: how much.
        """

    refunds_model = ScriptedLlm([call("approve", {"amount": 5}, id="c1"), "Refund done."])
    refunds = LlmAgent(
        name="refunds",
        model=refunds_model,
        tools=[LongRunningFunctionTool(approve)],
        disallow_transfer_to_parent=True,
    )
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "refunds"})])
    root = LlmAgent(name="root", model=root_model, sub_agents=[refunds])
    first = await run_turn(root, "refund 5")
    result = Content(
        role="user", parts=[Part.from_function_response("approve", {"ok": True}, id="c1")]
    )
    second = await run_turn(root, result, runner=first.runner, session_id=first.session_id)

    assert second.final_text == "Refund done."
    assert root_model.calls == 1


async def test_next_turn_walks_back_to_the_nearest_agent_that_may_keep_the_conversation():
    refunds = LlmAgent(
        name="refunds", model=ScriptedLlm(["refunded"]), disallow_transfer_to_parent=True
    )
    billing_model = ScriptedLlm(
        ["billing here", call("transfer_to_agent", {"agent_name": "refunds"}), "billing again"]
    )
    billing = LlmAgent(name="billing", model=billing_model, sub_agents=[refunds])
    root_model = ScriptedLlm([call("transfer_to_agent", {"agent_name": "billing"})])
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])

    first = await run_turn(root, "q1")
    ids = {"runner": first.runner, "session_id": first.session_id}
    second = await run_turn(root, "q2", **ids)
    third = await run_turn(root, "q3", **ids)

    assert [first.final_text, second.final_text] == ["billing here", "refunded"]
    assert third.final_text == "billing again"
    assert root_model.calls == 1


async def test_with_output_schema_a_whitespace_only_answer_saves_nothing():
    model = ScriptedLlm(["  \n "])
    agent = LlmAgent(name="judge", model=model, output_schema=Verdict, output_key="verdict")
    result = await run_turn(agent, "approve?")
    session = await result.stored_session()
    assert "verdict" not in session.state


async def test_a_model_callbacks_transfer_hands_over_under_the_same_rules():
    def route(callback_context, llm_response):
        callback_context.actions.transfer_to_agent = "billing"

    billing = LlmAgent(name="billing", model=ScriptedLlm(["billing here"]))
    root = LlmAgent(
        name="root",
        model=ScriptedLlm(["let me route you"]),
        sub_agents=[billing],
        after_model_callback=route,
    )
    result = await run_turn(root, "invoice?")
    assert [e.author for e in result.events] == ["root", "billing"]
    assert result.final_text == "billing here"

    lone = LlmAgent(name="lone", model=ScriptedLlm(["x"]), after_model_callback=route)
    failed = await run_turn(lone, "invoice?")
    assert isinstance(failed.error, AgentNotFoundError)
    assert "'lone' cannot transfer to 'billing'" in str(failed.error)


async def test_a_transfer_with_an_undeclared_transfer_reason_still_transfers():
    # Models prompted the ADK way send a reason the tool does not declare.
    args = {"agent_name": "billing", "transfer_reason": "billing question"}
    root_model = ScriptedLlm([call("transfer_to_agent", args)])
    billing = LlmAgent(name="billing", model=ScriptedLlm(["Your invoice is paid."]))
    root = LlmAgent(name="root", model=root_model, sub_agents=[billing])

    result = await run_turn(root, "Is my invoice paid?")

    assert result.error is None
    assert [e.author for e in result.events] == ["root", "root", "billing"]
    response = result.events[1].content.parts[0].function_response
    assert response is not None and response.response == {"transferred_to": "billing"}
    assert result.final_text == "Your invoice is paid."
