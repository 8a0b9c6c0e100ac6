"""An evaluation grid on several server processes: one runner at a time, anywhere.

Two real ``python -m playground.serve`` processes on one database and one Redis, with a short
lease (``tests/multiprocess_support.py``). A grid started on P1 is finished by P2 when P1 dies
and never comes back (P1 left unreaped, as a process on another host: only its lease's expiry
frees the grid); and P2 restarting while P1 runs a grid leaves that grid to P1, so no cell is
started twice. Everything waits on the grid's JSON or the database, never on time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from typing import Any

import pytest

from tests.live_support import Api, until
from tests.multiprocess_support import Cluster, two_processes
from tests.redis_support import RedisServer

ROWS = 6
COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "cool", "changes": {"temperature": 0.2}},
]
#: Paced: a wave of four cells lasts seconds, so each fault falls while cells are live and
#: others still wait their turn.
PROMPT = "[[sim: rate=80 long=300]] Explain {{topic}} to a child."
FINISH = 240.0


@pytest.fixture
def cluster(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Cluster]:
    with two_processes(tmp_path_factory.mktemp("grids"), redis_url=redis_server.url) as c:
        yield c


async def start_grid(api: Api) -> str:
    imported = await api.call(
        "POST",
        "/api/import/",
        {"request": {"model": "simulator-1", "max_tokens": 600, "messages": [
            {"role": "user", "content": PROMPT}
        ]}},
    )  # fmt: skip
    assert imported.status_code == 201, imported.text
    made = await api.call(
        "POST",
        f"/api/conversations/{imported.json()['id']}/grids/",
        {"columns": COLUMNS, "rows": [{"topic": f"topic {n}"} for n in range(ROWS)]},
    )
    assert made.status_code == 201, made.text
    grid_id: str = made.json()["id"]
    started = await api.call("POST", f"/api/grids/{grid_id}/run/", {})
    assert started.status_code == 202, started.text
    return grid_id


async def cells(api: Api, grid_id: str) -> list[dict[str, Any]]:
    view = await api.call("GET", f"/api/grids/{grid_id}/")
    assert view.status_code == 200, view.text
    return [cell for row in view.json()["rows"] for cell in row["cells"]]


async def started_cells(api: Api, grid_id: str) -> int:
    return sum(1 for cell in await cells(api, grid_id) if cell["conversation_id"])


async def all_complete(api: Api, grid_id: str) -> list[dict[str, Any]] | None:
    found = await cells(api, grid_id)
    return found if all(cell["status"] == "complete" for cell in found) else None


def runs_per_cell(cluster: Cluster, conversation_ids: list[str]) -> list[int]:
    """How many runs each cell's conversation had, read from the shared database."""
    url = cluster.env["DATABASE_URL"]
    if url.startswith("sqlite:///"):
        with sqlite3.connect(url.removeprefix("sqlite:///")) as connection:
            sql = "SELECT COUNT(*) FROM playground_run WHERE conversation_id = ?"
            return [
                connection.execute(sql, (cid.replace("-", ""),)).fetchone()[0]
                for cid in conversation_ids
            ]
    import psycopg

    with psycopg.connect(url) as connection:
        sql = "SELECT COUNT(*) FROM playground_run WHERE conversation_id = %s"
        return [connection.execute(sql, (cid,)).fetchone()[0] for cid in conversation_ids]


async def test_a_grid_whose_process_dies_for_good_is_finished_by_another(
    cluster: Cluster,
) -> None:
    async with Api(cluster["p1"].url) as p1:
        grid_id = await start_grid(p1)

        async def some_started() -> bool:
            return 0 < await started_cells(p1, grid_id) < ROWS * len(COLUMNS)

        await until(some_started, what="P1 running the grid's first cells")
    # Dead but its pid still taken (unreaped), as a process on another host: P2 cannot tell it
    # died, so only the lease's expiry frees the grid (and its runs).
    cluster.kill_unreaped("p1")
    try:
        async with Api(cluster["p2"].url) as p2:
            done = await until(
                lambda: all_complete(p2, grid_id), what="P2 finishing the grid", deadline=FINISH
            )
    finally:
        cluster.reap("p1")
    assert all(cell["answer"] and not cell["start_error"] for cell in done)


async def test_a_process_starting_while_another_runs_a_grid_leaves_it_to_that_process(
    cluster: Cluster,
) -> None:
    async with Api(cluster["p1"].url) as p1:
        grid_id = await start_grid(p1)

        async def some_started() -> bool:
            return 0 < await started_cells(p1, grid_id) < ROWS * len(COLUMNS) // 2

        await until(some_started, what="P1 running the grid's first cells")
        # P2 restarts: its start-up recovery looks for grids to take while P1 runs this one.
        cluster.terminate("p2")
        cluster.start("p2")
        async with Api(cluster["p2"].url) as p2:
            assert (await p2.call("GET", f"/api/grids/{grid_id}/")).status_code == 200
        done = await until(
            lambda: all_complete(p1, grid_id), what="P1 finishing the grid", deadline=FINISH
        )
    assert all(cell["answer"] and not cell["start_error"] for cell in done)
    # No cell was started twice (by P2 beside P1): one run each.
    assert runs_per_cell(cluster, [cell["conversation_id"] for cell in done]) == [1] * len(done)
