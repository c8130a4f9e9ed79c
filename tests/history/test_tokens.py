from steadyflow import Content, Event, Part, UsageMetadata
from steadyflow.history.tokens import (
    BLOB_TOKENS,
    CONTENT_OVERHEAD_TOKENS,
    content_tokens,
    entry_tokens,
    text_tokens,
)


def test_text_is_estimated_at_four_characters_a_token_rounded_up():
    assert [text_tokens(""), text_tokens("abcd"), text_tokens("abcde")] == [0, 1, 2]


def test_a_function_call_is_estimated_from_its_name_and_json_arguments():
    content = Content.from_parts(Part.from_function_call("find", {"id": 12345678}))
    # "find" -> 1, '{"id":12345678}' (15 chars) -> 4
    assert content_tokens(content) == CONTENT_OVERHEAD_TOKENS + 1 + 4


def test_inline_bytes_count_a_fixed_number_of_tokens():
    content = Content.from_parts(Part.from_bytes(b"\x89PNG" * 1000, "image/png"))
    assert content_tokens(content) == CONTENT_OVERHEAD_TOKENS + BLOB_TOKENS


def test_a_message_the_provider_reported_is_counted_with_the_reported_output_tokens():
    content = Content.from_text("short", role="model")
    usage = UsageMetadata(input_tokens=900, output_tokens=120, total_tokens=1020)
    event = Event(author="a", content=content, usage_metadata=usage)
    assert entry_tokens(event, content) == CONTENT_OVERHEAD_TOKENS + 120


def test_a_message_re_cast_for_another_agent_is_estimated():
    content = Content.from_text("short", role="model")
    usage = UsageMetadata(input_tokens=900, output_tokens=120, total_tokens=1020)
    event = Event(author="a", content=content, usage_metadata=usage)
    recast = Content.from_text("For context: [a] said: short")
    assert entry_tokens(event, recast) == content_tokens(recast)
