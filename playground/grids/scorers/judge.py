"""A judge: a rubric, asked of a model through any configured profile, at temperature 0, with
structured output for a score (0 to 1) and a reason; passed at a threshold.

Rule: this module is the judge's words, not its run: :func:`judge_request` is the request (the
rubric with the row's variables filled in, the answer, the threshold, a JSON Schema for the
verdict), :func:`read_verdict` the verdict read from the judge's answer (the text parsed as
JSON, a score outside 0 to 1 or no score refused as the judge's failure, never a guess). The
run itself (a slot, the profile's client, the run kept and openable) is ``grids.judging``'s.
The built-in simulator answers this request as a deterministic judge
(``simulator.judging``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any

from pydantic import Field

from playground.grids.scorers.base import Answer, Kind, ScorerBase, Verdict, expand, register

__all__ = [
    "JUDGE_MAX_TOKENS",
    "JUDGE_SCHEMA",
    "JUDGE_SYSTEM",
    "JudgeScorer",
    "judge_key",
    "judge_prompt",
    "judge_request",
    "read_verdict",
]

#: What the judge answers: a score from 0 to 1 and a reason (``pass`` optional: ours is the
#: threshold's).
JUDGE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "score": {"type": "number", "minimum": 0, "maximum": 1},
        "reason": {"type": "string"},
        "pass": {"type": "boolean"},
    },
    "required": ["score", "reason"],
    "additionalProperties": False,
}
#: Who the judge is told it is.
JUDGE_SYSTEM = "You are a strict, fair grader. You reply with JSON only."
#: The judge's answer is a verdict, not an essay.
JUDGE_MAX_TOKENS = 1024
#: How much of the answer the judge reads.
ANSWER_CHARS = 60_000


class JudgeScorer(ScorerBase):
    noun = "a judge scorer {kind, rubric, profile?, model?, threshold?}"

    rubric: str = Field(min_length=1, max_length=20_000)
    #: The profile and model that judge (None: the grid's conversation's).
    profile: str | None = Field(default=None, max_length=100)
    model: str | None = Field(default=None, max_length=200)
    threshold: float = Field(default=0.5, ge=0, le=1)


def judge_prompt(*, rubric: str, answer: str, threshold: float) -> str:
    """The judge's one user turn (promptfoo's ``rubricPrompt`` says the same on export)."""
    return (
        "Grade the answer against the rubric.\n"
        f"<rubric>\n{rubric}\n</rubric>\n"
        f"<answer>\n{answer[:ANSWER_CHARS]}\n</answer>\n"
        f"An answer passes with a score of at least {threshold:g}. Reply with JSON only: "
        '{"score": a number from 0 to 1, "reason": "why, in one sentence", "pass": true or false}.'
    )


def judge_request(
    scorer: Mapping[str, Any], *, answer: Answer, values: Mapping[str, str], model: str
) -> dict[str, Any]:
    """The judge's request body for ``answer`` (``KeyError``: the rubric names a variable the
    row lacks)."""
    shaped = JudgeScorer.model_validate(scorer)
    rubric = expand(shaped.rubric, values)
    return {
        "model": model,
        "max_tokens": JUDGE_MAX_TOKENS,
        "temperature": 0,
        "system": JUDGE_SYSTEM,
        "messages": [
            {
                "role": "user",
                "content": judge_prompt(
                    rubric=rubric, answer=answer.text, threshold=shaped.threshold
                ),
            }
        ],
        "output_config": {"format": {"type": "json_schema", "schema": JUDGE_SCHEMA}},
    }


def read_verdict(text: str, *, threshold: float) -> Verdict:
    """The judge's answer as a verdict; one that is not a verdict fails, saying why."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError:
        return Verdict(False, f"the judge's answer is not JSON: {text[:120]!r}")
    score = value.get("score") if isinstance(value, dict) else None
    if isinstance(score, bool) or not isinstance(score, int | float) or not 0 <= score <= 1:
        return Verdict(False, f"the judge gave no score from 0 to 1: {text[:120]!r}")
    reason = str(value.get("reason") or "").strip() or "no reason given"
    return Verdict(score >= threshold, reason[:2000], score=float(score))


def judge_key(scorer: Mapping[str, Any]) -> str:
    """What a judge's verdict depends on besides the answer: a verdict made under another key
    is made again (an edit of the rubric, the threshold, the model)."""
    fields = {k: scorer.get(k) for k in ("rubric", "profile", "model", "threshold", "column")}
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:16]


def _not_run(scorer: JudgeScorer, answer: Answer, values: Mapping[str, str]) -> Verdict:
    return Verdict(None, "not judged yet")


register(Kind("judge", JudgeScorer, _not_run, "Judge", asks_a_model=True))
