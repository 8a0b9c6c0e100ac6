"""Improve: a meta-prompt, run through a profile the person picks, proposes a new system
prompt for a version; the page shows it as a diff and saving it is an ordinary save.

Rules:
- The meta-prompt is the request's system prompt and the person's to edit
  (:data:`META_PROMPT` is where it starts). The user turn is made here and not editable: the
  version's system prompt in ``<system_prompt>``, its template turns, tools and variables for
  context, and the one instruction the answer is read by: the whole revised system prompt in
  ``<revised_system_prompt>`` tags. Any model that follows an instruction can answer it; the
  built-in simulator plays a careful editor (``simulator/revision.py``), deterministic, so a
  proposal works with no key.
- A proposal is the version's definition with the new system prompt; nothing is saved until
  the person accepts it. An answer with no tagged block is refused, quoting its start.
- The call is one streamed request through the profile's client (retries before the first
  event, the key scrubbed), folded as a run's is; it is not a conversation's run.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings as django_settings

from playground.prompts.diffs import message_lines
from playground.protocol.errors import RequestValidationError, UpstreamMalformed
from playground.protocol.requests import Settings, build_request
from playground.protocol.shape import parse
from playground.upstream.client import get_client

__all__ = ["META_PROMPT", "Proposal", "improve_request", "propose", "read_proposal"]

META_PROMPT = """\
You are an expert prompt engineer. You improve system prompts for language models.

Read the prompt you are given, with its example turns, tools and variables for context.
Make the system prompt clearer and more specific:
- say who the assistant is and whom it serves;
- say what a good answer looks like: its form, its length, its tone;
- say what to do when a request is ambiguous, out of scope, or when the answer is not known;
- keep every {{variable}} placeholder exactly as it is written.

Change only what makes the prompt better, and keep what already works."""

OPEN_TAG = "<revised_system_prompt>"
CLOSE_TAG = "</revised_system_prompt>"
_REVISED = re.compile(re.escape(OPEN_TAG) + r"\n?(.*?)\n?" + re.escape(CLOSE_TAG), re.DOTALL)
#: The proposal's answer: long enough for a long system prompt and a few words on it.
MAX_TOKENS = 4096
META_MAX = 20_000


def improve_request(definition: Mapping[str, Any], *, name: str, number: int) -> str:
    """The user turn of the call: the version to improve, and how to answer."""
    parts = [f'<prompt name="{name}" version="{number}">', "<system_prompt>"]
    parts += [definition["system"], "</system_prompt>"]
    if definition["messages"]:
        parts += ["<example_turns>", *message_lines(definition["messages"]), "</example_turns>"]
    tools = [tool.get("name", "?") for tool in definition["tools"] if isinstance(tool, dict)]
    if tools:
        parts.append(f"<tools>{', '.join(tools)}</tools>")
    if definition["variables"]:
        parts.append(f"<variables>{', '.join(definition['variables'])}</variables>")
    parts += [
        "</prompt>",
        "",
        "Reply with a short list of the changes you made, then the whole revised system prompt "
        f"between {OPEN_TAG} and {CLOSE_TAG}.",
    ]
    return "\n".join(parts)


@dataclass(frozen=True, slots=True)
class Proposal:
    """A proposed system prompt, and what the model said about it."""

    system: str
    notes: str
    model: str
    profile: str


def read_proposal(text: str) -> tuple[str, str]:
    """``(revised system prompt, the notes before it)`` from an answer's text."""
    found = list(_REVISED.finditer(text))
    if not found:
        start = text.strip()[:200] or "(no text)"
        raise UpstreamMalformed(
            f"the answer holds no {OPEN_TAG} block to propose; it began: {start!r}"
        )
    last = found[-1]
    return last.group(1), text[: found[0].start()].strip()


def check_meta_prompt(meta: Any) -> str:
    if not isinstance(meta, str) or not meta.strip():
        raise RequestValidationError("the meta-prompt must not be empty", field="meta_prompt")
    if len(meta) > META_MAX:
        raise RequestValidationError(
            f"at most {META_MAX} characters, got {len(meta)}", field="meta_prompt"
        )
    return meta


async def propose(
    definition: Mapping[str, Any],
    *,
    name: str,
    number: int,
    profile: str,
    model: str,
    meta_prompt: str,
) -> Proposal:
    """Ask ``profile``'s ``model`` for a revised system prompt (see the module rules)."""
    configured = django_settings.PLAYGROUND_PROFILES.get(profile)
    if configured is None:
        listed = ", ".join(django_settings.PLAYGROUND_PROFILES)
        raise RequestValidationError(
            f"unknown profile {profile!r} (configured: {listed})", field="profile"
        )
    if not isinstance(model, str) or not model.strip():
        raise RequestValidationError("must not be empty", field="model")
    text = improve_request(definition, name=name, number=number)
    body = build_request(
        settings=parse(
            Settings,
            {
                "model": model.strip(),
                "max_tokens": MAX_TOKENS,
                "system": check_meta_prompt(meta_prompt),
            },
        ),
        messages=[{"role": "user", "content": [{"type": "text", "text": text}]}],
        dialect=configured,
        stream=True,
    )
    async with get_client(profile).stream(body) as stream:
        async for _ in stream:
            pass
        message = stream.accumulator.message or {}
    answer = "".join(
        block.get("text", "")
        for block in message.get("content") or []
        if isinstance(block, dict) and block.get("type") == "text"
    )
    system, notes = read_proposal(answer)
    return Proposal(system=system, notes=notes, model=model.strip(), profile=profile)
