"""The Responses API mapping on its own: request parameters, and answers in the SDK's types."""

from __future__ import annotations

from typing import Any

import pytest
from openai.types.responses import Response

from steadyflow.models import LlmRequest
from steadyflow.models._responses_wire import build_params, response_from
from steadyflow.types import (
    Content,
    FunctionDeclaration,
    GenerateContentConfig,
    Part,
    ProviderData,
    ThinkingConfig,
)

MODEL = "o4-mini"


def params(*contents: Content, store: bool = False, **config: Any) -> dict[str, Any]:
    request = LlmRequest(contents=list(contents), config=GenerateContentConfig(**config))
    return build_params(request, MODEL, store=store, service_tier=None)


def reasoning(item_id: str, encrypted: str | None = "enc", model: str = MODEL) -> Part:
    data = {"id": item_id, "encrypted_content": encrypted}
    return Part(
        thought=True,
        text="thinking",
        provider_data=ProviderData(provider="openai-responses", model=model, data=data),
    )


def test_history_becomes_items_in_order_with_calls_and_outputs_paired_by_call_id() -> None:
    sent = params(
        Content.from_text("Where is 812?"),
        Content.from_parts(
            reasoning("rs_1"),
            Part.from_text("Checking."),
            Part.from_function_call("lookup", {"id": "812"}, id="call_1"),
            role="model",
        ),
        Content.from_parts(Part.from_function_response("lookup", {"ok": True}, id="call_1")),
        system_instruction="Be brief.",
    )
    assert sent["instructions"] == "Be brief."
    assert sent["input"] == [
        {
            "type": "message",
            "role": "user",
            "content": [{"type": "input_text", "text": "Where is 812?"}],
        },
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "thinking"}],
            "encrypted_content": "enc",
        },
        {"type": "message", "role": "assistant", "content": "Checking."},
        {
            "type": "function_call",
            "call_id": "call_1",
            "name": "lookup",
            "arguments": '{"id": "812"}',
        },
        {"type": "function_call_output", "call_id": "call_1", "output": '{"ok": true}'},
    ]


def test_reasoning_without_what_finds_it_again_is_not_sent() -> None:
    model_turn = Content.from_parts(reasoning("rs_1", None), Part.from_text("Hi."), role="model")
    assert [i["type"] for i in params(model_turn)["input"]] == ["message"]
    assert [i["type"] for i in params(model_turn, store=True)["input"]] == ["reasoning", "message"]
    other = Content.from_parts(reasoning("rs_2", model="o3"), Part.from_text("Hi."), role="model")
    assert [i["type"] for i in params(other)["input"]] == ["message"]


def test_reasoning_with_nothing_after_it_in_its_turn_is_not_sent() -> None:
    cut_short = Content.from_parts(
        reasoning("rs_1"), role="model"
    )  # e.g. MAX_TOKENS while thinking
    sent = params(Content.from_text("hi"), cut_short, Content.from_text("go on"))
    assert [i["type"] for i in sent["input"]] == ["message", "message"]


@pytest.mark.parametrize(
    ("thinking", "reasoning_param"),
    [
        (ThinkingConfig(effort="high"), {"effort": "high"}),
        (ThinkingConfig(budget_tokens=0), {"effort": "minimal"}),
        (
            ThinkingConfig(budget_tokens=1024, include_thoughts=True),
            {"effort": "low", "summary": "auto"},
        ),
        (ThinkingConfig(budget_tokens=32000), {"effort": "high"}),
    ],
)
def test_thinking_becomes_reasoning_effort_and_summary(
    thinking: ThinkingConfig, reasoning_param: dict[str, str]
) -> None:
    sent = params(Content.from_text("hi"), thinking=thinking)
    assert sent["reasoning"] == reasoning_param
    assert sent["include"] == ["reasoning.encrypted_content"]


def test_encrypted_content_is_asked_for_only_when_nothing_is_stored_and_the_model_reasons() -> None:
    request = LlmRequest(contents=[Content.from_text("hi")])
    assert "include" not in build_params(request, "gpt-4.1", store=False, service_tier=None)
    assert "include" not in build_params(request, MODEL, store=True, service_tier=None)
    assert build_params(request, MODEL, store=False, service_tier=None)["store"] is False


def test_tools_are_sent_non_strict_and_output_schema_as_text_format() -> None:
    tool = FunctionDeclaration(name="lookup", description="d")
    sent = params(Content.from_text("hi"), tools=[tool], response_schema={"type": "object"})
    assert sent["tools"] == [
        {
            "type": "function",
            "name": "lookup",
            "description": "d",
            "parameters": tool.parameters,
            "strict": False,
        }
    ]
    assert sent["text"] == {
        "format": {"type": "json_schema", "name": "response", "schema": {"type": "object"}}
    }


def answer(*output: dict[str, Any], **fields: Any) -> Response:
    return Response.model_validate(
        {
            "id": "resp_1",
            "object": "response",
            "created_at": 1,
            "model": "o4-mini-2025",
            "output": list(output),
            "parallel_tool_calls": True,
            "tool_choice": "auto",
            "tools": [],
            "status": "completed",
            **fields,
        }
    )


def message(*content: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "m",
        "type": "message",
        "role": "assistant",
        "status": "completed",
        "content": list(content),
    }


def test_a_refusal_alone_is_an_error_with_the_refusal_as_message() -> None:
    got = response_from(answer(message({"type": "refusal", "refusal": "I can't."})), MODEL)
    assert (got.content, got.error_code, got.error_message) == (None, "REFUSAL", "I can't.")


def test_arguments_that_are_not_a_json_object_are_a_malformed_call() -> None:
    call = {"type": "function_call", "call_id": "c", "name": "lookup", "arguments": "[1"}
    got = response_from(answer(call), MODEL)
    assert got.error_code == "MALFORMED_FUNCTION_CALL" and "lookup" in (got.error_message or "")


def test_url_citations_are_kept_on_the_text_part() -> None:
    cite = {
        "type": "url_citation",
        "url": "https://x.test",
        "title": "X",
        "start_index": 0,
        "end_index": 5,
    }
    text = {"type": "output_text", "text": "Paris is the capital.", "annotations": [cite]}
    (part,) = response_from(answer(message(text)), MODEL).content.parts
    (citation,) = part.citations
    assert (citation.type, citation.url, citation.title, citation.cited_text) == (
        "url_citation",
        "https://x.test",
        "X",
        "Paris",
    )


@pytest.mark.parametrize(
    ("reason", "finish"), [("max_output_tokens", "MAX_TOKENS"), ("content_filter", "SAFETY")]
)
def test_an_incomplete_response_reports_why(reason: str, finish: str) -> None:
    got = response_from(answer(status="incomplete", incomplete_details={"reason": reason}), MODEL)
    assert (got.finish_reason, got.error_code) == (finish, finish)
    assert (got.response_id, got.model_version) == ("resp_1", "o4-mini-2025")
