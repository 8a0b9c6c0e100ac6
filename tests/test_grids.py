"""Evaluation grids (``playground.grids``): a grid's checks, and its cells run through the run
manager on the simulator over real HTTP, a bounded number at once, each saved as a run."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations, grids
from playground.grids.launch import start_grid
from playground.grids.queue import queue_cells
from playground.models import Conversation, EvalCell, Message, Run
from playground.protocol.errors import RequestValidationError, ShuttingDown
from playground.runs.manager import RunManager
from playground.runs.run_writes import run_write
from playground.runs.upstream_slots import LocalSlots
from playground.web.ownership import local_user
from tests.grid_support import run_grid
from tests.relay_support import TIMEOUT

pytestmark = pytest.mark.django_db(transaction=True)

TOPICS = ["tides", "volcanoes", "owls"]
COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Answer in one line.", "max_tokens": 300}},
]


#: Paced, so cells overlap and the bound on runs at once is what keeps them apart.
PACED = "[[sim: rate=300]] Explain {{topic}} to a child."


def source(prompt: str = PACED) -> Conversation:
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content=prompt)
    return item


def test_a_grid_has_one_to_four_columns_and_names_a_bad_change() -> None:
    item = source()
    with pytest.raises(RequestValidationError) as many:
        grids.create_grid(
            owner=local_user(), conversation=item, columns=COLUMNS * 3, rows=[], concurrency=2
        )
    assert many.value.field == "columns"
    with pytest.raises(RequestValidationError) as bad:
        grids.create_grid(
            owner=local_user(),
            conversation=item,
            columns=[{"changes": {"temperature": "hot"}}],
            rows=[],
            concurrency=2,
        )
    assert bad.value.field == "columns[0].changes.temperature"
    with pytest.raises(RequestValidationError) as row:
        grids.create_grid(
            owner=local_user(),
            conversation=item,
            columns=COLUMNS,
            rows=[{"topic": 3}],
            concurrency=2,
        )
    assert row.value.field == "rows[0].topic"


class Counting:
    """The run manager, with the number of cells live at once counted."""

    def __init__(self, manager: RunManager) -> None:
        self.manager = manager
        self.slots = manager.slots
        self.live = 0
        self.peak = 0

    def own_job(self, key: str, work: Any) -> None:
        self.manager.own_job(key, work)

    def job(self, key: str) -> Any:
        return self.manager.job(key)

    async def start(self, **kwargs: Any) -> Any:
        group = await self.manager.start(**kwargs)
        (live,) = group.columns
        self.live += 1
        self.peak = max(self.peak, self.live)
        live.log.done  # noqa: B018 (exists before the run ends)
        asyncio.get_running_loop().create_task(self._ended(live))
        return group

    async def _ended(self, live: Any) -> None:
        await live.log.done.wait()
        self.live -= 1


async def test_every_cell_runs_as_its_own_conversation_two_at_a_time(relay: RunManager) -> None:
    owner = await database_sync_to_async(local_user)()
    item = await database_sync_to_async(source)()
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=COLUMNS,
        rows=[{"topic": topic} for topic in TOPICS],
        concurrency=2,
    )
    counting = Counting(relay)

    await run_grid(counting, grid)

    assert counting.peak == 2
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    statuses = [cell["status"] for row in view["rows"] for cell in row["cells"]]
    assert statuses == [Run.Status.COMPLETE] * 6
    assert all(isinstance(cell["ttft_ms"], int) for row in view["rows"] for cell in row["cells"])

    def check_cells() -> None:
        for cell in EvalCell.objects.select_related("row", "conversation"):
            fork = cell.conversation
            assert fork is not None and fork.id != item.id
            assert fork.variables["topic"] == cell.row.values["topic"]
            assert fork.settings.system == COLUMNS[cell.column]["changes"].get("system", "")
            roles = list(conversations.path_of(fork).values_list("role", flat=True))
            assert roles == [Message.Role.USER, Message.Role.ASSISTANT]
            run = Run.objects.get(conversation=fork)
            assert cell.row.values["topic"] in str(run.request["messages"][0]["content"])
        assert grids.cells_to_run(grid, failed=True) == []

    await database_sync_to_async(check_cells)()


async def test_a_rerun_answers_the_same_turn_again_and_keeps_the_first(relay: RunManager) -> None:
    owner = await database_sync_to_async(local_user)()
    item = await database_sync_to_async(source)()
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=COLUMNS[:1],
        rows=[{"topic": "owls"}],
        concurrency=1,
    )
    (cell,) = await database_sync_to_async(grids.cells_to_run)(grid)

    for _ in range(2):
        await run_grid(relay, grid)

    def runs_and_path() -> tuple[int, int]:
        fork = EvalCell.objects.get(pk=cell.id).conversation
        assert fork is not None
        return Run.objects.filter(conversation=fork).count(), conversations.path_of(fork).count()

    assert await database_sync_to_async(runs_and_path)() == (2, 2)


async def test_a_cell_that_cannot_start_is_reported_and_the_others_run(relay: RunManager) -> None:
    owner = await database_sync_to_async(local_user)()
    item = await database_sync_to_async(source)()
    columns = [COLUMNS[0], {"label": "gone", "changes": {"profile": "simulator"}}]
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=columns,
        rows=[{"topic": "owls"}],
        concurrency=2,
    )
    cells = await database_sync_to_async(grids.cells_to_run)(grid)
    # The second column's conversation is taken by a run of someone else's making first.
    busy = await run_write(grids.cell_conversation)(cell_id=cells[1].id)
    (slow,) = (
        await relay.start(
            owner=owner,
            conversation_id=busy.id,
            prepare=lambda c: conversations.append_user_message(
                conversation=c, content="[[sim: rate=20 long=3000]] go"
            ),
        )
    ).columns

    await run_grid(relay, grid)

    await relay.stop(owner=owner, conversation_id=busy.id)
    await slow.log.done.wait()
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    first, refused = view["rows"][0]["cells"]
    assert first["status"] == Run.Status.COMPLETE
    assert refused["status"] == "not_started" and "run" in refused["start_error"], refused


# --- the endpoints ---------------------------------------------------------------------------


def post(client: Any, url: str, body: dict[str, Any], method: str = "post") -> Any:
    return getattr(client, method)(url, data=json.dumps(body), content_type="application/json")


def test_a_grid_is_made_from_csv_read_back_and_a_header_typo_is_said(client: Any) -> None:
    item = source()
    made = post(
        client,
        f"/api/conversations/{item.id}/grids/",
        {"columns": COLUMNS, "csv": "topic\ntides\nowls\n", "concurrency": 3},
    )
    assert made.status_code == 201, made.content
    grid = made.json()
    assert [row["values"] for row in grid["rows"]] == [{"topic": "tides"}, {"topic": "owls"}]
    assert [len(row["cells"]) for row in grid["rows"]] == [2, 2]
    assert grid["concurrency"] == 3
    assert {cell["status"] for row in grid["rows"] for cell in row["cells"]} == {"not_run"}

    assert made.json()["warnings"] == []

    # A header that names no variable of the prompt (a typo) is made, and said.
    typo = post(
        client, f"/api/conversations/{item.id}/grids/", {"columns": COLUMNS, "csv": "topik\nowls\n"}
    )
    assert typo.status_code == 201, typo.content
    said = " ".join(typo.json()["warnings"])
    assert "topik" in said and "{{topic}}" in said and "no row's value is sent" in said


def test_grid_refusals_name_the_place(client: Any) -> None:
    item = source()
    url = f"/api/conversations/{item.id}/grids/"
    two_ways = post(client, url, {"columns": COLUMNS, "csv": "topic\nx\n", "rows": []})
    assert two_ways.json()["error"]["field"] == "rows"
    bad_line = post(client, url, {"columns": COLUMNS, "jsonl": '{"topic": "x"}\n[]\n'})
    assert bad_line.json()["error"]["field"] == "rows: line 2"
    # A number past a float's range is Infinity by another name: refused, not stored as text.
    overflow = post(client, url, {"columns": COLUMNS, "jsonl": '{"topic": 1e400}'})
    assert overflow.status_code == 400, overflow.content
    assert overflow.json()["error"]["field"] == "rows: line 1"
    assert client.get("/api/grids/not-a-uuid/").status_code == 404


# --- the run manager's job: queued in the database, stopped by the drain, resumed -----------


def queued_count(grid: Any) -> int:
    return EvalCell.objects.filter(row__grid=grid, queued_at__isnull=False).count()


async def test_the_drain_stops_a_grid_job_first_and_recovery_runs_what_it_left(
    relay: RunManager, settings: Any
) -> None:
    owner = await database_sync_to_async(local_user)()
    item = await database_sync_to_async(source)()
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=COLUMNS[:1],
        rows=[{"topic": topic} for topic in [*TOPICS, "rain"]],
        concurrency=1,
    )
    cells = await database_sync_to_async(grids.cells_to_run)(grid)
    assert await run_write(queue_cells)(cells) == 4
    watched = FirstStart(relay)
    start_grid(watched, grid_id=grid.id)  # type: ignore[arg-type]
    first = await asyncio.wait_for(watched.first, timeout=TIMEOUT)

    await relay.begin_drain(grace_seconds=0, flush_seconds=TIMEOUT)

    assert first.log.done.is_set()
    # The three never started are still queued; the cut one is answered (interrupted), at
    # most one answer per cell per run request; nothing started after.
    assert await database_sync_to_async(queued_count)(grid) == 3
    started = Run.objects.filter(conversation__title__contains=" · row ").count
    assert await database_sync_to_async(started)() == 1
    with pytest.raises(ShuttingDown):
        start_grid(relay, grid_id=grid.id)

    # A new process: its start-up recovery runs the queue to its end.
    restarted = RunManager(
        batch_seconds=settings.PLAYGROUND_RELAY_BATCH_SECONDS,
        checkpoint_seconds=settings.PLAYGROUND_CHECKPOINT_SECONDS,
    )
    try:
        await restarted.ensure_recovered()
        job = restarted.job(f"grid {grid.id}")
        assert job is not None
        await asyncio.wait_for(job, timeout=TIMEOUT * 4)
    finally:
        await restarted.shutdown()
    assert await database_sync_to_async(queued_count)(grid) == 0
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    assert [row["cells"][0]["status"] for row in view["rows"]] == [
        Run.Status.INTERRUPTED,
        *[Run.Status.COMPLETE] * 3,
    ]


class FirstStart:
    """The run manager, with the first run a job starts handed out (a future), and each run
    it starts put in :attr:`starts`."""

    def __init__(self, manager: RunManager) -> None:
        self.manager = manager
        self.slots = manager.slots
        self.first: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self.starts: asyncio.Queue[Any] = asyncio.Queue()

    def own_job(self, key: str, work: Any) -> None:
        self.manager.own_job(key, work)

    async def start(self, **kwargs: Any) -> Any:
        group = await self.manager.start(**kwargs)
        (live,) = group.columns
        if not self.first.done():
            self.first.set_result(live)
        self.starts.put_nowait(live)
        return group


async def two_rows(owner: Any, prompt: str) -> Any:
    """A grid of two rows and one column over ``prompt``, two cells at once."""
    item = await database_sync_to_async(source)(prompt)
    return await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=COLUMNS[:1],
        rows=[{"topic": "owls"}, {"topic": "tides"}],
        concurrency=2,
    )


async def test_a_cell_the_upstream_answers_429_waits_it_out_and_completes(
    relay: RunManager, settings: Any
) -> None:
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 2
    owner = await database_sync_to_async(local_user)()

    # Each cell's first attempt is refused with 429 and a Retry-After (the simulator counts
    # attempts per request body, and each row's body differs).
    limited = "[[sim: status=429 retry_after=1 times=1]] About {{topic}}."
    grid = await two_rows(owner, limited)

    await run_grid(relay, grid)

    def runs() -> list[tuple[str, int]]:
        forks = [c.conversation_id for c in EvalCell.objects.filter(row__grid=grid)]
        return list(Run.objects.filter(conversation__in=forks).values_list("status", "attempts"))

    assert await database_sync_to_async(runs)() == [(Run.Status.COMPLETE, 2)] * 2


async def test_a_running_cell_shows_its_answer_so_far(relay: RunManager, async_client: Any) -> None:
    owner = await database_sync_to_async(local_user)()

    item = await database_sync_to_async(source)("[[sim: rate=20 long=3000]] Tell me of {{topic}}.")
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner, conversation=item, columns=COLUMNS[:1], rows=[{"topic": "owls"}], concurrency=1
    )
    cells = await database_sync_to_async(grids.cells_to_run)(grid)
    await run_write(queue_cells)(cells)
    watched = FirstStart(relay)
    start_grid(watched, grid_id=grid.id)  # type: ignore[arg-type]
    live = await asyncio.wait_for(watched.first, timeout=TIMEOUT)

    async def running_cell() -> dict[str, Any] | None:
        response = await async_client.get(f"/api/grids/{grid.id}/")
        if response.status_code == 503:
            # The test database is SQLite in memory with a shared cache, whose table locks a
            # read can meet while the cell's run writes ("database table is locked"): the
            # endpoint answers unavailable, as the page's next poll would be told; look again.
            assert response.json()["error"]["code"] == "unavailable", response.content
            return None
        assert response.status_code == 200, response.content
        cell: dict[str, Any] = response.json()["rows"][0]["cells"][0]
        return cell if cell["answer"] else None

    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while (cell := await running_cell()) is None:
        assert asyncio.get_running_loop().time() < deadline, "no answer so far"
    assert cell["status"] == Run.Status.RUNNING and isinstance(cell["ttft_ms"], int)
    assert live.accumulator is not None
    await relay.stop(owner=owner, conversation_id=live.conversation_id)
    job = relay.job(f"grid {grid.id}")
    if job is not None:  # the stopped answer is scored, then the job ends
        await asyncio.wait_for(job, timeout=TIMEOUT)


async def test_a_row_queued_while_another_runs_starts_without_waiting_for_it(
    relay: RunManager,
) -> None:
    owner = await database_sync_to_async(local_user)()
    grid = await two_rows(owner, "[[sim: rate=20 long=3000]] Tell me of {{topic}}.")
    watched = FirstStart(relay)
    first_row = await database_sync_to_async(grids.cells_to_run)(grid, row=0)
    await run_write(queue_cells)(first_row)
    start_grid(watched, grid_id=grid.id)  # type: ignore[arg-type]
    first = await asyncio.wait_for(watched.starts.get(), timeout=TIMEOUT)

    second_row = await database_sync_to_async(grids.cells_to_run)(grid, row=1)
    await run_write(queue_cells)(second_row)
    start_grid(watched, grid_id=grid.id)  # type: ignore[arg-type]  (the live job looks again)
    second = await asyncio.wait_for(watched.starts.get(), timeout=TIMEOUT)

    assert not first.log.done.is_set()  # the first row's long answer is still streaming
    assert second.conversation_id != first.conversation_id
    job = relay.job(f"grid {grid.id}")
    assert job is not None
    for live in (first, second):
        await relay.stop(owner=owner, conversation_id=live.conversation_id)
    await asyncio.wait_for(job, timeout=TIMEOUT)


# --- one limit per profile, and a stop ------------------------------------------------------


def live_cells(grid: Any) -> list[str]:
    forks = EvalCell.objects.filter(row__grid=grid).values("conversation")
    return list(
        Run.objects.filter(conversation__in=forks, status=Run.Status.RUNNING).values_list(
            "conversation_id", flat=True
        )
    )


async def served(async_client: Any, url: str) -> Any:
    """POST ``url``, again while the in-memory test database's table locks answer 503 (see
    :func:`test_a_running_cell_shows_its_answer_so_far`)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        response = await async_client.post(url, {}, "application/json")
        if response.status_code != 503:
            return response
        assert response.json()["error"]["code"] == "unavailable", response.content
        assert asyncio.get_running_loop().time() < deadline, "never served"


async def test_two_grids_share_their_profiles_limit_and_a_stop_ends_one(
    relay: RunManager, async_client: Any
) -> None:
    relay.slots = LocalSlots(default=2)  # the profile's limit, for every grid and run together
    owner = await database_sync_to_async(local_user)()
    slow = "[[sim: rate=20 long=3000]] Tell me of {{topic}}."
    first, second = [await two_rows(owner, slow) for _ in range(2)]  # 2 cells at once each
    for grid in (first, second):
        started = await served(async_client, f"/api/grids/{grid.id}/run/")
        assert started.status_code == 202
    deadline = asyncio.get_running_loop().time() + TIMEOUT

    async def live() -> int:
        now = [await run_write(live_cells)(grid) for grid in (first, second)]
        assert asyncio.get_running_loop().time() < deadline, now
        return sum(map(len, now))

    while await live() < 2:
        await asyncio.sleep(0.05)
    assert relay.slots.in_use("simulator") == 2  # type: ignore[attr-defined]
    assert await live() == 2  # four cells asked for, two profile slots: two live

    stopped = await served(async_client, f"/api/grids/{first.id}/stop/")
    assert stopped.status_code == 200, stopped.content
    answer = stopped.json()
    assert answer["unqueued"] + answer["stopped"] == 2, answer
    # The first grid's cells: none queued, none live; the second's took the freed slots.
    assert await run_write(queued_count)(first) == 0
    assert await run_write(live_cells)(first) == []
    while len(await run_write(live_cells)(second)) < 2:
        assert asyncio.get_running_loop().time() < deadline, "the second grid did not go on"
        await asyncio.sleep(0.05)
    again = await served(async_client, f"/api/grids/{second.id}/stop/")
    assert again.json() == {"unqueued": 0, "stopped": 2}
    view = await run_write(grids.serialize_grid)(second)
    assert [row["cells"][0]["status"] for row in view["rows"]] == [Run.Status.STOPPED] * 2
    for grid in (first, second):
        job = relay.job(f"grid {grid.id}")
        if job is not None:
            await asyncio.wait_for(job, timeout=TIMEOUT)
    assert relay.slots.in_use("simulator") == 0  # type: ignore[attr-defined]


async def test_a_cells_fork_is_stored_with_its_first_run_and_not_when_that_start_is_refused(
    relay: RunManager,
) -> None:
    """One write stores the fork, its run and the cell leaving the queue: a start the budget
    refuses leaves neither a fork nor a cell pointing at one (the cell opens a fresh one)."""
    from playground.models import Budget

    owner = await database_sync_to_async(local_user)()
    item = await database_sync_to_async(source)("Explain {{topic}}.")
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {"max_tokens": 100}}],
        rows=[{"topic": "tides"}, {"topic": "owls"}],
        concurrency=1,
    )
    # Room for one cell's worst case (100 output tokens and a few of input), not two.
    await database_sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=150
    )

    await run_grid(relay, grid)

    def cells() -> list[tuple[Any, str, int]]:
        return [
            (
                cell.conversation_id,
                cell.start_error,
                Run.objects.filter(conversation_id=cell.conversation_id).count(),
            )
            for cell in EvalCell.objects.filter(row__grid=grid).order_by("row__position")
        ]

    (ran, refused) = await database_sync_to_async(cells)()
    assert ran[0] is not None and ran[2] == 1 and ran[1] == ""
    assert refused[0] is None and refused[1].startswith("Not sent: your daily limit")
    forks = await database_sync_to_async(Conversation.objects.exclude(pk=item.pk).count)()
    assert forks == 1  # the refused start stored no fork
