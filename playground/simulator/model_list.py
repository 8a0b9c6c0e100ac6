"""The simulator's ``GET /v1/models``: its models in Anthropic's list shape, paged as Anthropic
pages (``limit`` 1 to 1000, default 20; ``after_id``), so a client's paging is tried for real.

Rule: pure; the names are the simulator profile's (``upstream.profiles.SIMULATOR_MODELS``),
newest first as Anthropic orders them. A bad ``limit`` or an unknown ``after_id`` is refused
with the error tree's ``RequestValidationError`` (the view answers 400 in Anthropic's shape).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playground.protocol.errors import RequestValidationError

__all__ = ["DEFAULT_LIMIT", "MAX_LIMIT", "model_page"]

DEFAULT_LIMIT = 20
MAX_LIMIT = 1000
#: A fixed date: the simulator is deterministic.
CREATED_AT = "2025-01-01T00:00:00Z"


def _limit(raw: str | None) -> int:
    if raw is None:
        return DEFAULT_LIMIT
    if not raw.isdigit() or not 1 <= int(raw) <= MAX_LIMIT:
        raise RequestValidationError(
            f"must be an integer from 1 to {MAX_LIMIT}, got {raw!r}", field="limit"
        )
    return int(raw)


def model_page(*, models: Sequence[str], query: Mapping[str, str]) -> dict[str, Any]:
    """The page ``query`` (the request's query string) asks for."""
    limit = _limit(query.get("limit"))
    start = 0
    after = query.get("after_id")
    if after is not None:
        if after not in models:
            raise RequestValidationError(f"no model {after!r} to page after", field="after_id")
        start = list(models).index(after) + 1
    page = list(models)[start : start + limit]
    return {
        "data": [
            {"type": "model", "id": name, "display_name": name, "created_at": CREATED_AT}
            for name in page
        ],
        "has_more": start + limit < len(models),
        "first_id": page[0] if page else None,
        "last_id": page[-1] if page else None,
    }
