"""Make a tool call's ``input`` from the tool's JSON schema, with values drawn from the prompt.

Rule: PURE. The value always fits the schema's shape (types, enums, bounds, required keys,
array sizes, local ``$ref`` into ``$defs``/``definitions``), so a client can validate it;
optional properties appear or not by the seeded ``random.Random``. Only the subset of JSON
Schema that tool definitions use is understood; anything else falls back to a string, and a
``pattern`` is not aimed at (the page's schema check shows such a value as not matching).
"""

from __future__ import annotations

import random
import re
from typing import Any

from playground.simulator.prose import keywords, topic_of

_PLACE = re.compile(r"\b(?:in|for|at|near|from)\s+([A-Z][\w'-]*(?:[ ,]+[A-Z][\w'-]*)*)")
_AFTER_PREP = re.compile(r"\b(?:in|for|at|near|from)\s+([A-Za-z][\w'-]*)", re.IGNORECASE)
_PLACE_KEYS = ("location", "city", "place", "country", "region", "address", "where")
_QUERY_KEYS = ("query", "q", "search", "text", "prompt", "topic", "question", "term", "keyword")
_MAX_DEPTH = 6


def _place(prompt: str) -> str:
    match = _PLACE.search(prompt) or _AFTER_PREP.search(prompt)
    if match:
        return match.group(1).strip(" ,")
    words = keywords(prompt)
    return words[-1] if words else "Seoul"


def _string(rng: random.Random, *, schema: dict[str, Any], key: str, prompt: str) -> str:
    fmt = schema.get("format")
    lowered = key.lower()
    if fmt == "date" or lowered.endswith("date"):
        value = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    elif fmt == "date-time":
        day = f"2026-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
        value = f"{day}T{rng.randint(0, 23):02d}:00:00Z"
    elif fmt == "email" or "email" in lowered:
        value = "someone@example.com"
    elif fmt in ("uri", "url") or lowered in ("url", "uri", "link"):
        value = "https://example.com/" + (keywords(prompt) or ["page"])[0].lower()
    elif any(part in lowered for part in _PLACE_KEYS):
        value = _place(prompt)
    elif lowered in _QUERY_KEYS or any(lowered.endswith(k) for k in ("query", "topic")):
        value = topic_of(prompt)
    else:
        words = keywords(prompt)
        value = rng.choice(words) if words else "example"
    low = schema.get("minLength", 0)
    high = schema.get("maxLength")
    if isinstance(low, int) and len(value) < low:
        value = value + "x" * (low - len(value))
    if isinstance(high, int) and len(value) > high:
        value = value[:high]
    return value


def _bounds(schema: dict[str, Any], default: tuple[float, float]) -> tuple[float, float]:
    low = schema.get("minimum", schema.get("exclusiveMinimum", default[0]))
    high = schema.get("maximum", schema.get("exclusiveMaximum", max(default[1], low + 1)))
    return float(low), float(high)


def _kind(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if isinstance(kind, str):
        return kind
    if "properties" in schema:
        return "object"
    if "items" in schema:
        return "array"
    return "string"


def _resolve(schema: dict[str, Any], root: dict[str, Any]) -> dict[str, Any]:
    """The schema a local ``$ref`` ("#/$defs/Address") points at, or ``schema`` itself."""
    seen = 0
    while isinstance(schema.get("$ref"), str) and schema["$ref"].startswith("#") and seen < 32:
        target: Any = root
        for part in schema["$ref"][1:].split("/")[1:]:
            key = part.replace("~1", "/").replace("~0", "~")
            target = target.get(key) if isinstance(target, dict) else None
        if not isinstance(target, dict):
            return {}
        schema, seen = target, seen + 1
    return schema


def value_for(
    rng: random.Random,
    *,
    schema: dict[str, Any],
    prompt: str,
    key: str = "",
    depth: int = 0,
    root: dict[str, Any] | None = None,
) -> Any:
    """One value that fits ``schema``; ``key`` is the property name, a hint for strings;
    ``root`` is the tool's whole schema, where ``$ref`` is looked up."""
    root = schema if root is None else root
    schema = _resolve(schema, root)
    if "const" in schema:
        return schema["const"]
    if isinstance(schema.get("enum"), list) and schema["enum"]:
        return rng.choice(schema["enum"])
    for combinator in ("anyOf", "oneOf", "allOf"):
        options = schema.get(combinator)
        if isinstance(options, list) and options and isinstance(options[0], dict):
            return value_for(rng, schema=options[0], prompt=prompt, key=key, depth=depth, root=root)
    kind = _kind(schema)
    if kind == "object":
        return object_for(rng, schema=schema, prompt=prompt, depth=depth + 1, root=root)
    if kind == "array":
        raw_items = schema.get("items")
        items: dict[str, Any] = raw_items if isinstance(raw_items, dict) else {}
        fewest = int(schema.get("minItems", 1))
        most = int(schema.get("maxItems", max(fewest, 3)))
        count = (
            0 if depth >= _MAX_DEPTH else rng.randint(fewest, max(fewest, min(most, fewest + 2)))
        )
        return [
            value_for(rng, schema=items, prompt=prompt, key=key, depth=depth + 1, root=root)
            for _ in range(count)
        ]
    if kind == "integer":
        low, high = _bounds(schema, (1, 10))
        return rng.randint(int(low), int(high))
    if kind == "number":
        low, high = _bounds(schema, (0, 100))
        return round(rng.uniform(low, high), 2)
    if kind == "boolean":
        return rng.random() < 0.5
    if kind == "null":
        return None
    return _string(rng, schema=schema, key=key, prompt=prompt)


def object_for(
    rng: random.Random,
    *,
    schema: dict[str, Any],
    prompt: str,
    depth: int = 0,
    root: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Every required property, plus each optional one with even odds (none past the depth cap)."""
    root = schema if root is None else root
    raw_properties = schema.get("properties")
    properties: dict[str, Any] = raw_properties if isinstance(raw_properties, dict) else {}
    required = set(schema.get("required") or ())
    out: dict[str, Any] = {}
    for name, sub in properties.items():
        wanted = name in required or (depth < _MAX_DEPTH and rng.random() < 0.5)
        if wanted:
            sub_schema = sub if isinstance(sub, dict) else {}
            out[name] = value_for(
                rng, schema=sub_schema, prompt=prompt, key=name, depth=depth, root=root
            )
    return out
