"""Pure conversions: tools/list into legal, unique Messages API tools (the mapping kept), and
CallToolResult into tool_result content."""

from __future__ import annotations

import base64
import json
import re

import pytest

from playground.mcp.convert import messages_tools, result_content


def test_tools_become_messages_tools_with_their_schema_and_origin() -> None:
    tools = [
        {
            "name": "get_current_time",
            "description": "Now",
            "inputSchema": {"type": "object", "properties": {"tz": {"type": "string"}}},
        }
    ]
    (tool,) = messages_tools("time", tools)
    assert tool.tool == {
        "name": "time__get_current_time",
        "description": "Now",
        "input_schema": {"type": "object", "properties": {"tz": {"type": "string"}}},
    }
    assert (tool.server, tool.mcp_name) == ("time", "get_current_time")


def test_names_are_made_legal_and_unique() -> None:
    tools = [{"name": "a.b c"}, {"name": "a/b:c"}, {"name": "x" * 100}, {"name": ""}]
    out = messages_tools("my server!", tools, taken=frozenset({"my_server__a_b_c"}))
    names = [tool.name for tool in out]
    # The Messages API's rule for a tool's name.
    assert all(re.fullmatch(r"[a-zA-Z0-9_-]{1,64}", name) for name in names), names
    assert len(set(names)) == len(names)
    assert "my_server__a_b_c" not in names  # taken by another tool of the conversation
    assert [tool.mcp_name for tool in out] == ["a.b c", "a/b:c", "x" * 100, ""]


def test_a_tool_without_schema_gets_an_empty_object_schema() -> None:
    (tool,) = messages_tools("s", [{"name": "t"}])
    assert tool.tool["input_schema"] == {"type": "object"}


PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n....").decode()
TEXT_RESOURCE = {"uri": "file:///a", "mimeType": "text/plain", "text": "A"}
BLOB_RESOURCE = {"uri": "file:///b", "mimeType": "application/zip", "blob": PNG}
LINK = {"type": "resource_link", "uri": "file:///c", "name": "c", "mimeType": "text/x"}
LINK["description"] = "See c"


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        pytest.param({"type": "text", "text": "hi"}, {"type": "text", "text": "hi"}, id="text"),
        pytest.param(
            {"type": "image", "data": PNG, "mimeType": "image/png"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
            id="image",
        ),
        pytest.param(
            {"type": "image", "data": PNG, "mimeType": "image/bmp"},
            {"type": "text", "text": "[image (image/bmp, 12 bytes) not shown]"},
            id="image-other-type",
        ),
        pytest.param(
            {"type": "audio", "data": PNG, "mimeType": "audio/wav"},
            {"type": "text", "text": "[audio (audio/wav, 12 bytes) not shown]"},
            id="audio",
        ),
        pytest.param(
            {"type": "resource", "resource": TEXT_RESOURCE},
            {"type": "text", "text": "resource file:///a (text/plain)\nA"},
            id="embedded-text",
        ),
        pytest.param(
            {"type": "resource", "resource": BLOB_RESOURCE},
            {"type": "text", "text": "[resource file:///b (application/zip, 12 bytes) not shown]"},
            id="embedded-blob",
        ),
        pytest.param(
            LINK,
            {"type": "text", "text": "resource link: c file:///c (text/x)\nSee c"},
            id="resource-link",
        ),
    ],
)
def test_each_content_kind(item: dict, expected: dict) -> None:
    assert result_content({"content": [item]}).content == [expected]


def test_structured_content_is_added_as_json_unless_a_text_says_it() -> None:
    data = {"temperature": 21, "city": "Paris"}
    alone = result_content({"content": [], "structuredContent": data})
    assert [json.loads(block["text"]) for block in alone.content] == [data]
    said = result_content(
        {"content": [{"type": "text", "text": json.dumps(data)}], "structuredContent": data}
    )
    assert len(said.content) == 1


def test_is_error_becomes_is_error() -> None:
    converted = result_content({"content": [{"type": "text", "text": "no"}], "isError": True})
    assert converted.is_error
    assert converted.content == [{"type": "text", "text": "no"}]
    assert not result_content({"content": []}).is_error
