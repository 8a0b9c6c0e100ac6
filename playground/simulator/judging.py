"""The simulator as a deterministic judge: a request holding a ``<rubric>`` and an ``<answer>``
(a grid's judge scorer, ``grids.judging``, or a promptfoo ``llm-rubric`` sent with the same
prompt) is answered with a score, a reason and a verdict, as JSON.

Rule: PURE and deterministic: the same rubric and answer give the same score. The rubric's
quoted phrases (``'ocean'``, ``"a tide"``) are what it asks for; the score is the share of them
the answer holds (case-insensitively), 1 for a rubric with none and an answer with any text.
The verdict passes at the threshold the prompt states ("passes with a score of at least
0.7"), else at 0.5. So a test, a CI run and promptfoo all read the same verdict.
"""

from __future__ import annotations

import json
import re

__all__ = ["judge_answer"]

_RUBRIC = re.compile(r"<rubric>\n?(.*?)\n?</rubric>", re.DOTALL)
_ANSWER = re.compile(r"<answer>\n?(.*?)\n?</answer>", re.DOTALL)
_THRESHOLD = re.compile(r"score of at least ([01](?:\.\d+)?)")
_QUOTED = re.compile(r"'([^'\n]{1,200})'|\"([^\"\n]{1,200})\"")


def judge_answer(prompt: str) -> str | None:
    """The judge's JSON answer to ``prompt``, or None when it is no judge's request."""
    rubric_match, answer_match = _RUBRIC.search(prompt), _ANSWER.search(prompt)
    if rubric_match is None or answer_match is None:
        return None
    rubric, answer = rubric_match.group(1), answer_match.group(1)
    wanted = [first or second for first, second in _QUOTED.findall(rubric)]
    threshold_match = _THRESHOLD.search(prompt)
    threshold = float(threshold_match.group(1)) if threshold_match else 0.5
    if wanted:
        held = [phrase for phrase in wanted if phrase.casefold() in answer.casefold()]
        score = round(len(held) / len(wanted), 3)
        lacking = [phrase for phrase in wanted if phrase not in held]
        parts = []
        if held:
            parts.append("mentions " + ", ".join(repr(p) for p in held))
        if lacking:
            parts.append("does not mention " + ", ".join(repr(p) for p in lacking))
        reason = "; ".join(parts)
    else:
        score = 1.0 if answer.strip() else 0.0
        reason = "the answer says something" if score else "the answer is empty"
    return json.dumps(
        {"score": score, "reason": reason, "pass": score >= threshold}, ensure_ascii=False
    )
