"""Recorded streams, replayed byte for byte by an upstream that is not the simulator.

Through the real ASGI application (the consumer in-process, the upstream a loopback HTTP server
from ``tests.replay_upstream``), each test checks what the socket relayed, what the database
kept, and what every later read of it gives: a resume after the end, start-up recovery, the
event log endpoint, the run and conversation JSON, the exports, and the next request sent.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from channels.testing import WebsocketCommunicator
from django.test import AsyncClient

from playground import conversations
from playground.models import Conversation, Run, RunEventChunk
from playground.web.ownership import local_user
from tests.relay_support import TIMEOUT, Transcript, open_socket, receive_type, stored
from tests.replay_upstream import FIXTURES, HEADER_REQUEST_ID, ReplayUpstream

pytestmark = pytest.mark.django_db(transaction=True)

SEPARATORS = "odd_characters_in_strings.sse"
#: The text block of that recording, folded: every odd character kept.
ODD_TEXT = "Line\u2028sep\u2029ara\u0085ted\r\nby CRLF\u0000and NULlone \ud800 half end."


@pytest.fixture
def replayed(replay: ReplayUpstream) -> Conversation:
    return conversations.create_conversation(
        owner=local_user(), profile="replay", model="recorded-model"
    )


async def read_raw_run(socket: WebsocketCommunicator) -> Transcript:
    """Read a run, checking every frame is text a WebSocket may carry (valid UTF-8)."""
    transcript = Transcript()
    while True:
        text = await socket.receive_from(timeout=TIMEOUT)
        text.encode("utf-8")  # a lone surrogate here would fail the real socket's write
        frame = json.loads(text)
        if frame["type"] == "run.started":
            transcript.started = frame
        elif frame["type"] == "run.events":
            transcript.frames += 1
            transcript.events.extend(frame["events"])
        elif frame["type"] == "run.finished":
            transcript.finished = frame
            return transcript
        else:
            raise AssertionError(f"unexpected frame during a run: {frame}")


async def run_recording(conversation: Conversation, recording: str, replay: Any) -> Transcript:
    replay.queue(recording)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        return await read_raw_run(socket)


def recorded_data(name: str) -> list[dict[str, Any]]:
    """The JSON data of each SSE event of a recording, as the upstream sent it."""
    events = []
    # The last piece is "" or an event with no blank line after it, which SSE drops.
    for chunk in (FIXTURES / name).read_text(encoding="utf-8").split("\n\n")[:-1]:
        lines = [line[6:] for line in chunk.split("\n") if line.startswith("data: ")]
        if lines:
            events.append(json.loads("\n".join(lines)))
    return events


async def get_json(path: str) -> Any:
    response = await AsyncClient().get(path)
    assert response.status_code == 200, response.content[:300]
    return json.loads(response.content)


# --- 1. line separators, CR, NUL and lone surrogates in strings ------------------------------


async def test_odd_characters_are_relayed_and_stored_exactly(replay, replayed):
    transcript = await run_recording(replayed, SEPARATORS, replay)
    messages, runs = await stored(replayed.id)

    assert [event["data"] for event in transcript.events] == recorded_data(SEPARATORS)
    assert transcript.finished["status"] == "complete"
    assert messages[-1].content[0]["text"] == ODD_TEXT
    assert messages[-1].content[1]["input"] == {"city": "Paris\u2028Nord", "note": "x"}
    # The stored log is one event per line for any line splitter, and valid UTF-8.
    log = runs[0].events_jsonl
    log.encode("utf-8")
    assert len(log.splitlines()) == len(transcript.events)


async def test_resume_after_the_end_replays_odd_characters_exactly_once(replay, replayed):
    whole = await run_recording(replayed, SEPARATORS, replay)
    run_id = whole.started["run"]["id"]
    last = len(whole.events)
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": 0})
        again = await read_raw_run(socket)
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": last - 2})
        tail = await read_raw_run(socket)
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": last})
        nothing_new = await read_raw_run(socket)
        await socket.send_json_to({"action": "resume", "run_id": run_id, "after_seq": last + 1})
        refused = await receive_type(socket, "error")

    assert again.events == whole.events
    assert again.finished["message"] == whole.finished["message"]
    assert tail.seqs == [last - 1, last]
    assert nothing_new.events == []
    assert refused["error"]["field"] == "after_seq"


async def test_event_log_endpoint_and_run_detail_read_back_every_event(replay, replayed):
    whole = await run_recording(replayed, SEPARATORS, replay)
    run_id = whole.started["run"]["id"]

    response = await AsyncClient().get(f"/api/runs/{run_id}/events.jsonl")
    text = response.content.decode("utf-8")
    lines = [json.loads(line) for line in text.split("\n") if line]
    detail = await get_json(f"/api/runs/{run_id}/")
    conversation = await get_json(f"/api/conversations/{replayed.id}/")

    assert lines == whole.events
    assert len(text.splitlines()) == len(lines)
    assert detail["status"] == "complete"
    assert conversation["messages"][-1]["content"][0]["text"] == ODD_TEXT


@pytest.mark.parametrize(
    "path",
    [
        "/api/conversations/{id}/export/transcript.md",
        "/api/conversations/{id}/export/request.json",
        "/api/conversations/{id}/export/code/?lang=curl",
    ],
    ids=["markdown", "request-json", "code"],
)
async def test_exports_of_odd_characters_are_valid_utf8(replay, replayed, path):
    await run_recording(replayed, SEPARATORS, replay)

    response = await AsyncClient().get(path.format(id=replayed.id))

    assert response.status_code == 200, response.content[:300]
    response.content.decode("utf-8")


def _left_running_with(conversation: Conversation, *, cut: int, old_format: bool) -> Run:
    """A run whose server died after checkpointing the recording's first ``cut`` events."""
    conversations.append_user_message(conversation=conversation, content="Hi")
    dump = (
        (lambda value: json.dumps(value, ensure_ascii=False, separators=(",", ":")))
        if old_format
        else json.dumps  # ASCII: never wrong, so a reader must cope with both
    )
    lines = [
        dump({"seq": seq, "t": seq, "type": data["type"], "data": data})
        for seq, data in enumerate(recorded_data(SEPARATORS)[:cut], start=1)
    ]
    # Lone surrogates: written escaped by both (ensure_ascii=False would write them raw, and
    # no database takes that); the raw separators are what an old log holds.
    lines = [line.encode("utf-8", "backslashreplace").decode() for line in lines]
    run = Run.objects.create(
        conversation=conversation,
        profile="replay",
        model="recorded-model",
        request={},
        status=Run.Status.RUNNING,
        started_at=conversation.created_at,
    )
    RunEventChunk.objects.create(run=run, first_seq=1, lines="".join(f"{line}\n" for line in lines))
    return run


@pytest.mark.parametrize("old_format", [True, False], ids=["raw-separators", "escaped"])
async def test_recovery_after_a_crash_folds_every_checkpointed_event(
    replay, replayed, relay, old_format
):
    run = await database_sync_to_async(_left_running_with)(replayed, cut=14, old_format=old_format)

    await relay.ensure_recovered()

    messages, runs = await stored(replayed.id)
    assert runs[0].pk == run.pk
    assert runs[0].status == Run.Status.INTERRUPTED
    assert messages[-1].content[0]["text"] == ODD_TEXT
    # Cut inside the tool call's JSON: flagged, and kept as received (see send_back).
    assert runs[0].block_issues == {"1": "incomplete"}
    assert messages[-1].content[1]["input"] == {"INVALID_JSON": '{"city": "Par'}


# --- 2. a tool call with invalid JSON, or cut short, keeps its flag ---------------------------

INVALID = "anthropic_sdk/tool_use_invalid_json_response.txt"
MAX_TOKENS = "anthropic_sdk/incomplete_partial_json_response.txt"
RAW_INVALID = '{"location": "Paris", "unit": celsius}'


def _raw_json_of(name: str, index: int) -> str:
    return "".join(
        data["delta"]["partial_json"]
        for data in recorded_data(name)
        if data["type"] == "content_block_delta"
        and data["index"] == index
        and data["delta"]["type"] == "input_json_delta"
    )


@pytest.mark.parametrize(
    ("recording", "status", "issue"),
    [
        (INVALID, "complete", "invalid_json"),
        (MAX_TOKENS, "complete", "incomplete"),
        ("tool_cut_mid_string.sse", "truncated", "incomplete"),
    ],
    ids=["invalid-json", "max-tokens", "truncated"],
)
async def test_a_flagged_tool_call_keeps_its_flag_and_raw_text(
    replay, replayed, recording, status, issue
):
    transcript = await run_recording(replayed, recording, replay)
    raw = _raw_json_of(recording, 1)
    conversation = await get_json(f"/api/conversations/{replayed.id}/")
    run_id = transcript.started["run"]["id"]
    detail = await get_json(f"/api/runs/{run_id}/")

    finished = transcript.finished
    assert finished["status"] == status
    assert finished["block_issues"] == {"1": issue}
    assert finished["message"]["content"][1]["input"] == {"INVALID_JSON": raw}
    stored_message = conversation["messages"][-1]
    assert stored_message["run"]["block_issues"] == {"1": issue}
    assert stored_message["content"][1]["input"] == {"INVALID_JSON": raw}
    assert detail["block_issues"] == {"1": issue}


async def test_a_tool_call_cut_by_stop_keeps_its_flag_and_raw_text(replay, replayed):
    replay.queue("tool_cut_mid_string.sse", hold=True)
    events = len(recorded_data("tool_cut_mid_string.sse"))
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Hi"})
        seen = Transcript()
        while len(seen.events) < events:
            frame = await socket.receive_json_from(timeout=TIMEOUT)
            seen.events.extend(frame.get("events", []))
        await socket.send_json_to({"action": "stop"})
        finished = await read_raw_run(socket)

    assert finished.finished["status"] == "stopped"
    assert finished.finished["block_issues"] == {"1": "incomplete"}
    raw = _raw_json_of("tool_cut_mid_string.sse", 1)
    assert finished.finished["message"]["content"][1]["input"] == {"INVALID_JSON": raw}


async def test_what_goes_back_for_an_invalid_tool_call_is_previewed_then_sent(replay, replayed):
    await run_recording(replayed, INVALID, replay)
    (tool_use_id,) = [
        data["content_block"]["id"]
        for data in recorded_data(INVALID)
        if data["type"] == "content_block_start" and data["content_block"]["type"] == "tool_use"
    ]
    client = AsyncClient()
    answered = await client.post(
        f"/api/conversations/{replayed.id}/tool-results/",
        {"results": [{"tool_use_id": tool_use_id, "content": "bad input", "is_error": True}]},
        content_type="application/json",
    )
    assert answered.status_code == 201, answered.content
    preview = await get_json(f"/api/conversations/{replayed.id}/request/")

    replay.queue("anthropic_sdk/basic_response.txt")
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "regenerate"})
        await read_raw_run(socket)

    wrapped = {"INVALID_JSON": RAW_INVALID}
    assert preview["request"]["messages"][1]["content"][1]["input"] == wrapped
    sent = replay.requests[-1]
    assert sent["messages"][1]["content"][1]["input"] == wrapped
    assert sent["messages"] == preview["request"]["messages"]


# --- 3. events before message_start ------------------------------------------------------------


@pytest.mark.parametrize(
    ("recording", "note"),
    [
        ("early_events.sse", "content_block_stop, content_block_delta (text_delta)"),
        ("anthropic_sdk/unknown_events_response.txt", "content_block_stop"),
    ],
    ids=["stray-stop-and-delta", "sdk-recording"],
)
async def test_events_before_message_start_are_kept_and_flagged(replay, replayed, recording, note):
    transcript = await run_recording(replayed, recording, replay)
    messages, runs = await stored(replayed.id)

    assert transcript.finished["status"] == "complete"
    assert transcript.finished["error"] is None
    assert [event["data"] for event in transcript.events] == recorded_data(recording)
    assert messages[-1].content[0]["text"] in ("Hello after the noise.", "Hello there!")
    assert runs[0].stream_notes[0].endswith(f"kept but not folded: {note}")
    assert transcript.finished["notes"] == runs[0].stream_notes


# --- 4. compaction ----------------------------------------------------------------------------


async def test_compaction_is_applied_and_sent_back_as_received(replay, replayed):
    transcript = await run_recording(replayed, "compaction_two_deltas.sse", replay)
    replay.queue("anthropic_sdk/basic_response.txt")
    async with open_socket(replayed.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "And now?"})
        await read_raw_run(socket)

    block = {
        "type": "compaction",
        "content": "Earlier turns: the user asked about Paris weather.",
        "encrypted_content": "EqQBCioIDxgCEAEYASJA_opaque\u2028payload",
    }
    assert transcript.finished["message"]["content"][0] == block
    assert replay.requests[-1]["messages"][1]["content"][0] == block


# --- 5. stop_sequence, stop_details, container ------------------------------------------------


async def test_stop_sequence_and_container_are_stored_shown_and_exported(replay, replayed):
    transcript = await run_recording(replayed, "stop_sequence_container.sse", replay)
    run_id = transcript.started["run"]["id"]
    detail = await get_json(f"/api/runs/{run_id}/")
    markdown = (
        await AsyncClient().get(f"/api/conversations/{replayed.id}/export/transcript.md")
    ).content.decode()

    container = {"id": "container_011CStop", "expires_at": "2026-01-01T00:00:00Z"}
    for run in (transcript.finished, transcript.finished["message"]["run"], detail):
        assert run["stop_sequence"] == "\nFour"
        assert run["container"] == container
    assert 'stop sequence: "\\nFour"' in markdown
    assert "container: container_011CStop" in markdown


async def test_a_refusal_keeps_its_stop_details(replay, replayed):
    transcript = await run_recording(replayed, "refusal_stop_details.sse", replay)
    _, runs = await stored(replayed.id)
    markdown = (
        await AsyncClient().get(f"/api/conversations/{replayed.id}/export/transcript.md")
    ).content.decode()

    details = {
        "type": "refusal",
        "category": "cyber",
        "explanation": "The request asked for working malware.",
    }
    assert runs[0].stop_details == details
    assert transcript.finished["stop_details"] == details
    assert transcript.finished["message"]["run"]["stop_details"] == details
    assert "refusal (cyber): The request asked for working malware." in markdown


# --- 6. an error event mid-stream -------------------------------------------------------------


async def test_an_error_event_keeps_its_own_request_id_and_type(replay, replayed):
    transcript = await run_recording(replayed, "error_event_mid_stream.sse", replay)
    _, runs = await stored(replayed.id)
    conversation = await get_json(f"/api/conversations/{replayed.id}/")

    error = transcript.finished["error"]
    assert transcript.finished["status"] == "failed"
    assert (error["code"], error["request_id"], error["error_type"]) == (
        "upstream_error_event",
        "req_011CEventOwnId",
        "overloaded_error",
    )
    assert (runs[0].error_request_id, runs[0].error_type) == (
        "req_011CEventOwnId",
        "overloaded_error",
    )
    assert runs[0].request_id == HEADER_REQUEST_ID
    assert conversation["messages"][-1]["run"]["error"] == error
    assert transcript.finished["message"]["content"] == [{"type": "text", "text": "It is 18"}]
