"""A resource's contents and a prompt's messages as blocks a turn carries (pure)."""

from __future__ import annotations

import base64

import pytest

from playground.mcp.catalog_convert import prompt_messages, resource_blocks


def _blob(mime: str, data: bytes) -> dict[str, str]:
    return {"uri": "x://a/b", "mimeType": mime, "blob": base64.b64encode(data).decode()}


@pytest.mark.parametrize(
    ("item", "kind", "source"),
    [
        ({"uri": "x://a/b", "text": "hi"}, "document", "text"),
        (_blob("image/png", b"\x89PNG"), "image", "base64"),
        (_blob("application/pdf", b"%PDF-1.4"), "document", "base64"),
        (_blob("text/csv", b"a,b\n1,2"), "document", "text"),
    ],
    ids=["text", "png", "pdf", "text-as-blob"],
)
def test_what_the_api_takes_becomes_its_block(item: dict, kind: str, source: str) -> None:
    [block] = resource_blocks([item], server="s")
    assert block["type"] == kind and block["source"]["type"] == source


@pytest.mark.parametrize(
    "item",
    [_blob("image/svg+xml", b"<svg onload='x'/>"), _blob("application/zip", b"PK\x03\x04")],
    ids=["svg", "zip"],
)
def test_what_it_cannot_take_is_described_not_dropped(item: dict) -> None:
    [block] = resource_blocks([item], server="s")
    assert block["type"] == "text" and item["mimeType"] in block["text"]


def test_a_document_names_its_resource_and_server() -> None:
    [block] = resource_blocks([{"uri": "x://a/notes.md", "text": ""}], server="docs")
    assert block["title"] == "notes.md"
    assert block["context"] == "MCP resource x://a/notes.md from server docs"
    assert block["source"]["data"] == " "  # the API refuses an empty text source


def test_a_prompt_keeps_its_roles_and_embeds_its_resource() -> None:
    result = {
        "messages": [
            {"role": "user", "content": {"type": "text", "text": "Look:"}},
            {
                "role": "user",
                "content": {"type": "resource", "resource": {"uri": "x://r", "text": "r"}},
            },
            {"role": "assistant", "content": {"type": "text", "text": "Seen."}},
        ]
    }
    messages = prompt_messages(result, server="s")
    assert [m["role"] for m in messages] == ["user", "user", "assistant"]
    assert messages[1]["content"][0]["type"] == "document"
