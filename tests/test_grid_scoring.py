"""A grid's answers scored on the server and stored with the cell (``grids.scoring``,
``grids.judging``): every scorer's verdict and reason per cell, the column's pass rate per
scorer and overall, a judge run on the built-in simulator (kept with its verdict), and an edit
of the scorers scoring again without calling the model, but for the judge that changed."""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations, grids
from playground.models import EvalCell
from playground.runs.manager import RunManager
from playground.runs.upstream_slots import LocalSlots, OnWait, Slot
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.live_support import until

pytestmark = pytest.mark.django_db(transaction=True)

SCORERS = [
    {"id": "says", "kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"id": "never", "kind": "contains", "value": "zebra crossing"},
    {"id": "judge", "kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5},
]


class CountedSlots(LocalSlots):
    """The profile's slots, with every request that took one counted (one per upstream call)."""

    def __init__(self) -> None:
        super().__init__(default=8)
        self.taken = 0

    async def take(self, *, profile: str, person: str, on_wait: OnWait | None = None) -> Slot:
        self.taken += 1
        return await super().take(profile=profile, person=person, on_wait=on_wait)


def make_grid(scorers: list[dict[str, Any]]) -> Any:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}} briefly.")
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"topic": "tides"}, {"topic": "owls"}],
        concurrency=2,
        scorers=scorers,
    )


async def test_every_answer_is_scored_and_judged_and_an_edit_rescored_without_the_model(
    relay: RunManager, client: Any, async_client: Any
) -> None:
    relay.slots = slots = CountedSlots()
    grid = await database_sync_to_async(make_grid)(SCORERS)

    await run_grid(relay, grid)

    assert slots.taken == 4  # two answers, two judges
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    for row in view["rows"]:
        (cell,) = row["cells"]
        verdicts = {entry["scorer"]: entry for entry in cell["scores"]}
        topic = row["values"]["topic"]
        assert verdicts["says"]["passed"] is (topic in cell["answer"].lower())
        assert verdicts["never"] == {
            "scorer": "never",
            "name": "Contains",
            "kind": "contains",
            "passed": False,
            "score": None,
            "reason": "does not contain 'zebra crossing'",
        }
        judged = verdicts["judge"]
        # The simulator judged as it always does: the quoted topic in the answer, or not.
        mentions = topic in cell["answer"].lower()
        assert judged["score"] == (1.0 if mentions else 0.0) and judged["passed"] is mentions
        assert judged["judge"]["status"] == "complete" and judged["judge"]["model"]
        assert cell["passed"] is False  # "never" fails every answer
    (summary,) = view["summaries"]
    assert summary["pass_rate"] == 0.0 and summary["scorers"]["never"]["pass_rate"] == 0.0
    assert summary["scorers"]["judge"]["judged"] == 2

    # The judge's run is kept in full on the server (its request at temperature 0).
    def kept_judge() -> dict[str, Any]:
        cell = EvalCell.objects.filter(row__grid=grid).first()
        assert cell is not None
        return next(e for e in cell.scores if e["scorer"] == "judge")["judge"]

    judge = await database_sync_to_async(kept_judge)()
    assert judge["request"]["temperature"] == 0 and judge["events"].count("\n") > 3

    # An edit: "never" is dropped and the judge is unchanged: scored again, nothing sent.
    edited = [SCORERS[0], SCORERS[2]]
    patched = await database_sync_to_async(client.patch)(
        f"/api/grids/{grid.id}/",
        data=json.dumps({"scorers": edited}),
        content_type="application/json",
    )
    assert patched.status_code == 200, patched.content
    assert patched.json()["judging"] == 0 and slots.taken == 4
    rescored = patched.json()["rows"]
    for row in rescored:
        (cell,) = row["cells"]
        assert [entry["scorer"] for entry in cell["scores"]] == ["says", "judge"]
        assert cell["passed"] is (row["values"]["topic"] in cell["answer"].lower())
    # The judge's threshold changed: only the judge is asked again (one call per answer), by
    # a job of the server loop's run manager; the page's next reads show its verdicts.
    stricter = [SCORERS[0], {**SCORERS[2], "threshold": 0.9}]
    again = await async_client.patch(
        f"/api/grids/{grid.id}/", {"scorers": stricter}, content_type="application/json"
    )
    assert again.json()["judging"] == 2

    async def judged() -> dict[str, Any] | None:
        response = await async_client.get(f"/api/grids/{grid.id}/")
        if response.status_code == 503:
            # The in-memory test database's shared-cache table lock met a judge's write (see
            # test_grids.test_a_running_cell_shows_its_answer_so_far): look again.
            return None
        view = response.json()
        verdicts = [entry for row in view["rows"] for entry in row["cells"][0]["scores"]]
        return view if all(entry["passed"] is not None for entry in verdicts) else None

    await until(judged, what="the edited judge's verdicts")
    assert slots.taken == 6
    refused = await database_sync_to_async(client.patch)(
        f"/api/grids/{grid.id}/",
        data=json.dumps({"scorers": [{"kind": "judge", "rubric": "x", "profile": "nowhere"}]}),
        content_type="application/json",
    )
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "scorers[0].profile"


#: Scorers reading every figure of a run's end: its text, timings, tokens, cost, stop reason.
ENDS = [
    {"id": "says", "kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"id": "quick", "kind": "duration_max", "max_ms": 60_000},
    {"id": "first", "kind": "ttft_max", "max_ms": 60_000},
    {"id": "few", "kind": "output_tokens_max", "max": 5},
    {"id": "cheap", "kind": "cost_max", "max": 1},
    {"id": "ended", "kind": "stop_reason_in", "reasons": ["end_turn"]},
]


async def test_a_cell_is_scored_on_its_run_as_saved_without_reading_it_again(
    relay: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from playground.grids import runner, scoring

    scored = runner.scored_repeat
    reads: list[str] = []

    def counted(**kwargs: Any) -> Any:
        with CaptureQueriesContext(connection) as queries:
            found = scored(**kwargs)
        reads.extend(query["sql"] for query in queries)
        return found

    monkeypatch.setattr(runner, "scored_repeat", counted)
    grid = await database_sync_to_async(make_grid)(ENDS)

    await run_grid(relay, grid)

    assert reads  # the hop ran, on this thread's connection
    assert not [sql for sql in reads if 'FROM "playground_run"' in sql], reads

    # The verdicts held from the end write are those a scoring from the database gives.
    def stored_and_rescored() -> list[tuple[Any, Any]]:
        pairs = []
        for cell in EvalCell.objects.filter(row__grid=grid).order_by("row__position"):
            held = (cell.scores, cell.passed)
            scoring.score_cell(cell_id=cell.pk)
            cell.refresh_from_db()
            pairs.append((held, (cell.scores, cell.passed)))
        return pairs

    pairs = await database_sync_to_async(stored_and_rescored)()
    assert len(pairs) == 2
    for held, rescored in pairs:
        assert held == rescored
        assert [entry["scorer"] for entry in held[0]] == [scorer["id"] for scorer in ENDS]
        verdicts = {entry["scorer"]: entry["passed"] for entry in held[0]}
        assert verdicts["quick"] and verdicts["first"] and verdicts["cheap"] is not None
        assert verdicts["few"] is False  # an answer of more than 5 tokens


#: The writes a cell's life makes on the run writes' thread, by the function handed there.
CELL_WRITES = {"cell_start", "start", "finish_run", "scored_repeat", "_stored"}
#: Every kind of scorer the benchmark runs (benchmarks/grid.py), one of them a judge.
FIVE = [
    {"id": "says", "kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"id": "never", "kind": "not_contains", "value": "zebra"},
    {"id": "bold", "kind": "regex", "pattern": "\\*\\*[A-Z][a-z]+\\*\\*"},
    {"id": "quick", "kind": "duration_max", "max_ms": 60_000},
    {"id": "judge", "kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5},
]


async def test_a_cell_costs_at_most_its_counted_statements_and_transactions(
    relay: RunManager, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each statement costs a cell CPU (docs/benchmarks.md, Evaluation grid): a cell's start
    (its fork stored with its run), end, scoring with its judge's reservation, and judge's
    verdict take 22 statements in 4 transactions; a regression shows here."""
    import traceback

    from django.db.backends.base.base import BaseDatabaseWrapper
    from django.db.backends.utils import CursorWrapper

    statements: list[str] = []
    commits: list[str] = []

    def handed() -> str | None:
        # The outermost of our frames on the thread: the function handed to run_write.
        ours = [f.name for f in traceback.extract_stack() if "/playground/" in f.filename]
        return ours[0] if ours and ours[0] in CELL_WRITES else None

    execute, commit = CursorWrapper._execute, BaseDatabaseWrapper.commit

    def counted_execute(self: Any, sql: str, *args: Any) -> Any:
        # Transaction control is the backend's (SQLite's BEGIN, savepoints): counted as commits.
        if not sql.startswith(("BEGIN", "SAVEPOINT", "RELEASE")) and (where := handed()):
            statements.append(f"{where}: {sql[:60]}")
        return execute(self, sql, *args)

    def counted_commit(self: Any) -> Any:
        if where := handed():
            commits.append(where)
        return commit(self)

    grid = await database_sync_to_async(make_grid)(FIVE)
    cells = await database_sync_to_async(grids.cells_to_run)(grid)
    monkeypatch.setattr(CursorWrapper, "_execute", counted_execute)
    monkeypatch.setattr(BaseDatabaseWrapper, "commit", counted_commit)

    await run_grid(relay, grid, cells)
    monkeypatch.undo()

    stored = await database_sync_to_async(list)(EvalCell.objects.filter(row__grid=grid))
    assert all(len(cell.scores) == 5 and cell.scores[-1]["passed"] is not None for cell in stored)
    assert len(statements) <= 22 * len(cells), "\n".join(statements)
    assert len(commits) <= 4 * len(cells), commits
