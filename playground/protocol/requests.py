"""Build a Messages request body from settings and messages, and read one back.

Rule: the body never carries a null or an empty optional field, and messages go out as the
very objects that came in: assistant turns are never copied, rewritten or reordered (thinking
signatures depend on it). Validation lives beside this module (:mod:`request_settings`,
:mod:`request_messages`); everything is re-exported here, the one import other code uses.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from playground.protocol.errors import RequestValidationError
from playground.protocol.request_messages import DIALECTS, validate_messages
from playground.protocol.request_messages import show as _show
from playground.protocol.request_settings import (
    GenerationSettings,
    check_stop_sequences,
    check_system,
    is_int,
    is_number,
    validate_settings,
)

__all__ = [
    "DIALECTS",
    "GenerationSettings",
    "build_request",
    "settings_from_request",
    "validate_messages",
    "validate_settings",
]

#: Body keys settings_from_request understands; ``stream`` is accepted and ignored (the
#: caller of build_request decides it).
BODY_KEYS = (
    "model",
    "max_tokens",
    "system",
    "messages",
    "temperature",
    "top_p",
    "top_k",
    "stop_sequences",
    "tools",
    "tool_choice",
    "thinking",
    "stream",
)


def build_request(
    *,
    settings: GenerationSettings,
    messages: Sequence[dict[str, Any]],
    dialect: str,
    stream: bool = True,
) -> dict[str, Any]:
    """Validate ``settings`` and ``messages``, then return the request body.

    The body's ``messages`` is a new list holding the very message objects given, so
    assistant turns serialise exactly as received.
    """
    validate_settings(settings, dialect=dialect)
    validate_messages(messages, dialect=dialect)
    body: dict[str, Any] = {"model": settings.model}
    if settings.max_tokens is not None:
        body["max_tokens"] = settings.max_tokens
    if settings.system:
        body["system"] = settings.system
    body["messages"] = list(messages)
    optional: dict[str, Any] = {
        "temperature": settings.temperature,
        "top_p": settings.top_p,
        "top_k": settings.top_k,
        "stop_sequences": list(settings.stop_sequences) or None,
        "tools": list(settings.tools) or None,
        "tool_choice": settings.tool_choice,
        "thinking": settings.thinking,
    }
    body.update((key, value) for key, value in optional.items() if value is not None)
    body["stream"] = stream
    return body


def settings_from_request(body: dict[str, Any]) -> tuple[GenerationSettings, list[dict[str, Any]]]:
    """Read a pasted request body back into settings and messages.

    Checks shape only (types, known keys, the messages' rules); the dialect's ranges are
    checked when the request is built. An absent ``max_tokens`` stays ``None``.
    """
    if not isinstance(body, dict):
        raise RequestValidationError("a request body must be a JSON object")
    unknown = [key for key in body if key not in BODY_KEYS]
    if unknown:
        raise RequestValidationError(
            f"unsupported key {_show(unknown[0])} (supported: {', '.join(BODY_KEYS)})",
            field=unknown[0],
        )
    model = body.get("model")
    if not isinstance(model, str) or not model:
        raise RequestValidationError("model must be a non-empty string", field="model")
    messages = body.get("messages")
    # friendli is the laxer dialect for messages (a thinking signature is optional there),
    # so only what no dialect accepts is refused here.
    validate_messages(messages, dialect="friendli")  # type: ignore[arg-type]
    _expect(body, "max_tokens", is_int, "an integer")
    _expect(body, "temperature", is_number, "a number")
    _expect(body, "top_p", is_number, "a number")
    _expect(body, "top_k", is_int, "an integer")
    _expect(body, "system", lambda v: isinstance(v, str | list), "a string or a list of blocks")
    _expect(body, "stop_sequences", lambda v: isinstance(v, list), "a list of strings")
    _expect(body, "tools", lambda v: isinstance(v, list), "a list of tools")
    _expect(body, "tool_choice", lambda v: isinstance(v, dict), "an object")
    _expect(body, "thinking", lambda v: isinstance(v, dict), "an object")
    _expect(body, "stream", lambda v: isinstance(v, bool), "true or false")
    settings = GenerationSettings(
        model=model,
        max_tokens=body.get("max_tokens"),
        system=body.get("system"),
        temperature=body.get("temperature"),
        top_p=body.get("top_p"),
        top_k=body.get("top_k"),
        stop_sequences=tuple(body.get("stop_sequences") or ()),
        tools=tuple(body.get("tools") or ()),
        tool_choice=body.get("tool_choice"),
        thinking=body.get("thinking"),
    )
    check_system(settings.system)
    check_stop_sequences(settings.stop_sequences)
    for index, tool in enumerate(settings.tools):
        if not isinstance(tool, dict):
            raise RequestValidationError(
                f"expected a tool object, got {_show(tool)}", field=f"tools[{index}]"
            )
    return settings, list(messages)  # type: ignore[arg-type]


def _expect(body: dict[str, Any], key: str, check: Callable[[Any], bool], expected: str) -> None:
    # A null counts as absent: some exporters write every key.
    value = body.get(key)
    if value is not None and not check(value):
        raise RequestValidationError(f"expected {expected}, got {_show(value)}", field=key)
