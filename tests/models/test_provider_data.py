from steadyflow import Content, Event, Part, ProviderData, ThinkingConfig, UsageMetadata
from steadyflow.models._provider_data import own_parts
from steadyflow.types import GenerateContentConfig

GEMINI = ProviderData(provider="gemini", model="gemini-3-pro-preview")


def _signed_call() -> Part:
    return Part.from_function_call("f", {"a": 1}, id="c1").model_copy(
        update={"thought_signature": b"\x00sig", "provider_data": GEMINI}
    )


def test_a_signature_survives_a_json_round_trip_as_base64():
    event = Event(author="a", content=Content(role="model", parts=[_signed_call()]))
    text = event.model_dump_json()
    assert '"thought_signature":"AHNpZw=="' in text
    assert Event.model_validate_json(text) == event


def test_an_old_stored_part_without_the_new_fields_still_loads():
    part = Part.model_validate_json('{"text": "hi", "thought": null}')
    assert part.thought_signature is None and part.provider_data is None


def test_the_issuing_model_gets_its_signature_back():
    content = Content(role="model", parts=[_signed_call()])
    assert own_parts(content, "gemini", "gemini-3-pro-preview") == content.parts


def test_another_model_gets_the_call_without_the_signature():
    (part,) = own_parts(Content(role="model", parts=[_signed_call()]), "gemini", "gemini-2.5-pro")
    assert part.function_call is not None and part.function_call.name == "f"
    assert part.thought_signature is None and part.provider_data is None


def test_another_providers_thought_is_dropped():
    thought = Part(
        text="thinking...",
        thought=True,
        thought_signature=b"s",
        provider_data=ProviderData(provider="anthropic", model="claude-sonnet-4-5"),
    )
    content = Content(role="model", parts=[thought, Part(text="answer")])
    assert own_parts(content, "openai", "gpt-4o") == [Part(text="answer")]


def test_a_part_of_opaque_data_only_is_dropped_for_another_model():
    redacted = Part(
        provider_data=ProviderData(
            provider="anthropic", model="claude-sonnet-4-5", data={"redacted_thinking": "xyz"}
        )
    )
    content = Content(role="model", parts=[redacted])
    assert own_parts(content, "anthropic", "claude-opus-4-1") == []
    assert own_parts(content, "anthropic", "claude-sonnet-4-5") == [redacted]


def test_usage_categories_default_to_unreported():
    usage = UsageMetadata(input_tokens=10, output_tokens=5, total_tokens=15)
    assert (usage.cached_input_tokens, usage.cache_write_tokens) == (None, None)
    assert (usage.reasoning_tokens, usage.tool_use_prompt_tokens) == (None, None)


def test_thinking_config_travels_in_the_generation_config():
    thinking = ThinkingConfig(budget_tokens=1024, include_thoughts=True)
    config = GenerateContentConfig(thinking=thinking)
    assert GenerateContentConfig.model_validate_json(config.model_dump_json()) == config


async def test_response_metadata_reaches_the_stored_event():
    from steadyflow import LlmAgent
    from steadyflow.models import LlmResponse
    from steadyflow.testing import ScriptedLlm, run_turn

    answer = LlmResponse.from_text(
        "cited",
        response_id="msg_01",
        service_tier="standard",
        grounding_metadata={"webSearchQueries": ["q"]},
    )
    result = await run_turn(LlmAgent(name="a", model=ScriptedLlm([answer])), "hi")
    (event,) = [e for e in result.events if e.author == "a"]
    assert (event.response_id, event.service_tier) == ("msg_01", "standard")
    assert event.grounding_metadata == {"webSearchQueries": ["q"]}


def test_a_part_of_only_a_signature_or_empty_text_has_no_payload():
    assert not Part(thought_signature=b"s", provider_data=GEMINI).has_payload()
    assert not Part(text="").has_payload()
    assert Part(text="x").has_payload() and _signed_call().has_payload()
