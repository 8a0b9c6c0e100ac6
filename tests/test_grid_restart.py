"""A grid of 16 rows x 4 columns on the simulator, its server stopped in the middle (SIGTERM
past its grace, and kill -9), finishes after a restart by the same rule both ways: at most one
answer per cell per run request. A cell whose run had begun is answered once (complete, or
interrupted with what it received: never sent a second time); every cell never started runs
after the restart: nothing lost, nothing run twice; the run's experiment is frozen once, with
every cell.

Real processes and real signals (``conftest.start_daphne`` on its own SQLite file, the same
file for the restart). Everything waits on the grid's JSON or the database file, never on time.
"""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import start_daphne, stop
from tests.live_support import Api, database, query, until

#: 64 cells, 16 times the grid's concurrency (4): most still wait their turn when the stop comes.
ROWS = 16
COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Answer in one line."}},
    {"label": "cool", "changes": {"temperature": 0.2}},
    {"label": "short", "changes": {"max_tokens": 200}},
]
#: Paced, so the stop falls while cells are live and others still wait their turn.
PROMPT = "[[sim: rate=400]] Explain {{topic}} to a child."
#: A generous net for 64 answers on a busy two-core machine; never a timing assertion.
FINISH = 600.0


async def make_grid(api: Api) -> str:
    imported = await api.call(
        "POST",
        "/api/import/",
        {"request": {"model": "simulator-1", "max_tokens": 300, "messages": [
            {"role": "user", "content": PROMPT}
        ]}},
    )  # fmt: skip
    assert imported.status_code == 201, imported.text
    rows = [{"topic": f"topic {n}"} for n in range(ROWS)]
    made = await api.call(
        "POST",
        f"/api/conversations/{imported.json()['id']}/grids/",
        {"columns": COLUMNS, "rows": rows},
    )
    assert made.status_code == 201, made.text
    grid_id: str = made.json()["id"]
    started = await api.call("POST", f"/api/grids/{grid_id}/run/", {})
    assert started.status_code == 202 and started.json()["queued"] == ROWS * len(COLUMNS)
    assert started.json()["experiment"]["number"] == 1
    return grid_id


def statuses(db: Path, grid_id: str) -> dict[str, int]:
    """Each cell's place in the queue, read from the database file the server writes."""
    rows = query(
        db,
        "SELECT c.queued_at IS NOT NULL, c.conversation_id IS NOT NULL FROM playground_evalcell c"
        " JOIN playground_evalrow r ON c.row_id = r.id WHERE r.grid_id = ?",
        grid_id.replace("-", ""),
    )
    return {
        "queued": sum(1 for queued, _ in rows if queued),
        "started": sum(1 for _, started in rows if started),
    }


def settled(db: Path, grid_id: str) -> bool:
    """Nothing queued, and no cell's run still live."""
    live = query(
        db,
        "SELECT COUNT(*) FROM playground_run WHERE status = 'running' AND conversation_id IN"
        " (SELECT c.conversation_id FROM playground_evalcell c JOIN playground_evalrow r"
        " ON c.row_id = r.id WHERE r.grid_id = ?)",
        grid_id.replace("-", ""),
    )
    return statuses(db, grid_id)["queued"] == 0 and live[0][0] == 0


def frozen(db: Path, grid_id: str) -> bool:
    """The grid's one experiment has its results frozen (by the job that ran its last cell)."""
    found = query(
        db,
        "SELECT finished_at IS NOT NULL FROM playground_evalexperiment WHERE grid_id = ?",
        grid_id.replace("-", ""),
    )
    return found == [(1,)]


def answered_cells(db: Path, grid_id: str) -> list[tuple[Any, ...]]:
    """Per cell: its last run's status, its runs, and the answer on its conversation's path."""
    return query(
        db,
        """
        SELECT
          (SELECT status FROM playground_run WHERE conversation_id = c.conversation_id
            ORDER BY started_at DESC LIMIT 1),
          (SELECT COUNT(*) FROM playground_run WHERE conversation_id = c.conversation_id),
          COALESCE((SELECT content FROM playground_message WHERE conversation_id =
            c.conversation_id AND on_path AND role = 'assistant'), '')
        FROM playground_evalcell c JOIN playground_evalrow r ON c.row_id = r.id
        WHERE r.grid_id = ?
        """,
        grid_id.replace("-", ""),
    )


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "kill-9"])
async def test_a_grid_stopped_in_the_middle_finishes_after_a_restart_with_every_cell(
    tmp_path: Path, how: signal.Signals
) -> None:
    server = start_daphne(tmp_path, PLAYGROUND_SHUTDOWN_GRACE_SECONDS="0.2")
    db = database(tmp_path)
    try:
        async with Api(server.url) as api:
            grid_id = await make_grid(api)
            # In the middle: some cells answered, most not started yet.
            await until(
                lambda: statuses(db, grid_id)["started"] >= 12, what="cells started", deadline=120
            )
            server.process.send_signal(how)
            server.process.wait(timeout=60)
    finally:
        stop(server)
    left = statuses(db, grid_id)
    assert 0 < left["queued"] < ROWS * len(COLUMNS), left

    restarted = start_daphne(tmp_path)
    try:
        async with Api(restarted.url) as api:
            # The first request runs recovery, which starts the grid's queued cells again.
            first = await api.call("GET", f"/api/grids/{grid_id}/")
            assert first.status_code == 200, first.text
            await until(lambda: settled(db, grid_id), what="the grid", deadline=FINISH)
            view = (await api.call("GET", f"/api/grids/{grid_id}/")).json()
            # The run request's experiment spans the restart: frozen once, with every cell.
            await until(lambda: frozen(db, grid_id), what="the experiment frozen", deadline=60)
            kept = (await api.call("GET", f"/api/grids/{grid_id}/experiments/1/")).json()
    finally:
        stop(restarted)

    cells = [cell for row in view["rows"] for cell in row["cells"]]
    assert len(cells) == ROWS * len(COLUMNS)
    shown = [cell["status"] for cell in cells]
    assert set(shown) <= {"complete", "interrupted"}, shown
    # Only the cells live at the stop were cut: at most the grid's concurrency (4).
    assert 1 <= shown.count("interrupted") <= 4, shown
    assert sum(summary["done"] for summary in view["summaries"]) == ROWS * len(COLUMNS)
    saved = answered_cells(db, grid_id)
    assert {runs for _, runs, _ in saved} == {1}, saved  # one upstream call per cell
    assert all(answer for status, _, answer in saved if status == "complete")
    assert statuses(db, grid_id)["queued"] == 0
    assert kept["totals"]["cells"] == kept["totals"]["ran"] == ROWS * len(COLUMNS), kept["totals"]
