import pytest
from pydantic import ValidationError

from steadyflow import Content, Event, FunctionCall, Part
from steadyflow.models import LlmRequest, LlmResponse
from steadyflow.types import FunctionDeclaration, GenerateContentConfig


def test_request_round_trips_through_json():
    request = LlmRequest(
        model="m",
        contents=[
            Content.from_text("hi"),
            Content(role="model", parts=[Part.from_function_call("f", {"a": 1}, id="c1")]),
            Content(role="user", parts=[Part.from_function_response("f", {"r": 2}, id="c1")]),
            Content(role="user", parts=[Part.from_bytes(b"\x89PNG", "image/png")]),
        ],
        config=GenerateContentConfig(
            system_instruction="be brief",
            temperature=0.2,
            max_output_tokens=64,
            stop_sequences=["END"],
            tools=[FunctionDeclaration(name="f", description="d")],
        ),
    )
    assert LlmRequest.model_validate_json(request.model_dump_json()) == request


def test_response_round_trips_through_json():
    response = LlmResponse.from_text("ok", finish_reason="STOP", custom_metadata={"k": 1})
    assert LlmResponse.model_validate_json(response.model_dump_json()) == response


def test_unknown_field_is_rejected_naming_it():
    with pytest.raises(ValidationError, match="colour"):
        Part(text="x", colour="red")  # type: ignore[call-arg]


def test_content_text_skips_thoughts_and_non_text_parts():
    content = Content(
        role="model",
        parts=[Part(text="a"), Part(text="hidden", thought=True), Part.from_function_call("f")],
    )
    assert content.text == "a"


def test_event_final_response_rules():
    call = Event(
        author="a",
        content=Content(role="model", parts=[Part(function_call=FunctionCall(name="f"))]),
    )
    text = Event(author="a", content=Content.from_text("done", role="model"))
    partial = Event(author="a", content=Content.from_text("do", role="model"), partial=True)
    assert not call.is_final_response()
    assert text.is_final_response()
    assert not partial.is_final_response()
