"""A server's resources and prompts: listed, read, fetched, subscribed to.

Rule: each operation is one request (or one listing's pages) through the connection's session,
held in use meanwhile and bounded by ``timeout``; what it answers is plain JSON with the
configuration's secrets redacted, ready for a page (text stays text: the page draws it with
``textContent``). A failure is an ``McpError`` naming the server and what was asked, as a
call's would be; the SDK's own error text is the server's, redacted.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import pydantic

from playground.mcp.catalog_convert import prompt_messages, resource_blocks
from playground.mcp.connection import Connection
from playground.protocol.errors import (
    McpCallFailed,
    McpCrashed,
    McpError,
    McpMalformed,
    McpTimeout,
)

if TYPE_CHECKING:
    from mcp import ClientSession

__all__ = [
    "complete",
    "get_prompt",
    "list_prompts",
    "list_resources",
    "read_resource",
    "subscribe",
]

#: At most this many pages of one listing are read (a server whose cursor never ends).
MAX_PAGES = 50


async def list_resources(connection: Connection, *, timeout: float) -> dict[str, Any]:
    """``{"offered", "subscribe", "resources": […], "templates": […]}``: ``offered`` false
    (and nothing asked) for a server whose ``initialize`` declared no ``resources``."""
    async with _asked(connection, "resources/list", timeout) as session:
        if not _offers(connection, "resources"):
            return {"offered": False, "subscribe": False, "resources": [], "templates": []}
        resources = await _pages(session.list_resources, "resources")
        templates = await _pages(session.list_resource_templates, "resourceTemplates")
    listing = {"resources": resources, "templates": templates}
    subscribe = bool(connection.info.get("subscribe"))
    return {"offered": True, "subscribe": subscribe, **connection.secrets.value(listing)}


async def read_resource(
    connection: Connection, *, uri: str, name: str = "", timeout: float
) -> dict[str, Any]:
    """The resource's ``contents`` as the server sent them, and as blocks to attach."""
    async with _asked(connection, f"resources/read {uri}", timeout) as session:
        result = _json(await session.read_resource(pydantic.AnyUrl(uri)))
    contents = result.get("contents") or []
    blocks = resource_blocks(contents, server=connection.config.name, name=name)
    return connection.secrets.value({"contents": contents, "blocks": blocks})


async def subscribe(connection: Connection, *, uri: str, on: bool, timeout: float) -> None:
    """``resources/subscribe`` (``on``) or ``resources/unsubscribe``: the server's
    ``notifications/resources/updated`` for it reach the connection's watchers."""
    what = "resources/subscribe" if on else "resources/unsubscribe"
    async with _asked(connection, f"{what} {uri}", timeout) as session:
        if on:
            await session.subscribe_resource(pydantic.AnyUrl(uri))
        else:
            await session.unsubscribe_resource(pydantic.AnyUrl(uri))


async def list_prompts(connection: Connection, *, timeout: float) -> dict[str, Any]:
    """``{"offered", "prompts": […]}`` (``offered``: as for resources)."""
    async with _asked(connection, "prompts/list", timeout) as session:
        if not _offers(connection, "prompts"):
            return {"offered": False, "prompts": []}
        prompts = await _pages(session.list_prompts, "prompts")
    return {"offered": True, **connection.secrets.value({"prompts": prompts})}


async def get_prompt(
    connection: Connection, *, name: str, arguments: dict[str, str], timeout: float
) -> dict[str, Any]:
    """The prompt filled with ``arguments``: its description and its messages as Messages API
    messages (``catalog_convert.prompt_messages``)."""
    async with _asked(connection, f"prompts/get {name}", timeout) as session:
        result = _json(await session.get_prompt(name, arguments))
    messages = prompt_messages(result, server=connection.config.name)
    described = {"description": result.get("description", ""), "messages": messages}
    return connection.secrets.value(described)


async def complete(
    connection: Connection,
    *,
    ref: dict[str, str],
    argument: dict[str, str],
    context: dict[str, str] | None,
    timeout: float,
) -> dict[str, Any]:
    """``completion/complete`` for one argument of a prompt (``ref``: ``{"type": "prompt",
    "name"}``) or a resource template (``{"type": "resource", "uri"}``: the template), as
    typed so far (``argument``: ``{"name", "value"}``), the form's other values as
    ``context``: ``{"offered", "values", "total"?, "has_more"}``. A server whose ``initialize``
    declared no ``completions`` is not asked (``offered`` false, no values)."""
    from mcp import types

    if ref.get("type") == "prompt":
        reference: Any = types.PromptReference(type="ref/prompt", name=ref.get("name", ""))
    else:
        reference = types.ResourceTemplateReference(type="ref/resource", uri=ref.get("uri", ""))
    async with _asked(connection, f"completion/complete {argument.get('name')}", timeout) as s:
        if not _offers(connection, "completions"):
            return {"offered": False, "values": [], "has_more": False}
        result = _json(await s.complete(reference, argument, context_arguments=context))
    completion = result.get("completion") or {}
    answer = {
        "offered": True,
        "values": [str(value) for value in completion.get("values") or []][:100],
        "has_more": bool(completion.get("hasMore")),
    }
    if isinstance(completion.get("total"), int):
        answer["total"] = completion["total"]
    return connection.secrets.value(answer)


@asynccontextmanager
async def _asked(connection: Connection, what: str, timeout: float) -> AsyncIterator[ClientSession]:
    """The session for one request, its failures named as ``McpError``s."""
    from mcp import types
    from mcp.shared.exceptions import McpError as SdkMcpError

    where = f"{connection.config.name}: {what}"
    try:
        async with asyncio.timeout(timeout), connection.using() as session:
            yield session
    except McpError as exc:
        exc.message = connection.secrets.text(f"{where}: {exc.message}")
        exc.args = (exc.message,)
        raise
    except TimeoutError:
        raise McpTimeout(f"{where}: no answer within {timeout:g} s") from None
    except (anyio.ClosedResourceError, anyio.BrokenResourceError) as exc:
        raise McpCrashed(f"{where}: the server exited or disconnected") from exc
    except SdkMcpError as exc:
        if exc.error.code == types.CONNECTION_CLOSED:
            raise McpCrashed(f"{where}: the server exited or disconnected") from exc
        said = connection.secrets.text(exc.error.message)
        raise McpCallFailed(f"{where}: the server answered an error: {said}") from exc
    except pydantic.ValidationError as exc:
        first = (str(exc).splitlines() or ["invalid"])[0][:200]
        raise McpMalformed(f"{where}: the answer is not valid ({first})") from exc


def _offers(connection: Connection, what: str) -> bool:
    return what in connection.info.get("capabilities", ())


async def _pages(list_page: Any, key: str) -> list[dict[str, Any]]:
    from mcp import types

    items: list[dict[str, Any]] = []
    cursor: str | None = None
    for _ in range(MAX_PAGES):
        page = await list_page(params=types.PaginatedRequestParams(cursor=cursor))
        items.extend(_json(item) for item in getattr(page, key))
        cursor = page.nextCursor
        if not cursor:
            break
    return items


def _json(model: Any) -> dict[str, Any]:
    return model.model_dump(by_alias=True, mode="json", exclude_none=True)
