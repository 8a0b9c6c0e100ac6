"""What a server asks during a call (sampling, elicitation), and who answers it.

Rule: a call brings a :class:`Respondent` (``calls.call_tool``), which its connection hands each
``sampling/createMessage`` and ``elicitation/create`` the server sends while the call is in
flight. A grid row's (:func:`unattended_respondent`) answers sampling with a named profile and
no person (``sampling.profile_answerer``), or refuses it when the grid names none, and declines
elicitation; a conversation's is
:func:`person_respondent`, which puts the question on the call's card (a ``notice`` line of kind
``sampling`` or ``elicitation``, with an id) and waits for the person's answer, given on the
conversation's socket (``mcp_answer``) or by ``POST /api/mcp/answers/``; only the user the
question was asked of can answer it (:data:`QUESTIONS`). The call's timeout does not run while
the server waits on an answer (``calls.CallDeadline``); a call cancelled or timed out takes its
open questions with it, and the server is told.
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from playground.mcp.sampling import (
    Answerer,
    RunPlace,
    SamplingAnswer,
    SamplingRefused,
    SamplingRequest,
    answer_result,
    profile_answerer,
)
from playground.protocol.errors import NotFound, RequestValidationError

__all__ = ["QUESTIONS", "Questions", "Respondent", "person_respondent", "unattended_respondent"]

Elicit = Callable[[dict[str, Any]], Awaitable[dict[str, Any]]]
Notice = Callable[[dict[str, Any]], None]


@dataclass(frozen=True)
class Respondent:
    """Who answers a call's server: ``sample`` its sampling requests, ``elicit`` its
    elicitations (``None``: refused, the server told so)."""

    sample: Answerer | None = None
    elicit: Elicit | None = None


class Questions:
    """The questions open in this process, each owned by the user it was asked of."""

    def __init__(self) -> None:
        self._open: dict[str, tuple[str, asyncio.Future[dict[str, Any]]]] = {}

    def ask(self, *, user_key: str) -> tuple[str, asyncio.Future[dict[str, Any]]]:
        question = secrets.token_urlsafe(12)
        answered: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._open[question] = (user_key, answered)
        answered.add_done_callback(lambda _: self._open.pop(question, None))
        return question, answered

    def answer(self, *, user_key: str, question: str, answer: Any) -> None:
        found = self._open.get(question)
        if found is None or found[0] != user_key:  # another's question is no question of yours
            raise NotFound("no such question waiting (answered already, or its call ended)")
        if not isinstance(answer, dict):
            raise RequestValidationError("the answer must be an object", field="answer")
        if not found[1].done():
            found[1].set_result(answer)


QUESTIONS = Questions()


def person_respondent(
    *, user_key: str, notice: Notice, place: RunPlace | None = None
) -> Respondent:
    """Asks the person at the call's card, through ``notice`` (the call's live lines). An
    approved sampling request runs as a run of its own beside the call's conversation
    (``place``); a call made for no conversation has nowhere to hold that run, and its
    server's sampling requests are refused, saying so (a person's answer is always a run,
    counted in their usage and held to their budgets)."""

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        if place is None:
            raise SamplingRefused(
                "sampling is answered only for a call made for a conversation's tool call "
                "(the answer is a run of that conversation)"
            )
        question, answered = QUESTIONS.ask(user_key=user_key)
        notice({"kind": "sampling", "question": question, "request": request.as_dict()})
        try:
            decision = await answered
        finally:
            answered.cancel()  # a call that ended first: the question goes with it
        if decision.get("action") != "approve":
            notice({"kind": "sampling_done", "question": question, "refused": True})
            raise SamplingRefused("the person refused the sampling request")
        try:
            edited = request.edited(decision.get("request") or {})
        except ValueError as exc:
            raise SamplingRefused(f"the request as edited is not valid: {exc}") from exc
        profile = str(decision.get("profile") or "")
        ran: dict[str, Any] = {}  # the answer's run, once started

        def started(run: dict[str, Any]) -> None:
            ran.update(run)
            notice({"kind": "sampling_run", "question": question, "run": run})

        answerer = profile_answerer(
            profile=profile,
            model=decision.get("model") or None,
            person=user_key,
            on_text=lambda text: notice(
                {"kind": "sampling_text", "question": question, "text": text}
            ),
            place=place,
            on_run=started,
        )
        try:
            answer = await answerer(edited)
        except SamplingRefused as exc:
            notice({"kind": "sampling_done", "question": question, "failed": str(exc), "run": ran})
            raise
        result = answer_result(answer)
        notice(
            {
                "kind": "sampling_done",
                "question": question,
                "result": result,
                "profile": profile,
                "run": ran,
            }
        )
        return answer

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        question, answered = QUESTIONS.ask(user_key=user_key)
        notice({"kind": "elicitation", "question": question, "params": params})
        try:
            decision = await answered
        finally:
            answered.cancel()
        action = decision.get("action")
        if action not in ("accept", "decline", "cancel"):
            action = "cancel"
        result: dict[str, Any] = {"action": action}
        if action == "accept" and params.get("mode", "form") == "form":
            result["content"] = _within_schema(decision.get("content"), params)
        notice({"kind": "elicitation_done", "question": question, "action": action})
        return result

    return Respondent(sample=sample, elicit=elicit)


def unattended_respondent(
    *, profile: str, model: str, person: str, place: RunPlace, heard: Notice
) -> Respondent:
    """No person to ask (a grid row's loop): a sampling request is answered on ``profile``
    (``model``, else its first) as a run of its own beside ``place``'s conversation, linked to
    the call; with no profile named it is refused, the server told why. An elicitation is
    declined (the server told ``decline``). ``heard`` is told of each, for the cell's
    trajectory: ``{"kind": "sampling", "run"|"refused", …}``, ``{"kind": "elicitation", …}``."""

    async def sample(request: SamplingRequest) -> SamplingAnswer:
        if not profile:
            why = "no person is asked in a grid, and the grid names no sampling profile"
            heard({"kind": "sampling", "refused": why})
            raise SamplingRefused(why)
        ran: dict[str, Any] = {}
        answerer = profile_answerer(
            profile=profile, model=model or None, person=person, place=place, on_run=ran.update
        )
        try:
            answer = await answerer(request)
        except SamplingRefused as exc:
            heard({"kind": "sampling", "refused": str(exc), **({"run": ran} if ran else {})})
            raise
        heard({"kind": "sampling", "run": ran, "result": answer_result(answer)})
        return answer

    async def elicit(params: dict[str, Any]) -> dict[str, Any]:
        heard(
            {
                "kind": "elicitation",
                "action": "decline",
                "message": str(params.get("message") or ""),
                "why": "no person is asked in a grid",
            }
        )
        return {"action": "decline"}

    return Respondent(sample=sample, elicit=elicit)


def _within_schema(content: Any, params: dict[str, Any]) -> dict[str, Any]:
    """The form's values the requested schema names, of the kinds it names (the page's form
    sends these; anything else is left out rather than sent to the server)."""
    properties = (params.get("requestedSchema") or {}).get("properties") or {}
    kinds: dict[str, type | tuple[type, ...]] = {
        "string": str,
        "number": (int, float),
        "integer": int,
        "boolean": bool,
    }
    kept: dict[str, Any] = {}
    for name, value in (content if isinstance(content, dict) else {}).items():
        schema = properties.get(name)
        declared = schema.get("type") if isinstance(schema, dict) else None
        kind = kinds.get(declared) if isinstance(declared, str) else None
        if kind is None or not isinstance(value, kind):
            continue
        if isinstance(value, bool) and declared != "boolean":
            continue
        kept[name] = value
    return kept
