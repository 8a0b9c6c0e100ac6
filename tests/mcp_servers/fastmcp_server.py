"""A server made with the MCP SDK's own FastMCP (stdio), for what FastMCP servers send: a tool
that returns a ``str`` answers a text block and ``structuredContent`` ``{"result": "…"}``; one
that returns a list, a text block per item and ``{"result": [...]}``; a dict, its JSON."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP

server = FastMCP("fastmcp-shapes")


@server.tool()
def greet(name: str) -> str:
    """A greeting, as a str."""
    return f"Hello, {name}!"


@server.tool()
def letters(word: str) -> list[str]:
    """The word's letters, as a list."""
    return list(word)


@server.tool()
def entities(name: str) -> dict[str, list[dict[str, str]]]:
    """An entity, as server-memory answers create_entities: {"entities": [...]}."""
    return {"entities": [{"name": name, "entityType": "person"}]}


if __name__ == "__main__":
    server.run("stdio")
