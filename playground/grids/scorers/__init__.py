"""Scorers behind a registry, one small module per kind, as promptfoo keeps ``src/assertions/``.

Rule: ``base`` holds what every scorer reads (an :class:`Answer`, the row's values) and says (a
:class:`Verdict`) and the registry; each module registers its kinds: ``text`` (equals,
contains, contains all / any, not contains, starts with, regex), ``structured`` (is JSON,
contains JSON, fits the schema, a value at a JSON Pointer), ``tools`` (called or not, an input
subset, a sequence, at most N turns), ``run`` (cost, time to first token, total time, output
tokens, stop reason) and ``judge`` (a rubric a model grades; its run is ``grids.judging``'s).
:func:`verdicts` scores an answer by every scorer that asks no model; no ORM anywhere here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from playground.grids.scorers import judge, run, structured, text, tools  # noqa: F401 (register)
from playground.grids.scorers.base import (
    KINDS,
    SCORERS_MAX,
    Answer,
    Verdict,
    check_scorers,
    judges_of,
    scorers_for_column,
)

__all__ = [
    "KINDS",
    "SCORERS_MAX",
    "Answer",
    "Verdict",
    "check_scorers",
    "judges_of",
    "scorers_for_column",
    "verdict_of",
]


def verdict_of(scorer: Mapping[str, Any], answer: Answer, values: Mapping[str, str]) -> Verdict:
    """One scorer's verdict on ``answer`` (a judge's: none yet, its run gives it)."""
    kind = KINDS[str(scorer["kind"])]
    shaped = kind.shape.model_validate(scorer)
    try:
        return kind.judge(shaped, answer, values)
    except KeyError as exc:
        return Verdict(False, f"this row has no value for {{{{{exc.args[0]}}}}}")


def verdicts(
    scorers: Sequence[Mapping[str, Any]], answer: Answer, values: Mapping[str, str]
) -> list[tuple[Mapping[str, Any], Verdict]]:
    return [(scorer, verdict_of(scorer, answer, values)) for scorer in scorers]
