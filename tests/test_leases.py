"""Run leases: a live run belongs to one process until its lease expires (``runs.lease``).

Another process's rows are made here by writing what it would write (``owner``,
``lease_expires_at``), so each rule is checked on its own: recovery takes only expired leases
or provably dead owners, never a lease still held; a process whose lease was taken writes
nothing more; a run that cannot be folded is still ended. The two-real-processes cases are in
``test_multiprocess.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import sys
import time
from datetime import datetime, timedelta

import pytest
from channels.db import database_sync_to_async
from django.db import IntegrityError
from django.db.models.functions import Now
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Run, RunEventChunk
from playground.protocol.errors import LeaseLost
from playground.runs import lease, store
from playground.runs.manager import RunManager
from playground.runs.recovery import recover_interrupted_runs
from playground.runs.store import checkpoint_run
from playground.runs.upstream_slots import LocalSlots
from tests import relay_support
from tests.relay_support import beside_a_live_run, open_socket, read_run, receive_type, stored
from tests.test_restart import _left_running

pytestmark = pytest.mark.django_db(transaction=True)

ENDLESS = "[[sim: rate=20 long=200000]] Tell me everything."


def _db_now() -> datetime:
    """The database's clock, which every lease is written and judged by."""
    now = Run.objects.annotate(db_now=Now()).values_list("db_now", flat=True).first()
    assert now is not None
    return now


def _running(conversation: Conversation, *, owner: str, expires_in: float | None) -> Run:
    """A run another process left ``running`` (test_restart's), leased as given (from the
    database's now)."""
    run = _left_running.func(conversation)  # the synchronous body of that helper
    run.owner = owner
    run.lease_expires_at = None if expires_in is None else _db_now() + timedelta(seconds=expires_in)
    run.save(update_fields=["owner", "lease_expires_at"])
    return run


@pytest.fixture
def host_clock(monkeypatch: pytest.MonkeyPatch):
    """Set this host's wall clock off by some seconds (``django.utils.timezone.now``)."""
    real_now = timezone.now

    def off_by(seconds: float) -> None:
        monkeypatch.setattr(timezone, "now", lambda: real_now() + timedelta(seconds=seconds))

    return off_by


def _dead_pid() -> int:
    """A pid of this host that is free now: a child that has exited and been reaped."""
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def _status(run: Run) -> str:
    return Run.objects.get(pk=run.pk).status


def test_recovery_leaves_a_lease_still_held_by_another_process(conversation):
    run = _running(conversation, owner="elsewhere:1234:abcd", expires_in=20)
    assert recover_interrupted_runs() == []
    assert _status(run) == "running"


def test_a_host_clock_40_s_ahead_takes_no_lease_the_database_holds(conversation, host_clock):
    run = _running(conversation, owner="elsewhere:1234:abcd", expires_in=20)
    host_clock(+40)
    assert recover_interrupted_runs() == []
    assert _status(run) == "running"


def test_a_host_clock_40_s_behind_renews_a_whole_lease(conversation, host_clock, settings):
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 30  # a lease of 20 s
    run = _running(conversation, owner=lease.THIS_PROCESS, expires_in=1)
    host_clock(-40)
    assert lease.renew_leases(run_ids=[run.pk]) == {run.pk}
    renewed = Run.objects.get(pk=run.pk).lease_expires_at
    # By the database's clock, not 40 s in its past (which another process would take at once).
    assert renewed > _db_now() + timedelta(seconds=15)
    host_clock(+40)  # another process, 40 s ahead of the database: the lease still holds
    assert recover_interrupted_runs() == []


def test_a_run_begun_by_a_host_40_s_behind_is_leased_by_the_database_clock(
    conversation, host_clock
):
    host_clock(-40)
    run = _left_running.func(conversation)
    Run.objects.filter(pk=run.pk).update(
        owner="elsewhere:1:x", lease_expires_at=lease.lease_from_now()
    )
    assert Run.objects.get(pk=run.pk).lease_expires_at > _db_now() + timedelta(seconds=15)
    assert recover_interrupted_runs() == []


def test_recovery_takes_a_run_whose_lease_expired(conversation):
    run = _running(conversation, owner="elsewhere:1234:abcd", expires_in=-1)
    assert recover_interrupted_runs() == [run.pk]
    recovered = Run.objects.get(pk=run.pk)
    assert (recovered.status, recovered.lease_expires_at) == ("interrupted", None)
    assert conversation.messages.last().content == [{"type": "text", "text": "Hello, wor"}]


def test_recovery_takes_at_once_a_run_whose_owner_on_this_host_is_dead(conversation):
    host = lease.THIS_PROCESS.split(":")[0]
    run = _running(conversation, owner=f"{host}:{_dead_pid()}:0000", expires_in=20)
    assert recover_interrupted_runs() == [run.pk]
    assert _status(run) == "interrupted"


def test_a_live_process_on_this_host_is_not_presumed_dead(conversation):
    host = lease.THIS_PROCESS.split(":")[0]
    alive = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"],
                             stdin=subprocess.PIPE)  # fmt: skip
    try:
        run = _running(conversation, owner=f"{host}:{alive.pid}:0000", expires_in=20)
        assert recover_interrupted_runs() == []
        assert _status(run) == "running"
    finally:
        alive.communicate(b"")


def test_a_run_that_cannot_be_folded_is_still_ended(conversation):
    run = _running(conversation, owner="elsewhere:1:x", expires_in=-1)
    # Content the conversation's rules refuse to fold into a message cannot wedge it.
    unfoldable = '{"seq":1,"t":0,"type":"x","data":5}\n'
    RunEventChunk.objects.filter(run=run).update(lines=unfoldable)
    assert recover_interrupted_runs() == [run.pk]
    assert _status(run) == "interrupted"


def test_a_checkpoint_of_a_lost_lease_writes_nothing(conversation):
    run = _running(conversation, owner="elsewhere:1:x", expires_in=20)
    before = Run.objects.get(pk=run.pk).events_jsonl
    with pytest.raises(LeaseLost):
        checkpoint_run(
            run_id=run.pk,
            first_seq=5,
            new_lines=['{"seq":5}'],
            started_at=run.started_at,
            first_event_ms=None,
            first_token_ms=None,
            request_id=None,
        )
    assert Run.objects.get(pk=run.pk).events_jsonl == before


def test_each_checkpoint_renews_the_lease_from_the_databases_now(conversation, settings):
    """A checkpoint's statement is one for every checkpoint of every run (kept, not compiled
    again: its values change, a first token's time included), yet each renews the lease from
    the database's clock when it runs, and a changed lease setting is a new statement."""
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 30  # a lease of 20 s
    run = _running(conversation, owner=lease.THIS_PROCESS, expires_in=1)

    def checkpoint(first_seq: int, *, first_token_ms: int | None = 7) -> datetime:
        checkpoint_run(
            run_id=run.pk,
            first_seq=first_seq,
            new_lines=[f'{{"seq":{first_seq}}}'],
            started_at=run.started_at,
            first_event_ms=5,
            first_token_ms=first_token_ms,
            request_id="req_1",
        )
        return Run.objects.get(pk=run.pk).lease_expires_at

    assert checkpoint(101, first_token_ms=None) > _db_now() + timedelta(seconds=15)
    assert Run.objects.get(pk=run.pk).first_token_at is None
    compiled = store.renewal_statement.cache_info().misses
    Run.objects.filter(pk=run.pk).update(lease_expires_at=_db_now() + timedelta(seconds=1))
    assert checkpoint(102) > _db_now() + timedelta(seconds=15)
    assert store.renewal_statement.cache_info().misses == compiled  # the first's statement
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 90  # a lease of 60 s
    assert checkpoint(103) > _db_now() + timedelta(seconds=45)
    stored_run = Run.objects.get(pk=run.pk)
    assert stored_run.first_event_at == run.started_at + timedelta(milliseconds=5)
    assert stored_run.first_token_at == run.started_at + timedelta(milliseconds=7)
    assert stored_run.request_id == "req_1"
    assert stored_run.events_jsonl.splitlines()[-3:] == [f'{{"seq":{s}}}' for s in (101, 102, 103)]


def test_a_checkpoints_chunk_is_one_kept_insert_that_never_lands_twice(conversation):
    """A checkpoint's chunk is the ORM's own INSERT, compiled once per database and run again:
    each chunk holds its lines on its run, and a chunk written again from the same seq (a write
    retried after it landed) fails whole, lease renewal included, instead of doubling events."""
    run = _running(conversation, owner=lease.THIS_PROCESS, expires_in=20)
    compiled = store.chunk_insert.cache_info().misses

    def checkpoint(first_seq: int, lines: list[str]) -> None:
        checkpoint_run(
            run_id=run.pk,
            first_seq=first_seq,
            new_lines=lines,
            started_at=run.started_at,
            first_event_ms=None,
            first_token_ms=None,
            request_id=None,
        )

    checkpoint(201, ['{"seq":201}', '{"seq":202,"text":"é \\u2028"}'])
    checkpoint(203, ['{"seq":203}'])
    assert store.chunk_insert.cache_info().misses <= compiled + 1
    chunks = RunEventChunk.objects.filter(run=run, first_seq__gte=201).order_by("first_seq")
    assert [(c.first_seq, c.lines) for c in chunks] == [
        (201, '{"seq":201}\n{"seq":202,"text":"é \\u2028"}\n'),
        (203, '{"seq":203}\n'),
    ]
    Run.objects.filter(pk=run.pk).update(lease_expires_at=_db_now() + timedelta(seconds=1))
    with pytest.raises(IntegrityError):
        checkpoint(203, ['{"seq":203}'])
    assert RunEventChunk.objects.filter(run=run, first_seq=203).count() == 1
    assert Run.objects.get(pk=run.pk).lease_expires_at < _db_now() + timedelta(seconds=5)


def test_renewal_keeps_only_the_leases_this_process_holds(conversation, settings):
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 30
    mine = _running(conversation, owner=lease.THIS_PROCESS, expires_in=1)
    other = conversations.create_conversation(owner=conversation.owner, profile="simulator")
    theirs = _running(other, owner="elsewhere:1:x", expires_in=1)
    assert lease.renew_leases(run_ids=[mine.pk, theirs.pk]) == {mine.pk}
    renewed = Run.objects.get(pk=mine.pk).lease_expires_at
    assert renewed > _db_now() + timedelta(seconds=15)
    assert Run.objects.get(pk=theirs.pk).lease_expires_at < _db_now() + timedelta(seconds=2)


async def test_a_silent_stream_keeps_its_lease(relay, conversation, settings):
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 0.6  # renewed every 0.1 s
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "[[sim: stall=30 after=2]] wait"})
        seen = await read_run(socket, until_seq=2)
        run_id = seen.started["run"]["id"]

        def lease_of() -> object:
            # Read beside the heartbeat's writes: the shared-cache test database refuses a read
            # that meets one ("table is locked") instead of waiting.
            return beside_a_live_run(lambda: Run.objects.get(pk=run_id).lease_expires_at)

        # Renewed by the heartbeat alone: no event arrives while the upstream stalls.
        first = await database_sync_to_async(lease_of)()
        deadline = time.monotonic() + 10
        while (await database_sync_to_async(lease_of)()) <= first:
            assert time.monotonic() < deadline, "the lease was not renewed"
            await asyncio.sleep(0.02)
        assert await database_sync_to_async(recover_interrupted_runs)() == []
        await socket.send_json_to({"action": "stop"})
        rest = await read_run(socket)
    assert rest.finished["status"] == "stopped"
    assert seen.seqs + rest.seqs == [1, 2]


async def test_a_run_taken_over_elsewhere_stops_here_and_writes_nothing(
    relay, conversation, settings
):
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 0.6
    relay.checkpoint_seconds = 0  # no checkpoints: the heartbeat alone finds the lease lost
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        # Far longer than the test's patience: only the lost lease can end it in time.
        await socket.send_json_to({"action": "send", "content": ENDLESS})
        seen = await read_run(socket, until_seq=5)
        run_id = seen.started["run"]["id"]

        # Another process takes the run over: its lease had expired there.
        def take_over() -> list[object]:
            Run.objects.filter(pk=run_id).update(owner="elsewhere:1:x", lease_expires_at=None)
            return recover_interrupted_runs()

        taken_over = await database_sync_to_async(beside_a_live_run)(take_over)
        assert [str(taken) for taken in taken_over] == [run_id]
        taken = await database_sync_to_async(Run.objects.prefetch_related("event_chunks").get)(
            pk=run_id
        )
        rest = await read_run(socket)
        finished = rest.finished
    # Stopped, not streamed to its end (thousands of events at 20 a second): a handful more
    # arrive before the next heartbeat notices.
    assert len(rest.events) < 100
    # The socket hears the run as the database holds it: the takeover's end, not ours.
    assert finished["status"] == "interrupted"
    assert relay.active(conversation.id) is None
    _, runs = await stored(conversation.id)
    assert runs[0].events_jsonl == taken.events_jsonl
    assert runs[0].status == "interrupted"


class _EndsLosingACancel:
    """The shared log as recovery uses it, whose ``publish_end`` waits until it is cancelled and
    then drops the cancel, as redis-py's write in Python 3.11's ``wait_for`` does when the
    write finished in the cancel's turn."""

    available = True

    def __init__(self) -> None:
        self.entered = asyncio.Event()

    async def publish_end(self, *, run_id: str, finished_frame: str) -> None:
        self.entered.set()
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.Event().wait()

    async def flushed(self) -> None:
        pass

    async def close(self) -> None:
        pass


async def test_a_heartbeat_whose_cancel_redis_lost_holds_back_no_shutdown(conversation, settings):
    """The heartbeat's recovery took over a run and was publishing its end when ``shutdown``
    cancelled it; the cancel lost, it went on beating, and ``shutdown`` waited for it for good
    (a management command's end: ``run_grid``)."""
    settings.PLAYGROUND_RUN_LEASE_SECONDS = 0.6  # a heartbeat every 0.1 s
    manager = RunManager(
        batch_seconds=0, checkpoint_seconds=0, slots=LocalSlots(default=1, limits={})
    )
    ends = _EndsLosingACancel()
    manager.others.shared = ends
    await manager.ensure_recovered()
    await database_sync_to_async(_running)(conversation, owner="elsewhere:1234:abcd", expires_in=-1)
    await asyncio.wait_for(ends.entered.wait(), relay_support.TIMEOUT)
    await asyncio.wait_for(manager.shutdown(), relay_support.TIMEOUT)  # a hang guard, not a timing
