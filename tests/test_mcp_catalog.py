"""A server's resources and prompts (issue 48, item 4), on real servers: server-everything
(stdio and Streamable HTTP) lists its resources and templates, reads them as blocks to attach,
fills its prompts, and tells a watcher of a subscribed resource's update; a hostile server's
markup stays text and its secret never leaves it."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

import pytest
from django.test import AsyncClient

from playground.mcp import catalog
from playground.mcp.call_stream import call_values
from playground.mcp.config import ServerConfig
from playground.mcp.connection import Connection
from playground.mcp.manager import close_mcp_manager
from playground.protocol.errors import McpCallFailed
from tests.mcp_support import everything_over_http, everything_stdio, hostile_catalog

ARCHITECTURE = "demo://resource/static/document/architecture.md"


@pytest.fixture
async def everything() -> AsyncIterator[Connection]:
    connection = Connection(everything_stdio())
    yield connection
    await connection.close()


async def test_resources_and_templates_are_listed(everything: Connection) -> None:
    listing = await catalog.list_resources(everything, timeout=30)
    assert listing["offered"] and listing["subscribe"]
    assert ARCHITECTURE in [r["uri"] for r in listing["resources"]]
    templates = [t["uriTemplate"] for t in listing["templates"]]
    assert "demo://resource/dynamic/text/{resourceId}" in templates


async def test_a_text_resource_reads_as_a_document_block(everything: Connection) -> None:
    read = await catalog.read_resource(
        everything, uri=ARCHITECTURE, name="architecture.md", timeout=30
    )
    [block] = read["blocks"]
    assert block["type"] == "document" and block["title"] == "architecture.md"
    assert block["source"]["type"] == "text"
    assert block["source"]["data"].startswith("# Everything Server")
    assert "from server everything" in block["context"]


async def test_a_template_filled_reads_and_a_text_blob_is_text(everything: Connection) -> None:
    text = await catalog.read_resource(everything, uri="demo://resource/dynamic/text/7", timeout=30)
    assert "7" in text["blocks"][0]["source"]["data"]
    blob = await catalog.read_resource(everything, uri="demo://resource/dynamic/blob/7", timeout=30)
    [document] = blob["blocks"]  # text/plain sent as base64: read as text
    assert document["type"] == "document"
    assert document["source"]["data"].startswith("Resource 7: This is a base64 blob")


async def test_a_prompt_is_filled_with_its_arguments(everything: Connection) -> None:
    listed = await catalog.list_prompts(everything, timeout=30)
    args = next(p for p in listed["prompts"] if p["name"] == "args-prompt")
    assert [a["name"] for a in args["arguments"]] == ["city", "state"]
    got = await catalog.get_prompt(
        everything, name="args-prompt", arguments={"city": "Lyon"}, timeout=30
    )
    [message] = got["messages"]
    assert message["role"] == "user"
    assert "Lyon" in message["content"][0]["text"]


async def test_a_prompt_embedding_a_resource_carries_it_as_a_document(
    everything: Connection,
) -> None:
    got = await catalog.get_prompt(
        everything,
        name="resource-prompt",
        arguments={"resourceType": "Text", "resourceId": "3"},
        timeout=30,
    )
    kinds = [block["type"] for m in got["messages"] for block in m["content"]]
    assert "document" in kinds


async def test_a_prompt_refused_by_its_server_is_named(everything: Connection) -> None:
    with pytest.raises(McpCallFailed) as refused:
        await catalog.get_prompt(
            everything,
            name="resource-prompt",
            arguments={"resourceType": "x", "resourceId": "1"},
            timeout=30,
        )
    assert refused.value.message.startswith("everything: prompts/get resource-prompt")
    assert "Invalid resourceType" in refused.value.message


async def test_a_subscribed_resource_s_update_reaches_a_watcher(everything: Connection) -> None:
    with everything.changes.watching() as changes:
        await catalog.subscribe(everything, uri=ARCHITECTURE, on=True, timeout=30)
        # server-everything sends its subscribers updates once this tool turns them on.
        lines = call_values(everything, tool="toggle-subscriber-updates", arguments={})
        async for _ in lines:
            pass
        change = await asyncio.wait_for(changes.get(), 30)
        while change["what"] == "tools":  # server-everything's own list_changed, at its start
            change = await asyncio.wait_for(changes.get(), 30)
    assert change == {"what": "updated", "uri": ARCHITECTURE}


async def test_over_streamable_http_too() -> None:
    with everything_over_http() as url:
        connection = Connection(ServerConfig(name="everything", transport="http", url=url))
        try:
            listing = await catalog.list_resources(connection, timeout=30)
            assert ARCHITECTURE in [r["uri"] for r in listing["resources"]]
            got = await catalog.get_prompt(
                connection, name="simple-prompt", arguments={}, timeout=30
            )
            assert got["messages"][0]["content"][0]["text"].startswith("This is a simple")
        finally:
            await connection.close()


async def test_a_server_without_resources_says_so_and_is_not_asked() -> None:
    from tests.mcp_support import fault_server

    connection = Connection(fault_server())
    try:
        listing = await catalog.list_resources(connection, timeout=30)
        assert listing == {"offered": False, "subscribe": False, "resources": [], "templates": []}
        sent = [e["message"].get("method") for e in connection.session_log.exchanges]
        assert "resources/list" not in sent
    finally:
        await connection.close()


# --- The views, and a hostile server ---------------------------------------------------------

SECRET = "sk-hostile-0123456789"


@pytest.fixture
async def hostile(settings: Any) -> AsyncIterator[None]:
    settings.PLAYGROUND_MCP_SERVERS = (hostile_catalog(key=SECRET), everything_stdio())
    await close_mcp_manager()
    yield
    await close_mcp_manager()


async def _post(client: AsyncClient, path: str, body: dict[str, Any]) -> Any:
    answer = await client.post(path, data=json.dumps(body), content_type="application/json")
    return answer.status_code, answer.json()


@pytest.mark.django_db(transaction=True)
async def test_a_hostile_server_s_secret_never_reaches_the_page(hostile: None) -> None:
    client = AsyncClient()
    status, listing = await _post(client, "/api/mcp/resources/", {"server": "hostile"})
    assert status == 200, listing
    names = {r["uri"]: r["name"] for r in listing["resources"]}
    assert names["hostile://env"].startswith("env <img")  # markup kept as text: the page escapes
    status, read = await _post(
        client, "/api/mcp/resources/read/", {"server": "hostile", "uri": "hostile://env"}
    )
    assert status == 200, read
    assert SECRET not in json.dumps(read) and "SERVICE_KEY=[redacted]" in json.dumps(read)
    status, picture = await _post(
        client, "/api/mcp/resources/read/", {"server": "hostile", "uri": "hostile://picture.svg"}
    )
    [block] = picture["blocks"]
    assert block["type"] == "text" and "image/svg+xml" in block["text"]  # never an image
    status, prompt = await _post(
        client,
        "/api/mcp/prompts/get/",
        {"server": "hostile", "name": "leak", "arguments": {"topic": "tides"}},
    )
    assert status == 200, prompt
    assert SECRET not in json.dumps(prompt) and "tides" in json.dumps(prompt)


@pytest.mark.django_db(transaction=True)
async def test_the_views_refuse_what_they_do_not_take(hostile: None) -> None:
    client = AsyncClient()
    status, said = await _post(client, "/api/mcp/resources/", {"server": "hostile", "x": 1})
    assert status == 400 and said["error"]["field"] == "x"
    status, said = await _post(
        client, "/api/mcp/prompts/get/", {"server": "hostile", "name": "leak", "arguments": [1]}
    )
    assert status == 400 and said["error"]["field"] == "arguments"
    status, said = await _post(client, "/api/mcp/prompts/", {"server": "nope"})
    assert status == 404 and "no MCP server 'nope'" in said["error"]["message"]
    answer = await client.get("/api/mcp/resources/")
    assert answer.status_code == 405


@pytest.mark.django_db(transaction=True)
async def test_a_watch_tells_the_page_of_an_update(hostile: None) -> None:
    client = AsyncClient()
    status, _ = await _post(
        client, "/api/mcp/resources/subscribe/", {"server": "everything", "uri": ARCHITECTURE}
    )
    assert status == 200
    answer = await client.post(
        "/api/mcp/watch/",
        data=json.dumps({"server": "everything"}),
        content_type="application/json",
    )
    lines = aiter(answer.streaming_content)
    first = json.loads(await anext(lines))
    assert first == {"type": "watching", "server": "everything"}
    call = {
        "server": "everything",
        "tool": "toggle-subscriber-updates",
        "input": {},
        "approval": "once",
    }
    ran = await client.post(
        "/api/mcp/call/", data=json.dumps(call), content_type="application/json"
    )
    assert b'"type": "result"' in b"".join([chunk async for chunk in ran.streaming_content])
    change = json.loads(await asyncio.wait_for(anext(lines), 30))
    while change.get("what") == "tools":  # server-everything's own list_changed, at its start
        change = json.loads(await asyncio.wait_for(anext(lines), 30))
    assert change == {"type": "changed", "what": "updated", "uri": ARCHITECTURE}
    await lines.aclose()


@pytest.mark.django_db(transaction=True)
async def test_a_prompts_and_a_templates_arguments_are_completed(hostile: None) -> None:
    """``completion/complete`` (``POST /api/mcp/complete/``): server-everything's
    ``completable-prompt`` completes its department as typed, and its name from the department
    given before it (the form's other values as context); its text template's resourceId."""
    client = AsyncClient()
    prompt = {"type": "prompt", "name": "completable-prompt"}
    status, said = await _post(
        client,
        "/api/mcp/complete/",
        {"server": "everything", "ref": prompt, "argument": {"name": "department", "value": "S"}},
    )
    assert status == 200, said
    assert (said["offered"], said["values"]) == (True, ["Sales", "Support"])
    status, said = await _post(
        client,
        "/api/mcp/complete/",
        {
            "server": "everything",
            "ref": prompt,
            "argument": {"name": "name", "value": ""},
            "context": {"department": "Sales"},
        },
    )
    assert said["values"] == ["David", "Eve", "Frank"], said
    template = {"type": "resource", "uri": "demo://resource/dynamic/text/{resourceId}"}
    status, said = await _post(
        client,
        "/api/mcp/complete/",
        {"server": "everything", "ref": template, "argument": {"name": "resourceId", "value": "7"}},
    )
    assert (status, said["values"]) == (200, ["7"]), said
    # Refused at the door: a ref of no kind, an argument without its value.
    status, said = await _post(
        client,
        "/api/mcp/complete/",
        {"server": "everything", "ref": {"type": "tool"}, "argument": {"name": "x", "value": ""}},
    )
    assert status == 400 and said["error"]["field"] == "ref"
    status, said = await _post(
        client,
        "/api/mcp/complete/",
        {"server": "everything", "ref": prompt, "argument": {"name": "department"}},
    )
    assert status == 400 and said["error"]["field"] == "argument"
