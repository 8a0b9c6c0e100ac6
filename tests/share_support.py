"""Helpers for the sharing, export and import tests: a conversation with every block type."""

from __future__ import annotations

import json
from typing import Any

from django.test import Client
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Run

THINKING = {"type": "thinking", "thinking": "Paris, so metric.", "signature": "sig_ünï_123"}
TOOL_USE = {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}
WEATHER_TOOL = {
    "name": "get_weather",
    "description": "Weather for a city",
    "input_schema": {
        "type": "object",
        "properties": {"city": {"type": "string"}},
        "required": ["city"],
    },
}


def make_run(
    conversation: Conversation,
    *,
    stop_reason: str = "end_turn",
    request: dict[str, Any] | None = None,
) -> Run:
    return Run.objects.create(
        conversation=conversation,
        profile="simulator",
        model=conversation.settings.model,
        request=request or {"model": conversation.settings.model},
        status=Run.Status.COMPLETE,
        stop_reason=stop_reason,
        usage={"input_tokens": 12, "output_tokens": 48},
        started_at=timezone.now(),
        finished_at=timezone.now(),
    )


def answer(conversation: Conversation, content: list[dict[str, Any]], **run: Any) -> None:
    conversations.append_assistant_message(
        conversation=conversation,
        run=make_run(conversation, **run),
        content_json=json.dumps(content, ensure_ascii=False),
    )


def seed_tool_loop(owner: Any, *, title: str = "Weather in Paris") -> Conversation:
    """user text -> assistant [thinking, text, tool_use] -> user [tool_result] -> assistant."""
    conversation = conversations.create_conversation(
        owner=owner,
        title=title,
        system="Be brief.",
        tools=[WEATHER_TOOL],
        thinking={"type": "enabled", "budget_tokens": 1024},
        max_tokens=2048,
    )
    conversations.append_user_message(conversation=conversation, content="Weather in Paris?")
    answer(
        conversation,
        [THINKING, {"type": "text", "text": "Let me check."}, TOOL_USE],
        stop_reason="tool_use",
    )
    conversations.append_tool_results(
        conversation=conversation, results=[{"tool_use_id": "toolu_1", "content": "18 °C"}]
    )
    answer(conversation, [THINKING, {"type": "text", "text": "It is 18 °C in Paris."}])
    return conversation


def send(client: Client, method: str, url: str, body: Any = None, **extra: Any) -> Any:
    data = "" if body is None else json.dumps(body)
    return client.generic(method, url, data=data, content_type="application/json", **extra)


def page_data(response: Any) -> dict[str, Any]:
    """The json_script payload of a rendered page."""
    html = response.content.decode()
    start = html.index('<script id="page-data" type="application/json">')
    start = html.index(">", start) + 1
    end = html.index("</script>", start)
    return json.loads(html[start:end])
