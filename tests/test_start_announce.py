"""A group's start announces its columns to the other processes between registering the group
and making its tasks (``RunManager.start``): a stop or a shutdown in that await (a stop asked by
another process too) waits for the tasks and ends every column (``LiveRun.driven``), and one
whose announcement fails is not left waiting.

The announcement is held by a shared log of the test's own (:class:`HeldAnnouncements`, put where
``ensure_recovered`` would put Redis's), so the stop lands inside the await every time; CI's grid
test met it by chance, one PostgreSQL run in four (a Stop answered ``stopped: 2`` while both
cells went on running). The simulator answers over real HTTP.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import AsyncIterator
from typing import Any

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Conversation, Run
from playground.protocol.errors import ShuttingDown
from playground.runs import manager as manager_module
from playground.runs.groups import RunGroup
from playground.runs.manager import RunManager
from playground.runs.relay import RunLog
from playground.runs.upstream_slots import LocalSlots
from playground.web.ownership import local_user
from tests.relay_support import SLOW, TIMEOUT, stored

pytestmark = pytest.mark.django_db(transaction=True)

#: A compare's two columns: the grid's case was two runs stopped at once.
TWO = [{"model": "simulator-1"}, {"model": "simulator-1", "temperature": 0.2}]


class HeldAnnouncements:
    """The shared log as the run manager uses it, whose announcements wait for the test: the
    first ``announce`` sets :attr:`entered`, each waits for :attr:`gate`, then raises
    :attr:`failure` if the test gave one. Nothing is mirrored or followed elsewhere."""

    available = True

    def __init__(self) -> None:
        self.entered = asyncio.Event()
        self.gate = asyncio.Event()
        self.failure: BaseException | None = None
        self.announced: list[str] = []

    async def announce(self, *, run_id: str, conversation_id: str, log: RunLog) -> None:
        self.entered.set()
        await self.gate.wait()
        if self.failure is not None:
            raise self.failure
        self.announced.append(run_id)

    async def follow_conversation(self, conversation_id: str) -> None:
        pass

    def unfollow_conversation(self, conversation_id: str) -> None:
        pass

    async def mirror(self, *, run_id: str, conversation_id: str) -> RunLog | None:
        return None

    async def publish_end(self, *, run_id: str, finished_frame: str) -> None:
        pass

    async def flushed(self) -> None:
        pass

    async def close(self) -> None:
        pass


@pytest.fixture
async def held(
    relay: RunManager, settings: Any
) -> AsyncIterator[tuple[RunManager, HeldAnnouncements]]:
    """A run manager of the test's own (the relay fixture's simulator profile), its shared log
    the held one; shut down after (twice is harmless: the second finds nothing to do)."""
    manager = RunManager(
        batch_seconds=settings.PLAYGROUND_RELAY_BATCH_SECONDS,
        checkpoint_seconds=settings.PLAYGROUND_CHECKPOINT_SECONDS,
        slots=LocalSlots(default=4, limits={}),
    )
    announcements = HeldAnnouncements()
    manager.others.shared = announcements
    try:
        yield manager, announcements
    finally:
        await asyncio.wait_for(manager.shutdown(), TIMEOUT)


async def _start_held(
    manager: RunManager, announcements: HeldAnnouncements, conversation: Conversation
) -> tuple[asyncio.Task[Any], Any]:
    """Start a compare and return once its start is inside its first announcement: its task,
    and the owner."""
    owner = await database_sync_to_async(local_user)()
    starting = asyncio.create_task(
        manager.start(
            owner=owner,
            conversation_id=conversation.id,
            prepare=lambda row: conversations.append_user_message(conversation=row, content=SLOW),
            columns=TWO,
        )
    )
    await asyncio.wait_for(announcements.entered.wait(), TIMEOUT)
    group = manager.active(conversation.id)
    assert group is not None and [live.task for live in group.columns] == [None, None]
    return starting, owner


async def _turns() -> None:
    """Let every callback ready on the loop run, and those they make ready, a few rounds: a stop
    or a shutdown reaches ``LiveRun.end`` through tasks alone (no I/O on the way), so after
    these it is as far as it can go without the columns' tasks. Turns of the loop, not time."""
    for _ in range(20):
        await asyncio.sleep(0)


async def test_a_stop_while_the_start_announces_stops_every_column(held, conversation):
    manager, announcements = held
    starting, owner = await _start_held(manager, announcements, conversation)
    stopping = asyncio.create_task(manager.stop(owner=owner, conversation_id=conversation.id))
    await _turns()
    assert not stopping.done(), "the stop returned while its runs had no task: it stopped nothing"
    announcements.gate.set()
    await asyncio.wait_for(stopping, TIMEOUT)  # a hang guard, not a timing
    group = await asyncio.wait_for(starting, TIMEOUT)

    # Each column was announced, then stopped: its task over, its end saved as stopped.
    assert announcements.announced == [str(live.run_id) for live in group.columns]
    assert all(live.task is not None and live.task.done() for live in group.columns)
    for live in group.columns:
        assert live.log.finished_frame is not None
        assert json.loads(live.log.finished_frame)["status"] == "stopped"
    messages, runs = await stored(conversation.id)
    assert {run.id: run.status for run in runs} == {
        live.run_id: Run.Status.STOPPED for live in group.columns
    }
    # Nothing received is lost: each row holds every event its log had.
    logged = {live.run_id: [json.loads(line) for line in live.log.lines] for live in group.columns}
    assert {
        run.id: [json.loads(line) for line in run.events_jsonl.splitlines()] for run in runs
    } == logged
    assert [message.role for message in messages][:1] == ["user"]
    assert manager.active(conversation.id) is None  # the conversation may run again


async def test_a_stop_from_another_process_while_the_start_announces_stops_every_column(
    held, conversation
):
    """Another process asks this one, the owner, to stop each column (through Redis: the
    shared log's ``on_stop``) while the start announces them: it was dropped (the columns had
    no task yet) and they streamed on to their end, the asker told the owner did not answer."""
    manager, announcements = held
    starting, _ = await _start_held(manager, announcements, conversation)
    group = manager.active(conversation.id)
    assert group is not None
    for live in group.columns:
        manager.stop_asked_elsewhere(str(live.run_id))
    await _turns()
    announcements.gate.set()
    await asyncio.wait_for(starting, TIMEOUT)
    # A hang guard, not a timing: a column that was not stopped streams its long story.
    ended = asyncio.gather(*(live.log.done.wait() for live in group.columns))
    await asyncio.wait_for(ended, TIMEOUT)
    _, runs = await stored(conversation.id)
    assert [run.status for run in runs] == [Run.Status.STOPPED] * 2
    assert manager.active(conversation.id) is None


@pytest.mark.parametrize("during", ["stop", "shutdown"])
@pytest.mark.parametrize("failure", ["raises", "cancelled"])
async def test_a_stop_or_shutdown_waits_for_an_announcement_and_not_past_its_failure(
    held, conversation, during, failure
):
    manager, announcements = held
    starting, owner = await _start_held(manager, announcements, conversation)
    if during == "stop":
        ending = asyncio.create_task(manager.stop(owner=owner, conversation_id=conversation.id))
    else:
        ending = asyncio.create_task(manager.shutdown())
    await _turns()
    assert not ending.done(), f"the {during} returned while the start was still announcing"
    if failure == "raises":
        announcements.failure = RuntimeError("the announcement broke")
        announcements.gate.set()
        with pytest.raises(RuntimeError, match="the announcement broke"):
            await asyncio.wait_for(starting, TIMEOUT)
    else:
        starting.cancel()  # its caller went: a socket's handler, a grid's runner
        with pytest.raises(asyncio.CancelledError):
            await asyncio.wait_for(starting, TIMEOUT)
    # Hang guards, not timings: neither waits on a task that will never be made.
    await asyncio.wait_for(ending, TIMEOUT)
    await asyncio.wait_for(manager.shutdown(), TIMEOUT)

    # Nothing went upstream, and nothing is left running: each row is saved as the stop or the
    # shutdown asked (it stayed `running`, leased by a live process, and the conversation busy).
    _, runs = await stored(conversation.id)
    expected = Run.Status.STOPPED if during == "stop" else Run.Status.INTERRUPTED
    assert [run.status for run in runs] == [expected, expected]
    if during == "shutdown":
        assert all("before its request was sent" in run.error_message for run in runs)
    assert all(run.events_jsonl == "" for run in runs)
    assert manager.active(conversation.id) is None


@pytest.mark.parametrize("stopping", ["drain", "shutdown"])
async def test_no_run_starts_once_the_server_began_to_stop(held, conversation, stopping):
    """A start asked while the server stops is refused (``shutting_down``: nothing written);
    ``shutdown`` (a management command's end) took it. One already announcing its runs as the
    stop began sends nothing either: its runs are saved as interrupted, where they were made
    after the stop's look at the live runs and streamed on past it, cut unmarked."""
    manager, announcements = held
    starting, owner = await _start_held(manager, announcements, conversation)
    if stopping == "drain":
        ending = manager.begin_drain(grace_seconds=0, flush_seconds=TIMEOUT / 4)
    else:
        ending = asyncio.ensure_future(manager.shutdown())
    await _turns()
    other = await database_sync_to_async(conversations.create_conversation)(
        owner=owner, profile="simulator"
    )
    asked = manager.start(
        owner=owner,
        conversation_id=other.id,
        prepare=lambda row: conversations.append_user_message(conversation=row, content=SLOW),
    )
    with pytest.raises(ShuttingDown, match="nothing was sent"):
        await asyncio.wait_for(asked, TIMEOUT)  # a hang guard: the old shutdown held it
    announcements.gate.set()
    with pytest.raises(ShuttingDown):
        await asyncio.wait_for(starting, TIMEOUT)
    await asyncio.wait_for(ending, TIMEOUT)

    assert await stored(other.id) == ([], [])
    _, runs = await stored(conversation.id)
    assert [run.status for run in runs] == [Run.Status.INTERRUPTED] * 2
    assert all("before its request was sent" in run.error_message for run in runs)
    assert all(run.events_jsonl == "" for run in runs)
    assert manager.active(conversation.id) is None


@pytest.mark.parametrize("stopping", ["drain", "shutdown"])
async def test_a_run_aside_the_stop_overtook_in_its_start_write_sends_nothing(
    held, conversation, monkeypatch, stopping
):
    """A run beside the conversation (an MCP server's sampling request) whose start write was
    under way as the server began to stop is saved as interrupted and refused, not driven
    after the stop's look at the live runs."""
    manager, _ = held
    entered, go_on = threading.Event(), threading.Event()
    write = manager_module.start_aside_write

    def held_write(**fields: Any) -> Any:
        entered.set()
        go_on.wait(TIMEOUT)
        return write(**fields)

    monkeypatch.setattr(manager_module, "start_aside_write", held_write)
    starting = asyncio.create_task(
        manager.start_aside(
            owner=await database_sync_to_async(local_user)(),
            conversation_id=conversation.id,
            profile="simulator",
            body={
                "model": "simulator-1",
                "max_tokens": 200,
                "messages": [{"role": "user", "content": SLOW}],
            },
            purpose="sampling",
        )
    )
    await asyncio.to_thread(entered.wait, TIMEOUT)
    if stopping == "drain":
        ending = manager.begin_drain(grace_seconds=0, flush_seconds=TIMEOUT / 4)
    else:
        ending = asyncio.ensure_future(manager.shutdown())
    await _turns()
    go_on.set()
    with pytest.raises(ShuttingDown):
        await asyncio.wait_for(starting, TIMEOUT)
    await asyncio.wait_for(ending, TIMEOUT)

    _, runs = await stored(conversation.id)
    assert [run.status for run in runs] == [Run.Status.INTERRUPTED]
    assert runs[0].events_jsonl == ""


@pytest.mark.parametrize("stopping", ["drain", "shutdown"])
async def test_a_job_whose_cancel_was_lost_holds_back_no_stop_of_the_server(
    held, conversation, monkeypatch, stopping
):
    """A job (a grid's cell) waiting for its run's end when the server stops, whose cancel is
    lost (Python 3.11's ``wait_for`` drops one whose result came with it): it waits on for the
    run. Stopping waited for the job before it ended the runs, so for the whole run (a long
    story here, minutes with a real model, the drain's grace ignored); it ends the runs, and so
    the job."""
    monkeypatch.setattr(manager_module, "JOB_CANCEL_SECONDS", 0.1)
    manager, announcements = held
    announcements.gate.set()
    owner = await database_sync_to_async(local_user)()
    groups: list[RunGroup] = []
    waiting = asyncio.Event()

    async def cell(again: asyncio.Event) -> None:
        group = await manager.start(
            owner=owner,
            conversation_id=conversation.id,
            prepare=lambda row: conversations.append_user_message(conversation=row, content=SLOW),
            columns=TWO,
        )
        groups.append(group)
        waiting.set()
        try:
            await group.ended()
        except asyncio.CancelledError:  # lost
            await group.ended()

    manager.own_job("a grid", cell)
    job = manager.job("a grid")
    assert job is not None
    await asyncio.wait_for(waiting.wait(), TIMEOUT)
    if stopping == "drain":
        ending = manager.begin_drain(grace_seconds=0, flush_seconds=TIMEOUT / 4)
    else:
        ending = asyncio.ensure_future(manager.shutdown())
    await asyncio.wait_for(ending, TIMEOUT)  # a hang guard, not a timing

    assert job.done() and [len(group.columns) for group in groups] == [2]
    _, runs = await stored(conversation.id)
    assert [run.status for run in runs] == [Run.Status.INTERRUPTED] * 2
    assert manager.active(conversation.id) is None


async def test_a_start_whose_caller_goes_while_it_announces_leaves_no_run_running(
    held, conversation
):
    """No stop, no shutdown: the socket's handler or the grid's job that started it is
    cancelled inside the announcement. Its runs are saved as interrupted and the conversation
    can run again at once."""
    manager, announcements = held
    starting, _ = await _start_held(manager, announcements, conversation)
    starting.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(starting, TIMEOUT)
    _, runs = await stored(conversation.id)
    assert [run.status for run in runs] == [Run.Status.INTERRUPTED] * 2
    assert manager.active(conversation.id) is None
