"""A server made with the MCP SDK's own FastMCP (stdio), for what FastMCP servers send: a tool
that returns a ``str`` answers a text block and ``structuredContent`` ``{"result": "…"}``; one
that returns a list, a text block per item and ``{"result": [...]}``; a dict, its JSON. Its
prompt ``few-shot`` is a conversation of its own (user, assistant, user), as a prompt with an
example answer is."""

from __future__ import annotations

from mcp.server.fastmcp import FastMCP
from mcp.server.fastmcp.prompts.base import AssistantMessage, Message, UserMessage

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


@server.prompt(name="few-shot", description="An example answer, then the question.")
def few_shot(topic: str) -> list[Message]:
    return [
        UserMessage("Name a colour."),
        AssistantMessage("Teal."),
        UserMessage(f"Name a {topic}."),
    ]


if __name__ == "__main__":
    server.run("stdio")
