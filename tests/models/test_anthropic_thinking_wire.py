"""Anthropic extended thinking on the wire: blocks in, the same blocks back, the budget out."""

from __future__ import annotations

import pytest

from steadyflow.errors import ConfigurationError
from steadyflow.models import LlmRequest
from steadyflow.models._anthropic_answer import Answer, response_from
from steadyflow.models._anthropic_wire import DEFAULT_MAX_TOKENS, EFFORT_BUDGETS, build_params
from steadyflow.types import Content, GenerateContentConfig, Part, ProviderData, ThinkingConfig

MODEL = "claude-x"
THINKING = {"type": "thinking", "thinking": "Check the order first.", "signature": "sig/abc=="}
REDACTED = {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va3pzix/LafPsn4a"}
CALL = {"type": "tool_use", "id": "toolu_1", "name": "lookup_order", "input": {"order_id": "812"}}


def answered(*blocks: dict[str, object]) -> Content:
    response = response_from(Answer(blocks=list(blocks), usage={}), "anthropic", MODEL)
    assert response.content is not None
    return response.content


def with_result(model_turn: Content) -> list[Content]:
    result = Part.from_function_response("lookup_order", {"status": "shipped"}, id="toolu_1")
    return [Content.from_text("Where is 812?"), model_turn, Content.from_parts(result)]


def test_thinking_blocks_become_thought_parts_with_their_signature_and_issuer() -> None:
    thought, redacted, call = answered(THINKING, REDACTED, CALL).parts
    issuer = ProviderData(provider="anthropic", model=MODEL)
    assert thought == Part(
        text="Check the order first.",
        thought=True,
        thought_signature=b"sig/abc==",
        provider_data=issuer,
    )
    assert redacted.thought and redacted.text is None
    assert redacted.provider_data == issuer.model_copy(update={"data": REDACTED})
    assert call.function_call is not None


def test_the_issuing_model_gets_its_thinking_blocks_back_unchanged_and_in_order() -> None:
    contents = with_result(answered(THINKING, REDACTED, CALL))
    messages = build_params(LlmRequest(contents=contents), MODEL)["messages"]
    assert messages[1] == {"role": "assistant", "content": [THINKING, REDACTED, CALL]}


def test_another_model_gets_neither_the_thoughts_nor_their_signatures() -> None:
    contents = with_result(answered(THINKING, REDACTED, CALL))
    messages = build_params(LlmRequest(contents=contents), "claude-other")["messages"]
    assert messages[1] == {"role": "assistant", "content": [CALL]}


def test_thoughts_without_a_signature_are_not_sent() -> None:
    turn = Content.from_parts(Part(text="musing", thought=True), role="model")
    assert build_params(LlmRequest(contents=[turn]), MODEL)["messages"] == []


def thinking_params(**config: object) -> dict[str, object]:
    return build_params(LlmRequest(contents=[], config=GenerateContentConfig(**config)), MODEL)


def test_a_budget_becomes_the_thinking_parameter_with_room_left_for_the_answer() -> None:
    params = thinking_params(thinking=ThinkingConfig(budget_tokens=2000))
    assert params["thinking"] == {"type": "enabled", "budget_tokens": 2000}
    assert params["max_tokens"] == 2000 + DEFAULT_MAX_TOKENS


@pytest.mark.parametrize("effort", ["minimal", "low", "medium", "high"])
def test_an_effort_alone_is_mapped_to_a_budget(effort: str) -> None:
    params = thinking_params(thinking=ThinkingConfig(effort=effort), max_output_tokens=32000)
    assert params["thinking"] == {"type": "enabled", "budget_tokens": EFFORT_BUDGETS[effort]}
    assert params["max_tokens"] == 32000


def test_a_zero_budget_turns_thinking_off() -> None:
    assert "thinking" not in thinking_params(thinking=ThinkingConfig(budget_tokens=0))


@pytest.mark.parametrize(
    ("config", "named"),
    [
        ({"thinking": ThinkingConfig(budget_tokens=500)}, "at least 1024"),
        ({"thinking": ThinkingConfig(budget_tokens=4096), "max_output_tokens": 4096}, "below"),
        ({"thinking": ThinkingConfig(effort="low"), "temperature": 0.2}, "temperature=0.2"),
        ({"thinking": ThinkingConfig(effort="low"), "top_k": 5}, "top_k=5"),
        ({"thinking": ThinkingConfig(effort="low"), "top_p": 0.5}, "top_p=0.5"),
    ],
)
def test_settings_the_api_refuses_with_thinking_are_a_configuration_error(
    config: dict[str, object], named: str
) -> None:
    with pytest.raises(ConfigurationError, match=named):
        thinking_params(**config)


def test_sampling_the_api_allows_with_thinking_is_sent() -> None:
    params = thinking_params(thinking=ThinkingConfig(effort="low"), temperature=1, top_p=0.95)
    assert params["extra_body"] == {"temperature": 1, "top_p": 0.95}


@pytest.mark.parametrize(
    ("model", "thinks"), [(MODEL, True), ("claude-other", False)], ids=["issuer", "other"]
)
def test_thinking_is_sent_only_where_the_tool_loop_opens_with_it(model: str, thinks: bool) -> None:
    contents = with_result(answered(THINKING, CALL))
    config = GenerateContentConfig(thinking=ThinkingConfig(budget_tokens=2048))
    params = build_params(LlmRequest(contents=contents, config=config), model)
    assert ("thinking" in params) is thinks


def test_a_new_user_message_opens_a_turn_that_thinks_again() -> None:
    contents = [*with_result(answered(CALL)), Content.from_text("And 913?")]
    config = GenerateContentConfig(thinking=ThinkingConfig(budget_tokens=2048))
    assert "thinking" in build_params(LlmRequest(contents=contents, config=config), MODEL)
