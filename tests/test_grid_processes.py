"""An evaluation grid on several server processes: one runner at a time, anywhere.

Two real ``python -m playground.serve`` processes on one database and one Redis, with a short
lease (``tests/multiprocess_support.py``). A grid started on P1 is finished by P2 when P1 dies
and never comes back (P1 left unreaped, as a process on another host: only its lease's expiry
frees the grid); and P2 restarting while P1 runs a grid leaves that grid to P1, so no cell is
started twice. Everything waits on the grid's JSON or the database, never on time.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler
from typing import Any

import pytest
import redis

from playground.runs.shared_slots import PREFIX as SLOTS
from tests.live_support import Api, until
from tests.loopback_http import (
    client_gone,
    close_text_stream,
    open_text_stream,
    serve_http,
    text_delta,
)
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


async def start_grid(
    api: Api,
    *,
    columns: list[dict[str, Any]] = COLUMNS,
    rows: int = ROWS,
    prompt: str = PROMPT,
) -> str:
    imported = await api.call(
        "POST",
        "/api/import/",
        {"request": {"model": "simulator-1", "max_tokens": 600, "messages": [
            {"role": "user", "content": prompt}
        ]}},
    )  # fmt: skip
    assert imported.status_code == 201, imported.text
    made = await api.call(
        "POST",
        f"/api/conversations/{imported.json()['id']}/grids/",
        {"columns": columns, "rows": [{"topic": f"topic {n}"} for n in range(rows)]},
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


async def all_ended(api: Api, grid_id: str) -> list[dict[str, Any]] | None:
    found = await cells(api, grid_id)
    ended = all(cell["status"] in ("complete", "interrupted") for cell in found)
    return found if ended else None


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
                lambda: all_ended(p2, grid_id), what="P2 finishing the grid", deadline=FINISH
            )
    finally:
        cluster.reap("p1")
    # The rule of grids.queue: a cell whose run had begun on P1 is answered once (interrupted
    # with what it received, never sent again); every cell P1 had not begun, P2 runs.
    shown = [cell["status"] for cell in done]
    assert shown.count("interrupted") <= 4, shown  # only those live at the kill: the concurrency
    assert all(
        cell["answer"] and not cell["start_error"] for cell in done if cell["status"] == "complete"
    )
    assert runs_per_cell(cluster, [cell["conversation_id"] for cell in done]) == [1] * len(done)


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


class _Counted:
    """What the counting upstream saw: requests open now and the most at once; each request is
    held open until the test lets one through (``gate``) or its client goes away."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.open = 0
        self.peak = 0
        self.gate = threading.Semaphore(0)
        self.closing = False


def _counting_handler(counted: _Counted) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

        def do_POST(self) -> None:
            self.rfile.read(int(self.headers.get("Content-Length") or 0))
            with counted.lock:
                counted.open += 1
                counted.peak = max(counted.peak, counted.open)
            try:
                open_text_stream(self, model="counted-1")
                while not counted.gate.acquire(timeout=0.05):
                    if counted.closing or client_gone(self):
                        return
                text_delta(self, "counted")
                close_text_stream(self, output_tokens=1)
            except OSError:
                pass  # the client went away
            finally:
                with counted.lock:
                    counted.open -= 1

    return Handler


def _slot_counts(url: str, profile: str) -> tuple[int, int]:
    """Slots of ``profile`` held and waited for, across every process (Redis's count)."""
    with redis.Redis.from_url(url) as client:
        held = int(client.hlen(f"{SLOTS}{profile}:held"))
        return held, int(client.zcard(f"{SLOTS}{profile}:waiting"))


async def test_two_processes_share_one_limit_per_profile_and_a_dead_ones_slots_come_back(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> None:
    """``counted=2`` across P1 and P2 (``runs.shared_slots``): P1's grid holds both slots, P2's
    two cells wait; a request of P1's ending hands its slot to P2; P1 killed while it holds the
    other, P2's last cell gets it once P1's lease is over. Never more than two at the
    upstream."""
    counted = _Counted()
    with redis.Redis.from_url(redis_server.url) as client:  # an earlier run's, if any
        client.delete(*(f"{SLOTS}counted:{key}" for key in ("held", "waiting", "waiters")))

    def stop_holding() -> None:
        counted.closing = True

    columns = [{"label": "counted", "changes": {"profile": "counted", "model": "counted-1"}}]
    with (
        serve_http(_counting_handler(counted), before_stop=stop_holding) as upstream,
        two_processes(
            tmp_path_factory.mktemp("slots"),
            redis_url=redis_server.url,
            extra_env={
                "PLAYGROUND_UPSTREAM_COUNTED_BASE_URL": upstream,
                "PLAYGROUND_UPSTREAM_COUNTED_AUTH": "none",
                "PLAYGROUND_PROFILE_CONCURRENCY": "16 counted=2",
            },
        ) as cluster,
    ):
        async with Api(cluster["p1"].url) as p1, Api(cluster["p2"].url) as p2:
            await start_grid(p1, columns=columns, rows=2, prompt="Say {{topic}}.")
            await until(lambda: counted.open == 2, what="P1's two requests open")
            on_p2 = await start_grid(p2, columns=columns, rows=2, prompt="Say {{topic}}.")
            await until(
                lambda: _slot_counts(redis_server.url, "counted") == (2, 2),
                what="P2's two cells waiting for P1's slots",
            )
            counted.gate.release()  # one of P1's requests ends: its slot goes to P2
            await until(
                lambda: _slot_counts(redis_server.url, "counted") == (2, 1) and counted.open == 2,
                what="P2's first cell sending",
            )
        cluster.kill("p1")  # holding the other slot, its request open
        async with Api(cluster["p2"].url) as p2:
            await until(
                lambda: _slot_counts(redis_server.url, "counted") == (2, 0),
                what="P1's slot back, once its lease is over, and P2's last cell in it",
            )
            counted.gate.release()
            counted.gate.release()
            done = await until(lambda: all_complete(p2, on_p2), what="P2's grid done")
        assert [cell["answer"] for cell in done] == ["counted", "counted"]
        assert counted.peak == 2
