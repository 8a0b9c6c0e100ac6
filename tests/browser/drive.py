"""Drive the render modules in the harness page: build relay events, apply them, finish.

Rule: tests speak the relay's wire shape (``{seq, t, type, data}`` with ``data`` the upstream
event JSON), so what passes here is what the page will be fed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Page


@dataclass
class Stream:
    """Relay events with increasing ``seq`` and ``t`` (ms since the run started)."""

    seq: int = 0
    t: int = 0
    events: list[dict[str, Any]] = field(default_factory=list)

    def emit(self, data: dict[str, Any], *, dt: int = 10) -> dict[str, Any]:
        self.seq += 1
        self.t += dt
        event = {"seq": self.seq, "t": self.t, "type": data["type"], "data": data}
        self.events.append(event)
        return event

    def take(self) -> list[dict[str, Any]]:
        """The events emitted since the last take (one relay batch)."""
        batch, self.events = self.events, []
        return batch

    def message_start(self, message_id: str = "msg_test") -> Stream:
        message = {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "content": [],
            "model": "sim",
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 3, "output_tokens": 0},
        }
        self.emit({"type": "message_start", "message": message})
        return self

    def start(self, index: int, block: dict[str, Any], *, dt: int = 10) -> Stream:
        self.emit({"type": "content_block_start", "index": index, "content_block": block}, dt=dt)
        return self

    def delta(self, index: int, delta: dict[str, Any], *, dt: int = 10) -> Stream:
        self.emit({"type": "content_block_delta", "index": index, "delta": delta}, dt=dt)
        return self

    def text(self, index: int, text: str) -> Stream:
        return self.delta(index, {"type": "text_delta", "text": text})

    def thinking(self, index: int, text: str, *, dt: int = 10) -> Stream:
        return self.delta(index, {"type": "thinking_delta", "thinking": text}, dt=dt)

    def json(self, index: int, partial: str) -> Stream:
        return self.delta(index, {"type": "input_json_delta", "partial_json": partial})

    def stop(self, index: int, *, dt: int = 10) -> Stream:
        self.emit({"type": "content_block_stop", "index": index}, dt=dt)
        return self

    def end(self, stop_reason: str = "end_turn") -> Stream:
        self.emit(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": 42},
            }
        )
        self.emit({"type": "message_stop"})
        return self


def new_turn(page: Page, *, tool_schemas: dict[str, Any] | None = None) -> int:
    """Create a LiveTurn in the harness; returns its handle."""
    return page.evaluate(
        """(schemas) => {
            const h = window.__pgHarness;
            const calls = [];
            const turn = new h.render.LiveTurn(document.getElementById("turns"), {
                toolSchemas: schemas ?? undefined,
                onToolUse: (call) => calls.push(call),
            });
            h.turns.push({ turn, calls });
            turn.element.dataset.handle = String(h.turns.length - 1);
            return h.turns.length - 1;
        }""",
        tool_schemas,
    )


def turn_selector(handle: int) -> str:
    return f".pg-turn[data-handle='{handle}']"


def apply(page: Page, handle: int, events: list[dict[str, Any]]) -> None:
    page.evaluate(
        "([handle, events]) => window.__pgHarness.turns[handle].turn.applyEvents(events)",
        [handle, events],
    )


def finish(page: Page, handle: int, *, status: str = "complete", stop_reason: str = "end_turn"):
    page.evaluate(
        """([handle, status, stop_reason]) =>
            window.__pgHarness.turns[handle].turn.finish({status, stop_reason, usage: {},
                timings: {}, error: null})""",
        [handle, status, stop_reason],
    )


def render_message(
    page: Page, message: dict[str, Any], *, tool_schemas: Any = None, tools: Any = None
) -> str:
    """Render a stored message into the harness; returns a selector for it. ``tools``: the
    tools setting, whose server tools the server tool calls are checked against."""
    handle = page.evaluate(
        """([message, schemas, tools]) => {
            const h = window.__pgHarness;
            const node = h.render.renderMessage(message, {
                toolSchemas: schemas ?? undefined,
                serverTools: tools ? h.render.serverToolNames(tools) : undefined,
            });
            h.turns.push({ node });
            node.dataset.handle = String(h.turns.length - 1);
            document.getElementById("turns").append(node);
            return h.turns.length - 1;
        }""",
        [message, tool_schemas, tools],
    )
    return turn_selector(handle)
