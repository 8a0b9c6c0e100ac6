"""Scorers on the run: its cost, time to first token, total time and output tokens under a bound,
and its stop reason one of a list.

Rule: the figures are the answer's as stored (every turn of a tool loop together: the cost and
tokens summed, the total time from the first turn's start to the last's end, the time to first
token the first turn's). A bound is inclusive. A cost bound is in the price table's currency;
an answer with a turn the table names no price for has no cost, and fails the bound, saying
"no price set" (never a guess).
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import Field

from playground.grids.scorers.base import Answer, Kind, ScorerBase, Verdict, register
from playground.usage.prices import NANOS, format_amount

__all__: list[str] = []


class CostMax(ScorerBase):
    noun = "a cost_max scorer {kind, max}"

    max: float = Field(ge=0)


class TtftMax(ScorerBase):
    noun = "a ttft_max scorer {kind, max_ms}"

    max_ms: int = Field(ge=0)


class DurationMax(ScorerBase):
    noun = "a duration_max scorer {kind, max_ms}"

    max_ms: int = Field(ge=0)


class OutputTokensMax(ScorerBase):
    noun = "an output_tokens_max scorer {kind, max}"

    max: int = Field(ge=0)


class StopReasonIn(ScorerBase):
    noun = "a stop_reason_in scorer {kind, reasons}"

    reasons: list[str] = Field(min_length=1, max_length=20)


def _cost_max(scorer: CostMax, answer: Answer, values: Mapping[str, str]) -> Verdict:
    if answer.cost_nanos is None or answer.unpriced:
        return Verdict(False, "no price set")
    bound = round(scorer.max * NANOS)
    cheap = answer.cost_nanos <= bound
    return Verdict(cheap, f"cost {format_amount(answer.cost_nanos)} (at most {scorer.max:g})")


def _under(value: int | None, bound: int, what: str, unit: str) -> Verdict:
    if value is None:
        return Verdict(False, f"no {what}")
    return Verdict(value <= bound, f"{what} {value:,}{unit} (at most {bound:,}{unit})")


def _ttft_max(scorer: TtftMax, answer: Answer, values: Mapping[str, str]) -> Verdict:
    return _under(answer.ttft_ms, scorer.max_ms, "time to first token", " ms")


def _duration_max(scorer: DurationMax, answer: Answer, values: Mapping[str, str]) -> Verdict:
    return _under(answer.duration_ms, scorer.max_ms, "total time", " ms")


def _output_tokens_max(
    scorer: OutputTokensMax, answer: Answer, values: Mapping[str, str]
) -> Verdict:
    tokens = answer.usage.get("output_tokens")
    return _under(tokens if isinstance(tokens, int) else None, scorer.max, "output tokens", "")


def _stop_reason_in(scorer: StopReasonIn, answer: Answer, values: Mapping[str, str]) -> Verdict:
    inside = answer.stop_reason in scorer.reasons
    return Verdict(inside, f"stopped by {answer.stop_reason or 'nothing'}")


for _kind in (
    Kind("cost_max", CostMax, _cost_max, "Cost at most"),
    Kind("ttft_max", TtftMax, _ttft_max, "Time to first token at most"),
    Kind("duration_max", DurationMax, _duration_max, "Total time at most"),
    Kind("output_tokens_max", OutputTokensMax, _output_tokens_max, "Output tokens at most"),
    Kind("stop_reason_in", StopReasonIn, _stop_reason_in, "Stop reason one of"),
):
    register(_kind)
