"""What every scorer reads and says: the answer, the row's values, a verdict; and the registry.

Rule: a scorer is data (``{id, name, kind, column?, …}``), checked once by its kind's shape
(:func:`check_scorers`, a refusal naming ``scorers[2].value``) and judged by its kind's one
function: an :class:`Answer` and the row's values in, a :class:`Verdict` out (passed or not, a
score from 0 to 1 where the kind has one, and a reason a person can read). Expected values may
name the row's variables (``{{expected}}``), filled in per row; a variable the row does not
have fails the scorer, naming it. Kinds register here (one small module each, as promptfoo
keeps ``src/assertions/``); nothing here calls a model (a judge's run is ``grids.judging``'s).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from pydantic import Field

from playground.protocol.errors import RequestValidationError
from playground.protocol.shape import Shape, parse
from playground.protocol.variables import fill_text, names_in

__all__ = [
    "KINDS",
    "SCORERS_MAX",
    "Answer",
    "Kind",
    "ScorerBase",
    "Verdict",
    "check_scorers",
    "expand",
    "judges_of",
    "register",
    "scorers_for_column",
]

#: Enough for any grid worth reading: each answer is judged by each of them.
SCORERS_MAX = 20


@dataclass(frozen=True, slots=True)
class Verdict:
    """``passed`` None: no verdict (a judge not run yet, a kind that needs what the answer
    lacks is a failure instead, with why)."""

    passed: bool | None
    reason: str
    score: float | None = None


@dataclass(frozen=True, slots=True)
class Answer:
    """An answer as the scorers see it (``grids.scoring`` makes it from an ``EvalResult``)."""

    status: str
    text: str
    content: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = ""
    usage: Mapping[str, Any] = field(default_factory=dict)
    cost_nanos: int | None = None
    unpriced: int = 0
    ttft_ms: int | None = None
    duration_ms: int | None = None
    #: The trajectory: each tool call ``{turn, id, name, input, result, source}``.
    calls: Sequence[Mapping[str, Any]] = ()
    turns: int = 1
    #: How a tool loop ended (``grids.tool_loop``: ``answered``, ``needs_result``,
    #: ``turn_cap``…); empty for an answer not run as a grid's repeat.
    loop_end: str = ""
    #: The JSON Schema the request asked the answer to follow, if it asked for one.
    output_schema: Mapping[str, Any] | None = None


class ScorerBase(Shape):
    """The fields every scorer has; a kind's shape adds its own."""

    noun = "a scorer {id?, name?, kind, column?, …}"

    id: str | None = Field(default=None, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")
    name: str = Field(default="", max_length=200)
    kind: str
    #: The column it scores (None: every column).
    column: int | None = Field(default=None, ge=0, le=3)


Judge = Callable[[Any, Answer, Mapping[str, str]], Verdict]


@dataclass(frozen=True, slots=True)
class Kind:
    """One kind of scorer: its shape, its judge, what a person calls it, and whether a model
    is asked (a judge: its verdict comes from a run, ``grids.judging``)."""

    name: str
    shape: type[ScorerBase]
    judge: Judge
    title: str
    asks_a_model: bool = False


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind


def expand(text: str, values: Mapping[str, str]) -> str:
    """``text`` with the row's variables filled in; a variable the row lacks raises
    ``KeyError`` naming it (the scorer fails, saying which)."""
    missing = [name for name in names_in(text) if name not in values]
    if missing:
        raise KeyError(missing[0])
    return fill_text(text, values)


def check_scorers(value: Any, *, columns: int, field: str = "scorers") -> list[dict[str, Any]]:
    """The scorers as a grid keeps them (each with an ``id`` and a ``name``), or a refusal
    naming the place (``scorers[1].pattern``)."""
    if not isinstance(value, list):
        raise RequestValidationError("expected a list of scorers", field=field)
    if len(value) > SCORERS_MAX:
        raise RequestValidationError(
            f"a grid has at most {SCORERS_MAX} scorers, got {len(value)}", field=field
        )
    checked: list[dict[str, Any]] = []
    seen: set[str] = set()
    for index, item in enumerate(value):
        place = f"{field}[{index}]"
        kind_name = item.get("kind") if isinstance(item, dict) else None
        kind = KINDS.get(kind_name) if isinstance(kind_name, str) else None
        if kind is None:
            names = ", ".join(sorted(KINDS))
            raise RequestValidationError(
                f"unknown kind {kind_name!r}; the kinds are {names}", field=f"{place}.kind"
            )
        shaped = parse(kind.shape, item, field=place)
        if shaped.column is not None and shaped.column >= columns:
            raise RequestValidationError(
                f"no column {shaped.column}: the grid has {columns}", field=f"{place}.column"
            )
        data = shaped.model_dump()
        data["id"] = data["id"] or secrets.token_hex(4)
        if data["id"] in seen:
            raise RequestValidationError(f"two scorers are {data['id']!r}", field=f"{place}.id")
        seen.add(data["id"])
        data["name"] = data["name"] or kind.title
        checked.append(data)
    return checked


def scorers_for_column(
    scorers: Sequence[Mapping[str, Any]], column: int
) -> list[Mapping[str, Any]]:
    return [s for s in scorers if s.get("column") is None or s.get("column") == column]


def judges_of(scorers: Sequence[Mapping[str, Any]] | None) -> list[Mapping[str, Any]]:
    """The scorers whose verdict a model gives."""
    return [
        s for s in scorers or () if (kind := KINDS.get(str(s.get("kind")))) and kind.asks_a_model
    ]
