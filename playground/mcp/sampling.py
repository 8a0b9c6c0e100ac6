"""A server's ``sampling/createMessage``: what it asks, who answers it, and the answer it gets.

Rule: a sampling request belongs to the call in flight that made the server ask (the oldest
one on its session that brought an answerer: ``Connection.answerers``); with none, the server
is told no. An **answerer** is any async function from a :class:`SamplingRequest` to a
:class:`SamplingAnswer`, or raising :class:`SamplingRefused`: :func:`profile_answerer` runs the
request on a named upstream profile (a grid row's answer, with no person), and
``questions.PersonAnswerer`` asks the person at the call's card first, who picks the profile
and model, may edit the request, and approves or refuses. Either way the request goes upstream
as a Messages API body (the conversions here are pure), holding a slot of its profile like any
run (``runs.upstream_slots``), and its answer goes back as the protocol's
``CreateMessageResult``. Refused, failed or timed out, the server gets an error that says so.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from playground.mcp.convert import IMAGE_TYPES

__all__ = [
    "Answerer",
    "SamplingAnswer",
    "SamplingRefused",
    "SamplingRequest",
    "RunPlace",
    "answer_result",
    "profile_answerer",
    "request_of",
]

#: How stop reasons are named on each side.
_STOP_REASONS = {
    "end_turn": "endTurn",
    "max_tokens": "maxTokens",
    "stop_sequence": "stopSequence",
    "tool_use": "toolUse",
}


class SamplingRefused(Exception):
    """The request is not answered (refused by the person, no answerer, a failure upstream):
    the server gets this reason."""


@dataclass(frozen=True)
class SamplingRequest:
    """A server's request, as a Messages API request would carry it (``messages``, ``system``,
    ``max_tokens``, …) with the server's wishes beside it (``model_hints``, priorities)."""

    server: str
    messages: list[dict[str, Any]]
    max_tokens: int
    system: str = ""
    temperature: float | None = None
    stop_sequences: tuple[str, ...] = ()
    model_hints: tuple[str, ...] = ()
    priorities: dict[str, float] = field(default_factory=dict)
    include_context: str = ""

    def as_dict(self) -> dict[str, Any]:
        """What the card shows (and what a person's edits come back as)."""
        return {
            "server": self.server,
            "messages": self.messages,
            "system": self.system,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "stop_sequences": list(self.stop_sequences),
            "model_hints": list(self.model_hints),
            "priorities": self.priorities,
            "include_context": self.include_context,
        }

    def edited(self, changes: dict[str, Any]) -> SamplingRequest:
        """The request with a person's edits (its messages, system prompt, max tokens)."""
        messages = changes.get("messages", self.messages)
        if not isinstance(messages, list) or not all(
            isinstance(m, dict) and m.get("role") in ("user", "assistant") for m in messages
        ):
            raise ValueError("messages must be a list of {role: user|assistant, content}")
        max_tokens = changes.get("max_tokens", self.max_tokens)
        if not isinstance(max_tokens, int) or not 0 < max_tokens <= 128_000:
            raise ValueError("max_tokens must be a whole number from 1 to 128000")
        system = changes.get("system", self.system)
        if not isinstance(system, str):
            raise ValueError("system must be text")
        return replace(self, messages=messages, max_tokens=max_tokens, system=system)

    def body(self, *, model: str) -> dict[str, Any]:
        """The Messages API body that answers it on ``model``."""
        body: dict[str, Any] = {
            "model": model,
            "max_tokens": self.max_tokens,
            "messages": self.messages,
        }
        if self.system:
            body["system"] = self.system
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.stop_sequences:
            body["stop_sequences"] = list(self.stop_sequences)
        return body


@dataclass(frozen=True)
class SamplingAnswer:
    """The model's answer: its content blocks (Messages API), the model, its stop reason."""

    content: list[dict[str, Any]]
    model: str
    stop_reason: str | None = None
    profile: str = ""


Answerer = Callable[[SamplingRequest], Awaitable[SamplingAnswer]]


def request_of(params: dict[str, Any], *, server: str) -> SamplingRequest:
    """``CreateMessageRequestParams`` (JSON) as a :class:`SamplingRequest`."""
    preferences = params.get("modelPreferences") or {}
    hints = tuple(
        str(hint.get("name"))
        for hint in preferences.get("hints") or []
        if isinstance(hint, dict) and hint.get("name")
    )
    priorities = {
        key.removesuffix("Priority"): float(value)
        for key, value in preferences.items()
        if key.endswith("Priority") and isinstance(value, int | float)
    }
    return SamplingRequest(
        server=server,
        messages=[_message(message) for message in params.get("messages") or []],
        max_tokens=int(params.get("maxTokens") or 1024),
        system=str(params.get("systemPrompt") or ""),
        temperature=params.get("temperature"),
        stop_sequences=tuple(str(s) for s in params.get("stopSequences") or []),
        model_hints=hints,
        priorities=priorities,
        include_context=str(params.get("includeContext") or ""),
    )


def _message(message: dict[str, Any]) -> dict[str, Any]:
    content = message.get("content")
    items = content if isinstance(content, list) else [content]
    return {
        "role": "assistant" if message.get("role") == "assistant" else "user",
        "content": [_block(item) for item in items if isinstance(item, dict)],
    }


def _block(item: dict[str, Any]) -> dict[str, Any]:
    kind = item.get("type")
    if kind == "text":
        return {"type": "text", "text": str(item.get("text", ""))}
    if kind == "image" and item.get("mimeType") in IMAGE_TYPES:
        source = {"type": "base64", "media_type": item["mimeType"], "data": item.get("data", "")}
        return {"type": "image", "source": source}
    if kind == "tool_use":
        return {
            "type": "tool_use",
            "id": item.get("id"),
            "name": item.get("name"),
            "input": item.get("input") or {},
        }
    if kind == "tool_result":
        inner = [_block(block) for block in item.get("content") or [] if isinstance(block, dict)]
        block = {"type": "tool_result", "tool_use_id": item.get("toolUseId"), "content": inner}
        return {**block, "is_error": True} if item.get("isError") else block
    return {"type": "text", "text": f"[{kind or 'content'} not carried: {json.dumps(item)[:200]}]"}


def answer_result(answer: SamplingAnswer) -> dict[str, Any]:
    """The answer as ``CreateMessageResult`` (JSON): its text (the protocol's answer without
    tools is one content block), the model, the stop reason."""
    text = "".join(
        str(block.get("text", "")) for block in answer.content if block.get("type") == "text"
    )
    result: dict[str, Any] = {
        "role": "assistant",
        "content": {"type": "text", "text": text},
        "model": answer.model,
    }
    if answer.stop_reason:
        result["stopReason"] = _STOP_REASONS.get(answer.stop_reason, answer.stop_reason)
    return result


@dataclass(frozen=True)
class RunPlace:
    """Where a sampling answer runs as a run of its own (``runs.aside``): the conversation of
    the call (its owner's id) and the tool call (``tool_use_id``) whose server asked."""

    owner_id: Any
    conversation_id: Any
    tool_use_id: str = ""


#: Hears that the answer's run started: ``{"id", "profile", "model"}`` (the card links it).
OnRun = Callable[[dict[str, Any]], None]


def profile_answerer(
    *,
    profile: str,
    model: str | None = None,
    person: str = "local",
    on_text: Callable[[str], None] | None = None,
    place: RunPlace | None = None,
    on_run: OnRun | None = None,
) -> Answerer:
    """An answerer that runs each request on ``profile`` (``model``, else the profile's first)
    with no person asked: what a grid row configures. ``on_text`` hears the answer's text as it
    streams (the card shows it). With a ``place`` the answer is a run of its own beside that
    conversation (a ``Run`` row: streamed, its events and request in the inspector, its tokens
    and cost in the person's usage and budgets, linked to the call by its ``tool_use_id``);
    without one (no conversation to hold it) it is streamed with no row, holding a slot of
    ``profile`` for ``person`` all the same."""

    async def answer(request: SamplingRequest) -> SamplingAnswer:
        from django.conf import settings

        configured = settings.PLAYGROUND_PROFILES.get(profile)
        if configured is None:
            raise SamplingRefused(f"no upstream profile {profile!r} to answer with")
        chosen = model or (configured.models[0] if configured.models else "")
        if not chosen:
            raise SamplingRefused(f"the profile {profile!r} names no model: choose one")
        body = request.body(model=chosen)
        if place is not None:
            message = await _as_run(
                body, profile=profile, place=place, on_text=on_text, on_run=on_run
            )
        else:
            message = await _streamed(body, profile=profile, person=person, on_text=on_text)
        return SamplingAnswer(
            content=list(message.get("content") or []),
            model=str(message.get("model") or chosen),
            stop_reason=message.get("stop_reason"),
            profile=profile,
        )

    return answer


async def _as_run(
    body: dict[str, Any],
    *,
    profile: str,
    place: RunPlace,
    on_text: Callable[[str], None] | None,
    on_run: OnRun | None,
) -> dict[str, Any]:
    """The answer as a run beside the conversation (``RunManager.start_aside``); stopped (and
    saved as ``stopped``) when the call that asked ends first."""
    from django.contrib.auth import get_user_model

    from playground.protocol.errors import PlaygroundError
    from playground.protocol.events import TextDelta
    from playground.runs.manager import get_manager

    def listen(event: Any) -> None:
        if on_text is not None and isinstance(event, TextDelta):
            on_text(event.text)

    try:
        live = await get_manager().start_aside(
            owner=get_user_model()(pk=place.owner_id),
            conversation_id=place.conversation_id,
            profile=profile,
            body=body,
            purpose="sampling",
            tool_use_id=place.tool_use_id,
            listener=listen,
        )
    except PlaygroundError as exc:  # a budget, the conversation gone, a stop under way
        raise SamplingRefused(f"the model's answer was not started: {exc.message}") from exc
    if on_run is not None:
        on_run({"id": str(live.run_id), "profile": profile, "model": str(body.get("model"))})
    try:
        await live.log.done.wait()
    except asyncio.CancelledError:
        await live.end(stop=True)  # the call ended first: the run is saved as stopped
        raise
    ended = json.loads(live.log.finished_frame or "{}")
    if ended.get("status") != "complete":
        why = (ended.get("error") or {}).get("message") or ended.get("status") or "no answer"
        raise SamplingRefused(f"the model's answer failed: {why}")
    accumulator = live.accumulator
    return (accumulator.message if accumulator is not None else None) or {}


async def _streamed(
    body: dict[str, Any], *, profile: str, person: str, on_text: Callable[[str], None] | None
) -> dict[str, Any]:
    """The answer streamed from ``profile`` with no run row (a caller with no conversation)."""
    from playground.protocol.errors import PlaygroundError
    from playground.protocol.events import TextDelta
    from playground.runs.manager import get_manager
    from playground.upstream.client import get_client

    slot = await get_manager().slots.take(profile=profile, person=person)
    try:
        async with get_client(profile).stream(body) as stream:
            async for event in stream:
                if on_text is not None and isinstance(event, TextDelta):
                    on_text(event.text)
            return stream.accumulator.message or {}
    except PlaygroundError as exc:
        raise SamplingRefused(f"the model's answer failed: {exc.message}") from exc
    finally:
        slot.release()
