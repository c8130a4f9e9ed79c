"""MCP tool results as function responses: text, structured content, images, resources."""

import pytest
from mcp.types import (
    BlobResourceContents,
    CallToolResult,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

from steadyflow.errors import ToolResponseError
from steadyflow.tools.mcp import result_to_response


def test_text_blocks_are_joined_into_the_result():
    result = CallToolResult(content=[TextContent(text="a"), TextContent(text="b")])
    assert result_to_response("t", result) == {"result": "a\nb"}


def test_structured_content_is_the_response_and_its_text_copy_is_dropped():
    result = CallToolResult(content=[TextContent(text='{"n": 1}')], structured_content={"n": 1})
    assert result_to_response("t", result) == {"n": 1}


def test_images_and_resources_are_listed_as_content():
    result = CallToolResult(
        content=[
            TextContent(text="chart"),
            ImageContent(data="aGk=", mime_type="image/png"),
            EmbeddedResource(
                resource=TextResourceContents(uri="file:///a.txt", text="A", mime_type="text/plain")
            ),
            EmbeddedResource(resource=BlobResourceContents(uri="file:///b.bin", blob="AA==")),
            ResourceLink(uri="file:///c", name="c"),
        ]
    )
    assert result_to_response("t", result) == {
        "content": [
            {"type": "text", "text": "chart"},
            {"type": "image", "mime_type": "image/png", "data": "aGk="},
            {"type": "resource", "uri": "file:///a.txt", "mime_type": "text/plain", "text": "A"},
            {"type": "resource", "uri": "file:///b.bin", "blob": "AA=="},
            {"type": "resource_link", "uri": "file:///c", "name": "c"},
        ]
    }


def test_an_is_error_result_raises_with_the_servers_text_as_the_response():
    result = CallToolResult(content=[TextContent(text="no such city")], is_error=True)
    with pytest.raises(ToolResponseError) as raised:
        result_to_response("weather", result)
    assert raised.value.response == {"error": "no such city", "is_error": True}
