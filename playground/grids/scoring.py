"""A cell's answer scored by its grid's scorers, on the server, and stored with the cell.

Rule: a cell's scores are of one answer, its last run's (``EvalCell.scored_run``): a re-run's
answer is scored afresh, and scores of an earlier answer are never shown with a later one. The
scorers that ask no model (``grids.scorers``) are judged here, at once; a judge's verdict comes
from its run (``grids.judging``) and is kept with the key of the judge's definition
(``scorers.judge.judge_key``), so scoring again after an edit runs again only the judges whose
rubric, threshold, profile or model changed, or that have no verdict for this answer yet.
The cell passes when its run completed, its answer fits the schema it was asked for, and every
scorer passed; it has no verdict (``passed`` None) while a judge has not answered. Synchronous
ORM code (the runner calls it through ``run_write``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from django.db import transaction
from django.db.models import OuterRef, Q, Subquery

from playground.compiled_sql import Reads, Updates
from playground.conversations.output_check import check_output, schema_of
from playground.fields import as_text
from playground.grids.grid_json import answer_text
from playground.grids.imported import imported_content, imported_run
from playground.grids.repeats import brief_scores, repeat_of, sealed, with_record
from playground.grids.scorers import (
    KINDS,
    Answer,
    Verdict,
    judges_of,
    scorers_for_column,
    verdict_of,
)
from playground.grids.scorers.judge import judge_key
from playground.models import EvalCell, EvalGrid, Message, Run
from playground.runs.store import Saved

__all__ = [
    "JudgeJob",
    "answer_of",
    "overall",
    "score_cell",
    "score_grid",
    "scored_in_write",
    "store_judge",
]


@dataclass(frozen=True, slots=True)
class JudgeJob:
    """A judge to run on a cell's answer: what ``grids.judging`` needs, read here."""

    cell_id: Any
    run_id: Any
    scorer: Mapping[str, Any]
    key: str
    answer: Answer
    values: Mapping[str, str]
    profile: str
    model: str
    owner: Any


#: The run's columns :func:`answer_of` reads (a scoring reads no others).
_SCORED = (
    "id",
    "conversation_id",
    "status",
    "request",
    "stop_reason",
    "usage",
    "cost_nanos",
    "started_at",
    "first_token_at",
    "finished_at",
)


def answer_of(
    run: Run, content: Any, output_config: Any, *, request: Mapping[str, Any] | None = None
) -> Answer:
    """The scorers' view of ``run``'s answer; ``request``: the run's, when held already."""
    if request is None:
        request = run.request if isinstance(run.request, dict) else {}
    sent = request
    asked = sent.get("output_config")
    blocks = content if isinstance(content, list) else []
    return Answer(
        status=str(run.status),
        text=answer_text(blocks),
        content=blocks,
        stop_reason=run.stop_reason,
        usage=run.usage or {},
        cost_nanos=run.cost_nanos,
        unpriced=1 if run.cost_nanos is None else 0,
        ttft_ms=_ms(run.first_token_at, run.started_at),
        duration_ms=_ms(run.finished_at, run.started_at),
        output_schema=schema_of(asked if asked is not None else output_config),
    )


def _ms(later: Any, earlier: Any) -> int | None:
    if later is None or earlier is None:
        return None
    return round((later - earlier).total_seconds() * 1000)


def _entry(scorer: Mapping[str, Any], verdict: Verdict, **more: Any) -> dict[str, Any]:
    return {
        "scorer": scorer["id"],
        "name": scorer.get("name") or KINDS[str(scorer["kind"])].title,
        "kind": scorer["kind"],
        "passed": verdict.passed,
        "score": verdict.score,
        "reason": verdict.reason,
        **more,
    }


def overall(answer: Answer, entries: list[dict[str, Any]]) -> bool | None:
    """Completed, fitting its schema, every scorer passed; None while a verdict is awaited,
    and for a tool loop that needs a result (neither passed nor failed: the person owes it);
    a loop cut by its turn cap, or whose next turn could not start (a budget…), fails."""
    if answer.loop_end == "needs_result":
        return None
    if answer.status != Run.Status.COMPLETE or answer.loop_end in (
        "turn_cap",
        "not_started",
        "budget",
    ):
        return False
    if (
        answer.output_schema is not None
        and not check_output(answer.text, dict(answer.output_schema)).fits
    ):
        return False
    if any(entry["passed"] is False for entry in entries):
        return False
    if any(entry["passed"] is None for entry in entries):
        return None
    return True


#: What a scoring reads of the cell, its row, grid and the two conversations.
_SCORING_READS = (
    *("row", "column", "conversation", "imported", "scored_run", "scores", "passed", "repeats"),
    *("row__values", "row__grid__scorers", "row__grid__owner", "row__grid__conversation"),
    *("row__grid__conversation__variables", "row__grid__conversation__settings"),
    "conversation__settings",
)

#: What a judge's verdict's write reads of the cell.
_JUDGED_READS = ("column", "conversation", "imported", "scored_run", "scores", "passed", "repeats")

# The two reads of a cell every scored answer makes: compiled once (``playground.compiled_sql``).
_SCORING_READ = Reads(
    lambda cell: (
        EvalCell.objects.select_for_update(of=("self",))
        .select_related("row__grid__conversation", "conversation")
        .only(*_SCORING_READS)
        .filter(pk=cell)
    ),
    cell=EvalCell._meta.get_field("id"),
)
_JUDGED_READ = Reads(
    lambda cell: EvalCell.objects.select_for_update().only(*_JUDGED_READS).filter(pk=cell),
    cell=EvalCell._meta.get_field("id"),
)
# And their writes (the cell is locked by its read: it is there).
_SCORED_WRITE = Updates(
    lambda cell, run, scores, passed, repeats: (
        EvalCell.objects.filter(pk=cell),
        {"scored_run": run, "scores": scores, "passed": passed, "repeats": repeats},
    ),
    **{name: EvalCell._meta.get_field(name) for name in ("scores", "passed", "repeats")},
    cell=EvalCell._meta.get_field("id"),
    run=EvalCell._meta.get_field("scored_run"),
)
_JUDGED_WRITE = Updates(
    lambda cell, scores, passed, repeats: (
        EvalCell.objects.filter(pk=cell),
        {"scores": scores, "passed": passed, "repeats": repeats},
    ),
    **{name: EvalCell._meta.get_field(name) for name in ("scores", "passed", "repeats")},
    cell=EvalCell._meta.get_field("id"),
)


def score_cell(*, cell_id: Any, earlier_repeats: bool = False) -> list[JudgeJob]:
    """Score the cell's last answer by every scorer of its column (see the module rule), in a
    transaction of its own; the judges still to run on it. With ``earlier_repeats`` the
    repeats before the last are scored again too (an edit of the scorers)."""
    with transaction.atomic():
        return scored_in_write(cell_id=cell_id, earlier_repeats=earlier_repeats)


def scored_in_write(
    *,
    cell_id: Any,
    earlier_repeats: bool = False,
    record: dict[str, Any] | None = None,
    owner: Any = None,
    saved: Saved | None = None,
    request: Mapping[str, Any] | None = None,
) -> list[JudgeJob]:
    """:func:`score_cell` inside the caller's transaction (the runner's, which reserves the
    cell's judges in the same write). A cell with no ended run keeps no scores. The last
    repeat's record takes the verdict; ``record``: a repeat just ended, joining the cell's
    repeats in the same write (``grids.loop_turns.record_repeat``'s). ``owner``: the grid's,
    when the caller holds it already (the runner). ``saved``: the run the runner ran, as its
    end write saved it, with its ``request``: scored as it is held, not read again."""
    # One read: the cell locked (only its row: ``of``), its grid, the grid's conversation
    # (the variables, the judge's profile) and its own (the output schema setting); only the
    # columns scoring reads (a read's cost grows with its columns: it runs once a cell).
    read = _SCORING_READ(cell=cell_id)
    if not read:
        raise EvalCell.DoesNotExist(f"no cell {cell_id}")
    cell = read[0]
    if record is not None:
        cell.repeats = with_record(cell.repeats, record)
    found = _answer(cell, saved=saved, request=request)
    if found is None:
        if record is not None:
            cell.save(update_fields=["repeats"])
        return []
    run_id, answer = found
    grid = cell.row.grid
    source = grid.conversation
    values = {**(source.variables or {}), **cell.row.values}
    earlier = {e["scorer"]: e for e in cell.scores or []} if cell.scored_run_id == run_id else {}
    entries: list[dict[str, Any]] = []
    jobs: list[JudgeJob] = []
    judges = {id(s) for s in judges_of(grid.scorers)}
    for scorer in scorers_for_column(grid.scorers or [], cell.column):
        if id(scorer) not in judges:
            entries.append(_entry(scorer, verdict_of(scorer, answer, values)))
            continue
        key = judge_key(scorer)
        kept = earlier.get(scorer["id"])
        if kept is not None and kept.get("key") == key and kept.get("passed") is not None:
            entries.append(kept)
            continue
        if answer.status != Run.Status.COMPLETE:
            entries.append(_entry(scorer, Verdict(False, "no answer to judge"), key=key))
            continue
        entries.append(_entry(scorer, Verdict(None, "judging…"), key=key))
        settings = source.settings
        profile = str(scorer.get("profile") or settings.profile)
        # The conversation's model with its own profile; another's first, when judged.
        own_model = settings.model if profile == settings.profile else ""
        jobs.append(
            JudgeJob(
                cell_id=cell.pk,
                run_id=run_id,
                scorer=scorer,
                key=key,
                answer=answer,
                values=values,
                profile=profile,
                model=str(scorer.get("model") or own_model),
                owner=owner if owner is not None else grid.owner,
            )
        )
    cell.scores = entries
    cell.scored_run_id = run_id
    cell.passed = overall(answer, entries)
    cell.repeats = sealed(cell.repeats, run_id=run_id, scores=entries, passed=cell.passed)
    if earlier_repeats:
        _rescore_repeats(cell, grid.scorers or [], values)
    _SCORED_WRITE(
        cell=cell.pk, run=run_id, scores=cell.scores, passed=cell.passed, repeats=cell.repeats
    )
    return jobs


def _rescore_repeats(cell: EvalCell, scorers: list[dict[str, Any]], values: Any) -> None:
    """The repeats before the last scored again (an edit of the scorers): at once by the
    scorers that ask no model; a judge keeps the verdict it gave that repeat, and one added
    since judges only the last repeat (docs/grids.md)."""
    stored = cell.repeats if isinstance(cell.repeats, dict) else {}
    done = list(stored.get("done") or [])
    ids = [record.get("run") for record in done[:-1] if record.get("run")]
    if not ids:
        return
    runs = {str(run.pk): run for run in Run.objects.filter(pk__in=ids)}
    contents = {
        str(message.run_id): message.content
        for message in Message.objects.filter(run__in=runs.values(), role=Message.Role.ASSISTANT)
    }
    config = _config(cell)
    judges = {id(s) for s in judges_of(scorers)}
    for index, record in enumerate(done[:-1]):
        run = runs.get(str(record.get("run")))
        if run is None:
            continue
        answer = _looped(answer_of(run, contents.get(str(run.pk)), config), record)
        kept = {entry.get("scorer"): entry for entry in record.get("scores") or []}
        entries = []
        for scorer in scorers_for_column(scorers, cell.column):
            if id(scorer) not in judges:
                entries.append(_entry(scorer, verdict_of(scorer, answer, values)))
            elif scorer["id"] in kept:
                entries.append({**kept[scorer["id"]], "name": scorer.get("name") or ""})
        verdict = overall(answer, entries)
        done[index] = {**record, "passed": verdict, "scores": brief_scores(entries)}
    cell.repeats = {**stored, "done": done}


def _looped(answer: Answer, record: Mapping[str, Any]) -> Answer:
    """A repeat's last answer: the scorers on tool use read its whole trajectory."""
    return replace(
        answer,
        calls=record.get("calls") or [],
        turns=int(record.get("turns") or 1),
        loop_end=str(record.get("end") or ""),
    )


def store_judge(
    *,
    cell_id: Any,
    run_id: Any,
    scorer_id: str,
    key: str,
    verdict: Verdict,
    judge: dict[str, Any],
    answer: Answer | None = None,
    settle: Callable[[], Any] | None = None,
) -> None:
    """A judge's verdict on the cell's answer ``run_id`` (nothing if the cell moved on to
    another answer, or the judge was edited meanwhile). ``answer``: that answer as it was
    scored (``JudgeJob.answer``), so it is not read again; None: read again. ``settle``: the
    judge's call settled (``usage.ledger.call_ended``) in the same write."""
    with transaction.atomic():
        if settle is not None:
            settle()
        # Only what a verdict's write reads (and what reading its answer again would).
        read = _JUDGED_READ(cell=cell_id)
        cell = read[0] if read else None
        if cell is None or cell.scored_run_id != run_id:
            return
        entries = list(cell.scores or [])
        for index, entry in enumerate(entries):
            if entry.get("scorer") == scorer_id and entry.get("key") == key:
                entries[index] = {
                    **entry,
                    "passed": verdict.passed,
                    "score": verdict.score,
                    "reason": verdict.reason,
                    "judge": judge,
                }
        if answer is None:
            found = _answer(cell)
            answer = found[1] if found is not None else None
        cell.scores = entries
        cell.passed = overall(answer, entries) if answer is not None else None
        cell.repeats = sealed(cell.repeats, run_id=run_id, scores=entries, passed=cell.passed)
        _JUDGED_WRITE(cell=cell.pk, scores=cell.scores, passed=cell.passed, repeats=cell.repeats)


def _answer(
    cell: EvalCell, *, saved: Saved | None = None, request: Mapping[str, Any] | None = None
) -> tuple[Any, Answer] | None:
    """The answer the cell shows, to score: its last run's once ended (with the run's id), or
    the result a bundle carried (no run yet: ``grids.imported``); None before it has one.
    ``saved``: that run as its end write saved it (the runner's), with its ``request``."""
    if (
        saved is not None
        and request is not None
        and saved.run.conversation_id == cell.conversation_id
    ):
        return _scored_answer(cell, saved.run, saved.content, request=request)
    if cell.conversation_id is None:
        if not isinstance(cell.imported, dict):
            return None
        carried = imported_run(cell.imported)
        grid = EvalGrid.objects.get(rows__cells=cell)
        changes = grid.columns[cell.column].get("changes", {})
        config = changes.get("output_config", grid.conversation.settings.output_config)
        return None, answer_of(carried, imported_content(cell.imported), config)
    # The last run and its answer's text in one read.
    answered = Message.objects.filter(run=OuterRef("pk"), role=Message.Role.ASSISTANT)
    run = (
        Run.objects.filter(conversation_id=cell.conversation_id)
        .only(*_SCORED)
        .annotate(answer_json=Subquery(answered.values(text=as_text("content"))[:1]))
        .order_by("-started_at")
        .first()
    )
    if run is None or run.status == Run.Status.RUNNING:
        return None
    content = json.loads(run.answer_json) if run.answer_json is not None else None
    return _scored_answer(cell, run, content)


def _scored_answer(
    cell: EvalCell, run: Run, content: Any, *, request: Mapping[str, Any] | None = None
) -> tuple[Any, Answer]:
    answer = answer_of(run, content, _config(cell), request=request)
    record = repeat_of(cell.repeats, run_id=run.pk)
    return run.pk, (_looped(answer, record) if record is not None else answer)


def _config(cell: EvalCell) -> Any:
    """The output schema setting of the cell's conversation (when the request asked none)."""
    if cell.conversation_id is None:
        return None
    return cell.conversation.settings.output_config


def score_grid(grid: EvalGrid) -> list[JudgeJob]:
    """Score every cell's last answer again (an edit of the scorers): at once for the scorers
    that ask no model; the judges whose verdict must be made again, returned."""
    jobs: list[JudgeJob] = []
    answered = Q(conversation__isnull=False) | Q(imported__isnull=False)
    for cell_id in EvalCell.objects.filter(answered, row__grid=grid).values_list("pk", flat=True):
        jobs.extend(score_cell(cell_id=cell_id, earlier_repeats=True))
    return jobs
