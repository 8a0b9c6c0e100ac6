"""A tool loop's record taking a turn a person started by hand (``grids.by_hand``), pure.

Rule: a turn continues a repeat that ended ``needs_result`` when its request's last user turn
answers at least one of that repeat's calls still without a result. The record then takes the
results given (source ``hand``), the turn, and the calls the turn made: still waiting for
results, the loop still needs one; none, it ``answered``; a run that did not complete ends it
with its status. Stored JSON in, JSON out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["continued_record", "continues_loop"]


def continues_loop(stored: Any, sent: Any) -> bool:
    """Whether a run whose request was ``sent`` goes on by hand with the cell's last repeat
    (``EvalCell.repeats``), which ended needing a result."""
    done = stored.get("done") if isinstance(stored, dict) else None
    last = done[-1] if isinstance(done, list) and done else None
    if not isinstance(last, dict) or last.get("end") != "needs_result":
        return False
    given = _results_sent(sent)
    return any(_waiting(call) and str(call.get("id")) in given for call in last.get("calls") or [])


def _waiting(call: Mapping[str, Any]) -> bool:
    return call.get("result") is None and call.get("source") is None


def continued_record(record: Mapping[str, Any], *, sent: Any, end: Any) -> dict[str, Any] | None:
    """``record`` (a repeat that ended ``needs_result``) taking the turn whose request was
    ``sent`` and whose run ended as ``end`` (``loop_turns.TurnEnd``); None when that request
    answers none of its calls still waiting (not this loop's next turn)."""
    given = _results_sent(sent)
    calls = [dict(call) for call in record.get("calls") or []]
    answered = 0
    for call in calls:
        result = given.get(str(call.get("id")))
        if _waiting(call) and result is not None:
            call.update(
                result=result.get("content"), is_error=bool(result.get("is_error")), source="hand"
            )
            call.pop("note", None)
            answered += 1
    if not answered:
        return None
    turn = int(record.get("turns") or 1) + 1
    if end.status != "complete":
        outcome = str(end.status)
    elif end.calls:
        outcome = "needs_result"  # the person answers these too, on their cards
    else:
        outcome = "answered"
    calls.extend(
        {
            "turn": turn,
            "id": call.get("id"),
            "name": call.get("name"),
            "input": call.get("input"),
            "result": None,
            "is_error": False,
            "source": None,
            "note": "its result is given in the conversation",
        }
        for call in end.calls
    )
    earlier = record.get("duration_ms")
    duration = end.duration_ms
    if isinstance(earlier, int):
        duration = earlier + (duration or 0)
    return {
        **record,
        "run": end.run_id,
        "runs": [*(record.get("runs") or []), end.run_id],
        "status": end.status,
        "end": outcome,
        "turns": turn,
        "calls": calls,
        "duration_ms": duration,
        "output_tokens": int(record.get("output_tokens") or 0) + end.output_tokens,
    }


def _results_sent(sent: Any) -> dict[str, Mapping[str, Any]]:
    """The tool results of the request's last user turn, by the call they answer."""
    messages = sent.get("messages") if isinstance(sent, dict) else None
    if not isinstance(messages, list) or not messages:
        return {}
    last = messages[-1]
    content = last.get("content") if isinstance(last, dict) else None
    if not isinstance(content, list):
        return {}
    return {
        str(block.get("tool_use_id")): block
        for block in content
        if isinstance(block, dict) and block.get("type") == "tool_result"
    }
