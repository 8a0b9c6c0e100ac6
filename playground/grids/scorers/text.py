"""Scorers on the answer's text: equals, contains (all, any, none), starts with, a regex.

Rule: the text is the answer's text blocks joined (what the grid shows); ``ignore_case``
compares both sides case-folded. A regex is Python's ``re`` (``search``), checked when the
scorer is saved; it runs on at most :data:`REGEX_TEXT_MAX` characters of the answer, and a
pattern is at most 1,000 characters, so one scorer cannot hold the server for long.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import Field, field_validator

from playground.grids.scorers.base import Answer, Kind, ScorerBase, Verdict, expand, register

__all__ = ["REGEX_TEXT_MAX"]

REGEX_TEXT_MAX = 200_000
_VALUE_MAX = 100_000


def _fold(text: str, ignore_case: bool) -> str:
    return text.casefold() if ignore_case else text


def _quote(text: str, limit: int = 80) -> str:
    return repr(text if len(text) <= limit else text[:limit] + "…")


class _One(ScorerBase):
    value: str = Field(max_length=_VALUE_MAX)
    ignore_case: bool = False


class _Many(ScorerBase):
    values: list[str] = Field(min_length=1, max_length=100)
    ignore_case: bool = False


class Equals(_One):
    noun = "an equals scorer {kind, value, ignore_case?}"


class Contains(_One):
    noun = "a contains scorer {kind, value, ignore_case?}"


class NotContains(_One):
    noun = "a not_contains scorer {kind, value, ignore_case?}"


class StartsWith(_One):
    noun = "a starts_with scorer {kind, value, ignore_case?}"


class ContainsAll(_Many):
    noun = "a contains_all scorer {kind, values, ignore_case?}"


class ContainsAny(_Many):
    noun = "a contains_any scorer {kind, values, ignore_case?}"


class Regex(ScorerBase):
    noun = "a regex scorer {kind, pattern, ignore_case?}"

    pattern: str = Field(min_length=1, max_length=1000)
    ignore_case: bool = False

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"not a regular expression: {exc}") from None
        return pattern


def _equals(scorer: Equals, answer: Answer, values: Mapping[str, str]) -> Verdict:
    wanted = expand(scorer.value, values)
    same = _fold(answer.text, scorer.ignore_case) == _fold(wanted, scorer.ignore_case)
    return Verdict(same, f"equals {_quote(wanted)}" if same else f"is not {_quote(wanted)}")


def _contains(scorer: Contains, answer: Answer, values: Mapping[str, str]) -> Verdict:
    wanted = expand(scorer.value, values)
    found = _fold(wanted, scorer.ignore_case) in _fold(answer.text, scorer.ignore_case)
    return Verdict(found, f"{'contains' if found else 'does not contain'} {_quote(wanted)}")


def _not_contains(scorer: NotContains, answer: Answer, values: Mapping[str, str]) -> Verdict:
    unwanted = expand(scorer.value, values)
    found = _fold(unwanted, scorer.ignore_case) in _fold(answer.text, scorer.ignore_case)
    return Verdict(not found, f"{'contains' if found else 'does not contain'} {_quote(unwanted)}")


def _starts_with(scorer: StartsWith, answer: Answer, values: Mapping[str, str]) -> Verdict:
    wanted = expand(scorer.value, values)
    starts = _fold(answer.text, scorer.ignore_case).startswith(_fold(wanted, scorer.ignore_case))
    return Verdict(starts, f"{'starts' if starts else 'does not start'} with {_quote(wanted)}")


def _contains_all(scorer: ContainsAll, answer: Answer, values: Mapping[str, str]) -> Verdict:
    text = _fold(answer.text, scorer.ignore_case)
    wanted = [expand(value, values) for value in scorer.values]
    missing = [value for value in wanted if _fold(value, scorer.ignore_case) not in text]
    if missing:
        return Verdict(False, "lacks " + ", ".join(map(_quote, missing)))
    return Verdict(True, f"contains all {len(wanted)}")


def _contains_any(scorer: ContainsAny, answer: Answer, values: Mapping[str, str]) -> Verdict:
    text = _fold(answer.text, scorer.ignore_case)
    wanted = [expand(value, values) for value in scorer.values]
    found = [value for value in wanted if _fold(value, scorer.ignore_case) in text]
    if found:
        return Verdict(True, f"contains {_quote(found[0])}")
    return Verdict(False, "contains none of " + ", ".join(map(_quote, wanted)))


def _regex(scorer: Regex, answer: Answer, values: Mapping[str, str]) -> Verdict:
    flags = re.IGNORECASE if scorer.ignore_case else 0
    match = re.search(scorer.pattern, answer.text[:REGEX_TEXT_MAX], flags)
    if match is None:
        return Verdict(False, f"no match for /{scorer.pattern}/")
    return Verdict(True, f"matches {_quote(match.group(0))}")


for _kind in (
    Kind("equals", Equals, _equals, "Equals"),
    Kind("contains", Contains, _contains, "Contains"),
    Kind("not_contains", NotContains, _not_contains, "Does not contain"),
    Kind("starts_with", StartsWith, _starts_with, "Starts with"),
    Kind("contains_all", ContainsAll, _contains_all, "Contains all"),
    Kind("contains_any", ContainsAny, _contains_any, "Contains any"),
    Kind("regex", Regex, _regex, "Matches"),
):
    register(_kind)
