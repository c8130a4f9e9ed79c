"""A model response's fields reach its event, however the response was built."""

from steadyflow import Content, LlmAgent, UsageMetadata
from steadyflow.models import LlmResponse
from steadyflow.testing import ScriptedLlm, run_turn

# A value for every field of LlmResponse but ``content`` and ``partial``.
FIELDS = {
    "turn_complete": True,
    "finish_reason": "STOP",
    "usage_metadata": UsageMetadata(input_tokens=3, output_tokens=2, total_tokens=5),
    "custom_metadata": {"k": "v"},
    "model_version": "m-1",
    "response_id": "r-1",
    "service_tier": "standard",
    "grounding_metadata": {"q": ["x"]},
}


async def _stored_event(answer: LlmResponse):
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm([answer])), "hi")
    (event,) = [e for e in result.events if e.author == "a"]
    return event


def test_the_fields_listed_here_are_every_field_a_response_has_beyond_its_content():
    assert set(LlmResponse.model_fields) == {
        "content",
        "partial",
        "error_code",
        "error_message",
    } | set(FIELDS)


async def test_fields_assigned_after_the_response_was_built_reach_the_event():
    answer = LlmResponse(content=Content.from_text("ok", role="model"))
    for name, value in FIELDS.items():
        setattr(answer, name, value)
    event = await _stored_event(answer)
    assert {name: getattr(event, name) for name in FIELDS} == FIELDS


async def test_fields_given_to_a_copy_of_the_response_reach_the_event():
    answer = LlmResponse.from_text("ok").model_copy(update=FIELDS)
    event = await _stored_event(answer)
    assert {name: getattr(event, name) for name in FIELDS} == FIELDS


async def test_an_error_response_keeps_its_code_and_message_on_the_event():
    answer = LlmResponse(error_code="SAFETY")
    answer.error_message = "blocked"
    event = await _stored_event(answer)
    assert (event.error_code, event.error_message, event.content) == ("SAFETY", "blocked", None)
