"""Run lifecycle through the real socket, the simulator answering over real HTTP.

Each test reads frames to know where a run is (never the clock): send, stream, batch, fan-out,
stop, detach, resume, busy, and every upstream failure with what is saved after it.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

from playground.models import Run
from playground.protocol.events import Ping
from playground.runs.relay import RunLog, Watcher
from tests.relay_support import (
    SLOW,
    TIMEOUT,
    open_socket,
    read_run,
    receive,
    receive_type,
    state_of,
    stored,
    text_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


async def test_send_streams_every_event_in_order_and_saves_the_answer(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello there"})
        transcript = await read_run(socket)
    messages, runs = await stored(conversation.id)
    assert transcript.seqs == list(range(1, len(transcript.events) + 1))
    assert [e["type"] for e in transcript.events][:1] == ["message_start"]
    assert transcript.events[-1]["type"] == "message_stop"
    assert transcript.finished["status"] == "complete"
    assert transcript.finished["message"]["content"] == messages[-1].content
    assert [m.role for m in messages] == ["user", "assistant"]
    assert runs[0].status == Run.Status.COMPLETE


async def test_run_started_carries_the_stored_user_message(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        transcript = await read_run(socket)
    assert transcript.started["user_message"]["content"] == [{"type": "text", "text": "Hi"}]
    assert transcript.started["run"]["profile"] == "simulator"


async def test_stored_event_log_is_what_the_socket_saw(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        transcript = await read_run(socket)
    _, runs = await stored(conversation.id)
    logged = [json.loads(line) for line in runs[0].events_jsonl.splitlines()]
    assert logged == transcript.events


async def test_timings_are_recorded(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        transcript = await read_run(socket)
    timings = transcript.finished["timings"]
    assert 0 <= timings["first_event_ms"] <= timings["first_token_ms"] <= timings["duration_ms"]
    _, runs = await stored(conversation.id)
    assert runs[0].first_token_at is not None and runs[0].finished_at is not None


def _ping() -> Ping:
    return Ping(raw={"type": "ping"})


async def test_watcher_sends_the_first_event_at_once_then_one_frame_per_pause():
    frames: list[dict[str, Any]] = []
    paused, gate = asyncio.Event(), asyncio.Event()

    async def send(text: str) -> None:
        frames.append(json.loads(text))

    async def pause(seconds: float) -> None:
        paused.set()
        await gate.wait()

    log = RunLog(run_id="r1", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=send, batch_seconds=0.03, pause=pause)
    try:
        watcher.follow(log)
        log.append(_ping())
        await asyncio.wait_for(
            paused.wait(), TIMEOUT
        )  # the first event went out alone; the pump now waits its turn
        assert [f["type"] for f in frames] == ["run.started", "run.events"]
        assert [e["seq"] for e in frames[1]["events"]] == [1]
        for _ in range(3):
            log.append(_ping())
        paused.clear()
        gate.set()
        await asyncio.wait_for(paused.wait(), TIMEOUT)
        assert [e["seq"] for e in frames[2]["events"]] == [2, 3, 4]
        assert len(frames) == 3
    finally:
        await watcher.close()


async def test_watcher_sends_finished_after_the_last_events_and_stops_following():
    frames: list[dict[str, Any]] = []
    done = asyncio.Event()

    async def send(text: str) -> None:
        frames.append(json.loads(text))
        if frames[-1]["type"] == "run.finished":
            done.set()

    log = RunLog(run_id="r1", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watcher = Watcher(send=send, batch_seconds=0.0)
    try:
        watcher.follow(log)
        log.append(_ping())
        log.append(_ping())
        log.finish('{"type":"run.finished"}')
        await asyncio.wait_for(done.wait(), TIMEOUT)
    finally:
        await watcher.close()
    events = [e["seq"] for f in frames if f["type"] == "run.events" for e in f["events"]]
    assert events == [1, 2]
    assert frames[-1]["type"] == "run.finished"
    assert not watcher.following(log)


async def test_a_retry_notice_the_stream_overtook_still_reaches_its_watchers_first():
    # A 0 s retry opens the stream before the watcher's next send: the notice is cleared at
    # once, yet the watcher that was following says it (before the events); one that comes
    # later does not.
    frames: dict[str, list[str]] = {"early": [], "late": [], "saving": []}
    done = {name: asyncio.Event() for name in frames}

    def sender(name: str):
        async def send(text: str) -> None:
            frames[name].append(json.loads(text)["type"])
            if frames[name][-1] == "run.finished":
                done[name].set()

        return send

    log = RunLog(run_id="r1", started_frame='{"type":"run.started"}', clock_origin=0.0)
    watchers = {name: Watcher(send=sender(name), batch_seconds=0.0) for name in frames}
    try:
        watchers["early"].follow(log)
        log.notify('{"type":"run.retrying"}')
        log.clear_notice()
        log.append(_ping())
        watchers["late"].follow(log)
        log.notify('{"type":"run.saving"}')  # the stream is over, its end not saved yet
        watchers["saving"].follow(log)
        log.finish('{"type":"run.finished"}')
        await asyncio.wait_for(asyncio.gather(*(d.wait() for d in done.values())), TIMEOUT)
    finally:
        for watcher in watchers.values():
            await watcher.close()
    assert frames["early"][:3] == ["run.started", "run.retrying", "run.events"]
    assert frames["late"][:2] == ["run.started", "run.events"]
    assert frames["saving"][:2] == ["run.started", "run.events"]
    for name, sent in frames.items():
        assert sent[-1] == "run.finished" and sent.count("run.retrying") == (name == "early")


async def test_two_sockets_each_receive_every_event_once_in_order(relay, conversation):
    async with open_socket(conversation.id) as first, open_socket(conversation.id) as second:
        await receive_type(first, "hello")
        await receive_type(second, "hello")
        await first.send_json_to({"action": "send", "content": "[[sim: long=2000]] Both"})
        seen_first = await read_run(first)
        seen_second = await read_run(second)
    _, runs = await stored(conversation.id)
    total = runs[0].events_jsonl.count("\n")
    assert seen_first.seqs == seen_second.seqs == list(range(1, total + 1))
    assert seen_first.events == seen_second.events


async def test_stop_saves_the_partial_answer_as_stopped(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        transcript = await read_run(socket, until_seq=8)
        await socket.send_json_to({"action": "stop"})
        await read_run(socket, transcript=transcript)
    messages, runs = await stored(conversation.id)
    assert transcript.finished["status"] == "stopped"
    assert runs[0].status == Run.Status.STOPPED
    partial = text_of(messages[-1].content)
    assert 0 < len(partial) < 3000
    assert transcript.finished["message"]["content"] == messages[-1].content


async def test_after_stop_the_conversation_goes_on(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        transcript = await read_run(socket, until_seq=5)
        await socket.send_json_to({"action": "stop"})
        await read_run(socket, transcript=transcript)
        await socket.send_json_to({"action": "send", "content": "And now?"})
        second = await read_run(socket)
    assert second.finished["status"] == "complete"


async def test_stop_with_no_live_run_is_a_conflict(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "stop"})
        error = await receive_type(socket, "error")
    assert error["error"]["code"] == "conflict"
    assert error["action"] == "stop"


async def test_a_second_send_while_live_is_busy_and_changes_nothing(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": SLOW})
        await read_run(socket, until_seq=2)
        before = await state_of(conversation.id)
        await socket.send_json_to({"action": "send", "content": "me too"})
        # Further events of the live run may come first: skip to the error.
        while (frame := await receive(socket))["type"] != "error":
            assert frame["type"] == "run.events"
        assert frame["error"]["code"] == "busy"
        assert await state_of(conversation.id) == before


async def test_detach_leaves_the_run_going_to_its_saved_end(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "[[sim: rate=200 long=600]] Go"})
        await read_run(socket, until_seq=3)
    group = relay.active(conversation.id)
    live = group.columns[0] if group is not None else None
    assert live is not None and live.task is not None  # still running, no socket left
    await asyncio.wait([live.task])
    messages, runs = await stored(conversation.id)
    assert runs[0].status == Run.Status.COMPLETE
    assert len(text_of(messages[-1].content)) == 600


async def test_reconnect_resumes_with_no_gap_and_no_duplicate(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "[[sim: rate=100 long=800]] Go"})
        before = await read_run(socket, until_seq=4)
    last_seen = before.seqs[-1]
    async with open_socket(conversation.id) as socket:
        hello = await receive_type(socket, "hello")
        assert hello["live_group"]["group"] is None  # a group of one
        [active] = hello["live_group"]["columns"]
        assert active["run_id"] == before.started["run"]["id"]
        assert active["last_seq"] >= last_seen
        await socket.send_json_to(
            {"action": "resume", "run_id": active["run_id"], "after_seq": last_seen}
        )
        after = await read_run(socket)
    _, runs = await stored(conversation.id)
    total = runs[0].events_jsonl.count("\n")
    assert after.started["run"]["id"] == active["run_id"]
    assert before.seqs + after.seqs == list(range(1, total + 1))
    assert after.finished["status"] == "complete"


async def test_a_second_tab_resumes_from_zero_while_live(relay, conversation):
    async with open_socket(conversation.id) as first:
        await receive_type(first, "hello")
        await first.send_json_to({"action": "send", "content": "[[sim: rate=100 long=500]] Go"})
        seen_first = await read_run(first, until_seq=3)
        async with open_socket(conversation.id) as second:
            hello = await receive_type(second, "hello")
            run_id = hello["live_group"]["columns"][0]["run_id"]
            await second.send_json_to({"action": "resume", "run_id": run_id, "after_seq": 0})
            seen_second = await read_run(second)
        await read_run(first, transcript=seen_first)
    assert seen_second.seqs == seen_first.seqs
    assert seen_second.events == seen_first.events


async def test_resume_a_finished_run_replays_it_from_the_database(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        whole = await read_run(socket)
        run_id = whole.started["run"]["id"]
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": 3})
        replay = await read_run(socket)
    assert replay.events == whole.events[3:]
    assert replay.finished["message"] == whole.finished["message"]


async def test_resume_past_the_last_event_is_refused(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        whole = await read_run(socket)
        run_id = whole.started["run"]["id"]
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": 10_000})
        error = await receive_type(socket, "error")
    assert error["error"]["field"] == "after_seq"


# --- failures: (directive, retries) -> (status, error code, partial content saved) ----------

FAILURES = [
    pytest.param("[[sim: status=429]]", 0, "failed", "upstream_http_status", False, id="429"),
    pytest.param("[[sim: status=529]]", 0, "failed", "upstream_http_status", False, id="529"),
    pytest.param("[[sim: status=500]]", 0, "failed", "upstream_http_status", False, id="500"),
    pytest.param(
        "[[sim: error=overloaded_error after=10]]",
        0,
        "failed",
        "upstream_error_event",
        True,
        id="mid-stream-error",
    ),
    pytest.param("[[sim: eof after=10]]", 0, "truncated", "upstream_truncated", True, id="eof"),
    pytest.param(
        "[[sim: malformed after=10]]", 0, "failed", "upstream_malformed", True, id="malformed"
    ),
    pytest.param(
        "[[sim: stall=30 after=10]]", 0, "failed", "upstream_read_timeout", True, id="stall"
    ),
]


@pytest.mark.parametrize(("directive", "retries", "status", "code", "partial"), FAILURES)
async def test_upstream_failure_is_saved_with_its_error(
    relay, conversation, settings, directive, retries, status, code, partial
):
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = retries
    if "stall" in directive:  # only there: a cold server's first answer may take over 1 s
        timeouts = settings.PLAYGROUND_UPSTREAM_TIMEOUTS
        settings.PLAYGROUND_UPSTREAM_TIMEOUTS = {**timeouts, "read": 1.0}
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": f"{directive} Hello"})
        transcript = await read_run(socket)
    messages, runs = await stored(conversation.id)
    run = runs[0]
    assert (transcript.finished["status"], run.status) == (status, status)
    assert (transcript.finished["error"]["code"], run.error_code) == (code, code)
    assert run.error_message and run.request_id.startswith("req_sim_")
    if partial:
        assert messages[-1].role == "assistant" and text_of(messages[-1].content)
        assert transcript.finished["message"]["content"] == messages[-1].content
    else:
        assert [m.role for m in messages] == ["user"]
        assert transcript.finished["message"] is None


async def test_a_429_is_retried_when_retries_allow(relay, conversation, settings):
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = 1
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        prompt = "[[sim: status=429 retry_after=0 times=1]] Hello"
        await socket.send_json_to({"action": "send", "content": prompt})
        transcript = await read_run(socket)
    _, runs = await stored(conversation.id)
    assert transcript.finished["status"] == "complete"
    assert runs[0].attempts == 2
    assert [notice["attempt"] for notice in transcript.retrying] == [2]  # told before its wait


@pytest.mark.parametrize(("retries", "attempts"), [(0, 1), (2, 3)], ids=["no-retry", "retries"])
async def test_a_failure_before_the_first_event_stores_every_attempt(
    relay, conversation, settings, retries, attempts
):
    settings.PLAYGROUND_UPSTREAM_MAX_RETRIES = retries
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        # A wait of 0.2 s spans several of the sockets' 30 ms ticks: with none, a run can end in
        # the tick its notices were queued in, and the end supersedes them.
        prompt = "[[sim: status=529 retry_after=0.2]] Hello"
        await socket.send_json_to({"action": "send", "content": prompt})
        transcript = await read_run(socket)
    _, runs = await stored(conversation.id)
    assert transcript.finished["status"] == "failed"
    assert runs[0].attempts == attempts
    # Each retry is told before its wait (a watcher may fold notices arriving together).
    assert bool(transcript.retrying) == (retries > 0)


async def test_after_a_mid_stream_failure_the_next_send_works(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        content = "[[sim: error=api_error after=10]] Hello"
        await socket.send_json_to({"action": "send", "content": content})
        assert (await read_run(socket)).finished["status"] == "failed"
        await socket.send_json_to({"action": "send", "content": "Again"})
        assert (await read_run(socket)).finished["status"] == "complete"


async def test_after_a_failure_before_any_event_regenerate_retries(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        content = "[[sim: status=503 times=1]] Hello"
        await socket.send_json_to({"action": "send", "content": content})
        assert (await read_run(socket)).finished["status"] == "failed"
        await socket.send_json_to({"action": "regenerate"})
        again = await read_run(socket)
    messages, _ = await stored(conversation.id)
    assert again.finished["status"] == "complete"
    assert [m.role for m in messages] == ["user", "assistant"]


async def test_regenerate_puts_a_new_answer_on_screen_and_keeps_the_old(relay, conversation):
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hello"})
        first = await read_run(socket)
        await socket.send_json_to({"action": "regenerate"})
        second = await read_run(socket)
    messages, runs = await stored(conversation.id)
    assert [m.role for m in messages] == ["user", "assistant"]
    assert messages[-1].run_id is not None and str(messages[-1].run_id) == second.finished["run_id"]
    assert first.finished["run_id"] != second.finished["run_id"]
    assert len(runs) == 2
    # The first answer is the new one's alternative: 1/2 beside 2/2.
    branch = second.finished["message"]["branch"]
    assert branch["index"] == 1 and branch["ids"][0] == first.finished["message"]["id"]


@pytest.mark.parametrize(
    ("data", "logged"),
    [
        # As it came, spaces and all: the upstream's text is not encoded again.
        ('{"type": "ping", "n": 1.50}', '{"type": "ping", "n": 1.50}'),
        # A raw line separator is escaped, so the log still splits at "\n" only.
        ('{"type":"ping","t":"a\u2028b"}', '{"type":"ping","t":"a\\u2028b"}'),
        # Several SSE data lines join with "\n": encoded afresh, one line.
        ('{"type":\n"ping","t":"x"}', '{"type":"ping","t":"x"}'),
    ],
    ids=["as-sent", "separator", "multi-line"],
)
def test_an_event_is_logged_from_the_text_it_was_read_from(data: str, logged: str) -> None:
    log = RunLog(run_id="r1", started_frame="{}", clock_origin=0.0)
    log.append(Ping(json.loads(data)), data=data)
    (line,) = log.lines
    assert line.endswith(f',"type":"ping","data":{logged}}}')
    assert "\n" not in line and json.loads(line)["data"] == json.loads(data)
