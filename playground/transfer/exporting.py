"""Export a conversation: the Messages request body it would send, and a Markdown transcript.

Rules:
- Nothing exported carries a key: bodies come from ``build_request`` or a run's stored
  ``request_json`` (which never holds one); snippets (``playground.transfer.snippets``) read
  keys from environment variables.
- Which request: when the conversation ends with a user turn, or with an assistant turn the
  next run continues (a prefill, a turn paused by ``pause_turn``), the body the next run would
  send (``next_request``). When it ends with an assistant turn there is no next request (the
  model has answered), so the export is the body of the run that produced that turn, exactly
  as sent (``last_run``); a turn with no run (forked or imported) gets the body rebuilt from
  the turns up to the last user turn with today's settings (``rebuilt``).
- Prompt variables (``protocol.variables``): a built body has them filled in, as a run would
  send it; the transcript shows the text as sent (values filled in, a missing one left as
  ``{{name}}``) and lists the values under "Variables".
- Files (``playground.attachments``) go out in base64, exactly as a run sends them.
- Reads only; the one module that turns stored turns into Markdown, with
  ``markdown_blocks`` for citations (as footnotes) and server-side blocks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings as django_settings

from playground import conversations
from playground.attachments.store import expand_request
from playground.conversations import profile_named
from playground.conversations.output_check import check_output, schema_of
from playground.models import Conversation, Message
from playground.protocol.attachments import describe, is_reference
from playground.protocol.errors import RequestValidationError
from playground.protocol.json_text import dumps, dumps_readable, safe_text
from playground.protocol.requests import build_request
from playground.protocol.variables import fill_content, fill_request, fill_text
from playground.transfer.markdown_blocks import (
    Footnotes,
    caller_words,
    code_span,
    content_markdown,
    fenced,
)
from playground.upstream.profiles import Profile

REQUEST_SOURCES = ("next_request", "last_run", "rebuilt")


@dataclass(frozen=True, slots=True)
class RequestExport:
    """A request body, the profile it is for, and which of :data:`REQUEST_SOURCES` it is."""

    profile: Profile
    body: dict[str, Any]
    source: str


def export_request(*, conversation: Conversation) -> RequestExport:
    """The request body to export, its files in base64 as the upstream gets them (a stored
    body holds them by reference); see the module rules. Refused for an empty conversation."""
    exported = _stored_request(conversation=conversation)
    body = expand_request(owner_id=conversation.owner_id, body=exported.body)
    return RequestExport(profile=exported.profile, body=body, source=exported.source)


def _stored_request(*, conversation: Conversation) -> RequestExport:
    messages = list(conversations.path_of(conversation).select_related("run"))
    if not messages or messages[-1].role == Message.Role.USER:
        profile, body = conversations.next_request(conversation=conversation)
        return RequestExport(profile=profile, body=body, source="next_request")
    last = messages[-1]
    if conversations.awaits_continuation(last):
        profile, body = conversations.next_request(conversation=conversation, continuing=True)
        return RequestExport(profile=profile, body=body, source="next_request")
    if last.run is not None and last.run.request is not None:
        profiles = django_settings.PLAYGROUND_PROFILES
        profile = profiles.get(last.run.profile) or profile_named(conversation.settings.profile)
        body = last.run.request
        return RequestExport(profile=profile, body=body, source="last_run")
    users = [index for index, message in enumerate(messages) if message.role == Message.Role.USER]
    if not users:
        raise RequestValidationError("the conversation has no user turn", field="messages")
    profile = profile_named(conversation.settings.profile)
    body = build_request(
        settings=conversation.settings,
        messages=[message.as_api() for message in messages[: users[-1] + 1]],
        dialect=profile.dialect,
        stream=True,
        stored=True,
    )
    body = fill_request(body, conversation.variables or {})
    return RequestExport(profile=profile, body=body, source="rebuilt")


def request_json_text(body: dict[str, Any]) -> str:
    """The body as a person reads and pastes it (the values exactly as they will be sent)."""
    # Lone surrogates escaped, as in every JSON text we write (``protocol.json_text``).
    return dumps(body, indent=True) + "\n"


def compact_json_text(value: Any) -> str:
    """A bundle as a file to carry, not to read: no indentation (its grids' answers made a
    50 x 4 grid's bundle half again as large pretty-printed), and no lone surrogate (an answer
    may hold one as its server sent it; the import refuses them)."""
    return dumps_readable(value) + "\n"


# --- Markdown ----------------------------------------------------------------------------------


def _json_block(value: Any) -> str:
    return fenced(dumps(value, indent=True), lang="json")


def _tool_result_text(content: Any) -> str:
    if isinstance(content, str):
        return fenced(content)
    if isinstance(content, list):
        parts = []
        for item in content:
            if isinstance(item, dict) and item.get("type") == "text":
                parts.append(fenced(str(item.get("text", ""))))
            elif isinstance(item, dict) and item.get("type") == "tool_reference":
                # Tool search done by the client: the API loads the tool named for the model.
                parts.append(f"Loads the tool {code_span(item.get('tool_name', '?'))}")
            else:
                parts.append(_json_block(item))
        return "\n\n".join(parts) if parts else "_(empty)_"
    return "_(empty)_"


def block_markdown(block: Any) -> str:
    """One content block as Markdown (an unknown block as its JSON); text runs, citations and
    server-side blocks are ``markdown_blocks``'s, which calls this for the rest."""
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "text":
        return str(block.get("text", ""))
    if kind == "thinking":
        thinking = block.get("thinking")
        if not isinstance(thinking, str) or not thinking:
            # Left out by the API (thinking display "omitted": only the signature comes), or
            # none arrived: said, not an empty code block.
            if isinstance(block.get("signature"), str) and block["signature"]:
                return "_Thinking: left out by the API (display omitted); its signature is kept._"
            return "_Thinking: no text arrived._"
        return f"<details>\n<summary>Thinking</summary>\n\n{fenced(thinking)}\n\n</details>"
    if kind == "redacted_thinking":
        return "<details>\n<summary>Thinking (redacted by the provider)</summary>\n</details>"
    if kind == "tool_use":
        return (
            f"**Tool call** `{block.get('name', '?')}` (`{block.get('id', '?')}`)"
            f"{caller_words(block)}\n\n{_json_block(block.get('input', {}))}"
        )
    if kind == "tool_result":
        error = " (error)" if block.get("is_error") else ""
        return (
            f"**Tool result**{error} for `{block.get('tool_use_id', '?')}`\n\n"
            f"{_tool_result_text(block.get('content'))}"
        )
    if is_reference(block):
        # The file itself is in the request export; the transcript names it.
        source = block["source"]
        name = str(source.get("name") or block.get("title") or kind).replace("`", "'")
        described = describe(media_type=str(source.get("media_type")), size=source.get("size", 0))
        return f"**Attached {kind}:** `{name}` ({described})"
    return f"**{kind or 'Block'}**\n\n{_json_block(block)}"


def _run_line(message: Message) -> str:
    run = message.run
    if run is None:
        return ""
    parts = [f"`{run.model}`", run.status]
    if run.stop_reason:
        parts.append(f"stop: {run.stop_reason}")
    if run.stop_sequence:
        parts.append(f"stop sequence: {dumps(run.stop_sequence)}")
    details = run.stop_details if isinstance(run.stop_details, dict) else None
    if details:
        category = f" ({details['category']})" if details.get("category") else ""
        explanation = f": {details['explanation']}" if details.get("explanation") else ""
        parts.append(f"{details.get('type') or 'stop details'}{category}{explanation}")
    if isinstance(run.container, dict) and run.container.get("id"):
        parts.append(f"container: {run.container['id']}")
    issues = run.block_issues or {}
    if issues:
        flagged = ", ".join(f"block {index} {issue}" for index, issue in sorted(issues.items()))
        parts.append(f"flagged: {flagged}")
    usage = run.usage or {}
    if "input_tokens" in usage or "output_tokens" in usage:
        thinking = _thinking_tokens(usage)
        of_which = f" ({thinking} thinking)" if thinking is not None else ""
        parts.append(
            f"{usage.get('input_tokens', '?')} in / {usage.get('output_tokens', '?')} out"
            f"{of_which} tokens"
        )
    if run.error_code:
        kind = f" ({run.error_type})" if run.error_type else ""
        parts.append(f"error: {run.error_code}{kind}")
        if run.error_request_id or run.request_id:
            parts.append(f"request id: {run.error_request_id or run.request_id}")
    return "_" + " · ".join(parts) + "_"


def _thinking_tokens(usage: dict[str, Any]) -> int | None:
    """Of the output tokens, those spent thinking, where the upstream says so
    (``output_tokens_details.thinking_tokens``)."""
    details = usage.get("output_tokens_details")
    count = details.get("thinking_tokens") if isinstance(details, dict) else None
    return count if isinstance(count, int) and not isinstance(count, bool) else None


def _output_line(message: Message, *, conversation: Conversation) -> str:
    """The schema check of a structured answer (``output_check``); "" where none was asked."""
    run = message.run
    sent = run.request if run is not None and isinstance(run.request, dict) else {}
    asked = sent.get("output_config")
    schema = schema_of(asked if asked is not None else conversation.settings.output_config)
    if schema is None or message.role != Message.Role.ASSISTANT:
        return ""
    content = message.content
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    texts = [b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text"]
    text = "".join(texts)
    checked = check_output(text, schema)
    if checked.fits:
        return "_Schema check: the answer fits the output schema_"
    named = "; ".join(f"`{path}` {problem}" for path, problem in checked.problems)
    return f"_Schema check: {len(checked.problems)} failed: {named}_"


def transcript_markdown(*, conversation: Conversation) -> str:
    """The conversation as Markdown: thinking in ``<details>``, tool calls as fenced JSON."""
    profiles = django_settings.PLAYGROUND_PROFILES
    settings = conversation.settings
    profile = profiles.get(settings.profile)
    label = profile.label if profile is not None else settings.profile
    out = [
        f"# {conversation.title or 'Conversation'}",
        "",
        f"- Model: `{settings.model}` ({label})",
    ]
    if settings.tools:
        names = ", ".join(f"`{tool.get('name', '?')}`" for tool in settings.tools)
        out.append(f"- Tools: {names}")
    values = conversation.variables or {}
    if values:
        out += ["", "## Variables", ""]
        out += [f"- `{name}`: {dumps(value)}" for name, value in values.items()]
    if isinstance(settings.system, str) and settings.system:
        out += ["", "## System", "", fenced(fill_text(settings.system, values))]
    notes = Footnotes()  # citation footnotes, numbered across the transcript
    for message in conversations.path_of(conversation).select_related("run"):
        out += ["", f"## {message.role.capitalize()}", ""]
        content = message.content
        if message.role == Message.Role.USER:
            content = fill_content(content, values)
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        out.append(
            content_markdown(content, role=message.role, notes=notes, block_markdown=block_markdown)
        )
        run_line = _run_line(message)
        if run_line:
            out += ["", run_line]
        output_line = _output_line(message, conversation=conversation)
        if output_line:
            out += ["", output_line]
    # Markdown has no escapes: a lone surrogate becomes U+FFFD (the event log keeps it).
    return safe_text("\n".join(out) + "\n")
