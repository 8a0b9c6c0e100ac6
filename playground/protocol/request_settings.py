"""Validate generation settings (everything in a request but the messages) per dialect.

Rule: refuse before sending. Anything the upstream would answer with a 400 is refused with a
:class:`RequestValidationError` whose ``field`` is a JSON path (``max_tokens``,
``thinking.budget_tokens``, ``tools[2].input_schema``...) and whose message names the valid
choices.

The numbers and the differences between upstreams are the dialect's adapter's
(``protocol.adapters``: its rule per setting, and what it does with server tools and with
sampling under thinking); the checks here are the same for every one.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, TypeGuard

from playground.protocol.adapters import Adapter, HasDialect, adapters
from playground.protocol.errors import RequestValidationError
from playground.protocol.errors import show as _show
from playground.protocol.limits import LIMITS
from playground.protocol.request_messages import check_dialect
from playground.protocol.settings_table import SETTINGS, Setting, Settings

THINKING_TYPES = ("enabled", "adaptive", "disabled")
TOOL_CHOICE_TYPES = ("auto", "any", "tool", "none")
TOOL_CHOICE_KEYS = ("type", "name", "disable_parallel_tool_use")
MAX_STOP_SEQUENCES = LIMITS.max_stop_sequences


def is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def validate_settings(settings: Settings, *, dialect: str | Adapter | HasDialect) -> None:
    """Raise :class:`RequestValidationError` for the first invalid setting; ``dialect``:
    whose rules (a name, a profile or an adapter)."""
    adapter = check_dialect(dialect)
    if not settings.model.strip():
        raise RequestValidationError("model must be a non-empty string", field="model")
    for item in SETTINGS:
        _check_rule(item, getattr(settings, item.name), adapter=adapter)
    check_system(settings.system)
    check_stop_sequences(settings.stop_sequences)
    names = _check_tools(settings.tools, adapter=adapter)
    _check_tool_choice(settings.tool_choice, names=names)
    _check_thinking(settings, adapter=adapter)
    check_output_config(settings.output_config)


def _check_rule(item: Setting, value: Any, *, adapter: Adapter) -> None:
    """A setting's value against the adapter's rule for it: refused, required, its range."""
    dialect, rule = adapter.name, adapter.rule(item.name)
    if rule.refused:
        if value is not None and value != item.initial():
            note = f" ({rule.note.format(minimum=rule.minimum, maximum=rule.maximum)})"
            note = note if rule.note else ""
            raise RequestValidationError(
                f"{item.name} is not taken by the {dialect} dialect{note}; leave it unset",
                field=item.name,
            )
        return
    if rule.minimum is None and rule.maximum is None and not rule.required:
        return
    kind = item.schema.get("type")
    if kind == "integer" and rule.minimum == 1 and rule.maximum is None:
        expected = "a positive integer"
    elif kind in ("integer", "number"):
        expected = f"a {kind} from {rule.minimum or 0:g} to {rule.maximum or 0:g}"
        if len({other.rule(item.name) for other in adapters()}) > 1:
            expected += f" for the {dialect} dialect"
    else:
        return  # a rule's numbers for an object are its own check's (thinking's budget)
    if value is None:
        if rule.required:
            raise RequestValidationError(
                f"{item.name} is required by the {dialect} dialect ({expected})", field=item.name
            )
        return
    low = rule.minimum if rule.minimum is not None else -math.inf
    high = rule.maximum if rule.maximum is not None else math.inf
    if not (is_number(value) and low <= value <= high):
        raise RequestValidationError(
            f"{item.name} must be {expected}, got {_show(value)}", field=item.name
        )


def check_output_config(output_config: Any) -> None:
    """``output_config`` is an object; its ``format``, when given, ``{"type": "json_schema",
    "schema": {…}}`` (the one format both APIs take). Other keys (``effort``) go as they are."""
    if output_config is None:
        return
    if not isinstance(output_config, dict):
        raise RequestValidationError(
            'output_config must be an object {"format": {"type": "json_schema", "schema": {…}}}',
            field="output_config",
        )
    output_format = output_config.get("format")
    if output_format is None:
        return
    if not isinstance(output_format, dict) or output_format.get("type") != "json_schema":
        raise RequestValidationError(
            'expected {"type": "json_schema", "schema": {…}} (json_schema is the only format)',
            field="output_config.format",
        )
    schema = output_format.get("schema")
    if not isinstance(schema, dict) or not isinstance(schema.get("type"), str | list):
        raise RequestValidationError(
            'schema must be a JSON Schema object with a "type" (e.g. "object")',
            field="output_config.format.schema",
        )


def check_system(system: str | list[dict[str, Any]] | None) -> None:
    if system is None or isinstance(system, str):
        return
    if not isinstance(system, list):
        raise RequestValidationError(
            "system must be a string or a list of {type: 'text', text} blocks", field="system"
        )
    for index, block in enumerate(system):
        if not isinstance(block, dict) or block.get("type") != "text":
            raise RequestValidationError(
                "expected a {type: 'text', text} block (system takes text blocks only)",
                field=f"system[{index}]",
            )
        if not isinstance(block.get("text"), str) or not block["text"]:
            raise RequestValidationError(
                "text block needs a non-empty string 'text'", field=f"system[{index}].text"
            )


def check_stop_sequences(stop_sequences: Sequence[str]) -> None:
    if isinstance(stop_sequences, str) or not isinstance(stop_sequences, Sequence):
        raise RequestValidationError(
            "stop_sequences must be a list of strings", field="stop_sequences"
        )
    for index, sequence in enumerate(stop_sequences):
        if index >= MAX_STOP_SEQUENCES:
            raise RequestValidationError(
                f"too many stop sequences ({len(stop_sequences)}); at most "
                f"{MAX_STOP_SEQUENCES} are allowed",
                field=f"stop_sequences[{index}]",
            )
        if not isinstance(sequence, str) or not sequence:
            raise RequestValidationError(
                f"a stop sequence must be a non-empty string, got {_show(sequence)}",
                field=f"stop_sequences[{index}]",
            )


def _check_tools(tools: Sequence[dict[str, Any]], *, adapter: Adapter) -> list[str]:
    """Check every tool; return their names in order."""
    seen: dict[str, int] = {}
    for index, tool in enumerate(tools):
        where = f"tools[{index}]"
        if not isinstance(tool, dict):
            raise RequestValidationError(
                "expected a tool object {name, description?, input_schema}", field=where
            )
        kind = tool.get("type", "custom")
        name = tool.get("name")
        if kind != "custom":
            # A server tool (web search, code execution...): Anthropic runs it; FriendliAI
            # ignores it without a word, which would silently change the run.
            if adapter.server_tools == "refused":
                raise RequestValidationError(
                    f"server tool type {_show(kind)} is not supported by the {adapter.name} "
                    "dialect (it would be silently ignored); only custom tools "
                    "{name, description?, input_schema} are",
                    field=f"{where}.type",
                )
        elif not LIMITS.tool_name_ok(name):
            raise RequestValidationError(
                f"tool name {_show(name)} is invalid; use 1 to {LIMITS.tool_name_max} letters, "
                "digits, '_' or '-'",
                field=f"{where}.name",
            )
        else:
            schema = tool.get("input_schema")
            if not isinstance(schema, dict) or schema.get("type") != "object":
                raise RequestValidationError(
                    'input_schema must be a JSON Schema object with "type": "object"',
                    field=f"{where}.input_schema",
                )
            if "description" in tool and not isinstance(tool["description"], str):
                raise RequestValidationError(
                    "description must be a string when present", field=f"{where}.description"
                )
        if isinstance(name, str):
            if name in seen:
                raise RequestValidationError(
                    f"duplicate tool name {_show(name)} (already used by tools[{seen[name]}]); "
                    "tool names must be unique",
                    field=f"{where}.name",
                )
            seen[name] = index
    return list(seen)


def _check_tool_choice(tool_choice: dict[str, Any] | None, *, names: list[str]) -> None:
    if tool_choice is None:
        return
    if not isinstance(tool_choice, dict):
        raise RequestValidationError(
            f"tool_choice must be an object {{type: {'|'.join(TOOL_CHOICE_TYPES)}}}",
            field="tool_choice",
        )
    extra = [key for key in tool_choice if key not in TOOL_CHOICE_KEYS]
    if extra:
        raise RequestValidationError(
            f"unexpected key {_show(extra[0])} (valid: {', '.join(TOOL_CHOICE_KEYS)})",
            field=f"tool_choice.{extra[0]}",
        )
    kind = tool_choice.get("type")
    if kind not in TOOL_CHOICE_TYPES:
        raise RequestValidationError(
            f"unknown tool_choice type {_show(kind)} (valid: {', '.join(TOOL_CHOICE_TYPES)})",
            field="tool_choice.type",
        )
    if kind in ("any", "tool") and not names:
        raise RequestValidationError(
            f"tool_choice {_show(kind)} needs at least one tool in tools "
            "(without tools only 'auto' or 'none' make sense)",
            field="tool_choice",
        )
    if kind == "tool":
        name = tool_choice.get("name")
        if name not in names:
            raise RequestValidationError(
                f"tool_choice 'tool' must name one of the given tools ({', '.join(names)}), "
                f"got {_show(name)}",
                field="tool_choice.name",
            )
    elif "name" in tool_choice:
        raise RequestValidationError(
            f"name is only valid with tool_choice type 'tool', not {_show(kind)}",
            field="tool_choice.name",
        )
    if "disable_parallel_tool_use" in tool_choice:
        if not isinstance(tool_choice["disable_parallel_tool_use"], bool):
            raise RequestValidationError(
                "disable_parallel_tool_use must be true or false",
                field="tool_choice.disable_parallel_tool_use",
            )
        if kind == "none":
            raise RequestValidationError(
                "disable_parallel_tool_use is not valid with tool_choice 'none' "
                "(valid with auto, any, tool)",
                field="tool_choice.disable_parallel_tool_use",
            )


def _check_thinking(settings: Settings, *, adapter: Adapter) -> None:
    dialect = adapter.name
    thinking = settings.thinking
    if thinking is None:
        return
    if not isinstance(thinking, dict):
        raise RequestValidationError(
            f"thinking must be an object {{type: {'|'.join(THINKING_TYPES)}}}", field="thinking"
        )
    kind = thinking.get("type")
    if kind not in THINKING_TYPES:
        raise RequestValidationError(
            f"unknown thinking type {_show(kind)} (valid: {', '.join(THINKING_TYPES)})",
            field="thinking.type",
        )
    budget = thinking.get("budget_tokens")
    if kind != "enabled":
        if "budget_tokens" in thinking:
            raise RequestValidationError(
                f"thinking {_show(kind)} takes no budget_tokens (only 'enabled' does)",
                field="thinking.budget_tokens",
            )
    else:
        minimum = int(adapter.rule("thinking").minimum or 1)
        if not is_int(budget) or budget < minimum:
            raise RequestValidationError(
                f"thinking 'enabled' needs an integer budget_tokens >= {minimum} for the "
                f"{dialect} dialect, got {_show(budget)}",
                field="thinking.budget_tokens",
            )
        if settings.max_tokens is not None and budget >= settings.max_tokens:
            raise RequestValidationError(
                f"thinking budget ({budget}) not below max_tokens ({settings.max_tokens}); "
                "budget_tokens must be less than max_tokens",
                field="thinking.budget_tokens",
            )
    if kind == "disabled" or not adapter.thinking_limits_sampling:
        return
    # Anthropic: thinking is incompatible with forced tool use and with changed sampling.
    choice = settings.tool_choice
    if choice is not None and choice.get("type") in ("any", "tool"):
        raise RequestValidationError(
            f"tool_choice {choice['type']!r} is not allowed with thinking on the {dialect} "
            "dialect (valid: auto, none)",
            field="tool_choice",
        )
    if settings.temperature is not None and settings.temperature != 1:
        raise RequestValidationError(
            f"a changed temperature is not allowed with thinking on the {dialect} dialect "
            "(leave it unset, or 1)",
            field="temperature",
        )
    if settings.top_k is not None:
        raise RequestValidationError(
            f"top_k is not allowed with thinking on the {dialect} dialect (leave it unset)",
            field="top_k",
        )
