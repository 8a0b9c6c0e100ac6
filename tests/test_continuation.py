"""Continuing the assistant's turn: after ``pause_turn``, and a prefill (issue 27, item 7).

The rules (``protocol.continuation``), the simulator that pauses a turn on ``[[sim: pause]]``
and goes on with it when it is sent back, and the whole loop through the socket: the stored
turn is the blocks sent then the answer's, exactly as each came, the turn it continues stays
behind it as an alternative, and the next request, the preview and the export all end with it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Message, Run
from playground.protocol.continuation import check_final_assistant, continued_json
from playground.protocol.errors import RequestValidationError
from playground.simulator.inputs import read_request
from playground.simulator.script import build_plan
from tests.relay_support import open_socket, read_run, receive, receive_type, text_of

USER = {"role": "user", "content": "Tell me about tides"}
THINKING_ON = {"type": "enabled", "budget_tokens": 1024}


# -- the rules --------------------------------------------------------------------------------


def test_the_continued_turn_is_the_sent_blocks_then_the_answers_as_text() -> None:
    # Key order, escapes and spacing of the sent blocks survive: they are joined as text.
    sent = (
        '[{"signature":"s\\u00e9","thinking":"hm","type":"thinking"}, {"type":"text","text":"a"}]'
    )
    joined = continued_json(sent, ' [{"type": "text", "text": "b"}]')
    assert joined.startswith(sent[:-1])
    assert json.loads(joined) == [*json.loads(sent), {"type": "text", "text": "b"}]
    # A string turn (an imported prefill) becomes its one text block.
    assert json.loads(continued_json('"Well,"', '[{"type":"text","text":" yes"}]')) == [
        {"type": "text", "text": "Well,"},
        {"type": "text", "text": " yes"},
    ]
    with pytest.raises(ValueError):
        continued_json("[]", '[{"type":"text","text":"b"}]')


@pytest.mark.parametrize(
    ("last", "thinking", "field"),
    [
        pytest.param("Well, ", None, "messages[1].content", id="string-trailing-space"),
        pytest.param(
            [{"type": "text", "text": "a"}, {"type": "text", "text": "b\n"}],
            None,
            "messages[1].content[1]",
            id="block-trailing-newline",
        ),
        pytest.param("Well,", THINKING_ON, "messages[1].content", id="thinking-on-no-thinking"),
    ],
)
def test_the_anthropic_dialect_refuses_what_the_api_refuses(
    last: Any, thinking: Any, field: str
) -> None:
    messages = [USER, {"role": "assistant", "content": last}]
    with pytest.raises(RequestValidationError) as caught:
        check_final_assistant(messages, dialect="anthropic", thinking=thinking)
    assert caught.value.field == field
    # The other dialects' servers refuse neither.
    for dialect in ("friendli", "compatible"):
        check_final_assistant(messages, dialect=dialect, thinking=thinking)


def test_a_paused_thinking_turn_and_a_clean_prefill_are_accepted() -> None:
    paused = [
        {"type": "thinking", "thinking": "x", "signature": "s"},
        {"type": "text", "text": "a"},
    ]
    check_final_assistant(
        [USER, {"role": "assistant", "content": paused}], dialect="anthropic", thinking=THINKING_ON
    )
    check_final_assistant(
        [USER, {"role": "assistant", "content": "{"}], dialect="anthropic", thinking=None
    )
    check_final_assistant([USER], dialect="anthropic", thinking=THINKING_ON)  # not a continuation


# -- the simulator ----------------------------------------------------------------------------


def _plan(messages: list[dict[str, Any]], **body: Any) -> dict[str, Any]:
    request = {"model": "simulator-1", "max_tokens": 4000, "stream": True, **body}
    return build_plan(
        read_request({**request, "messages": messages}), request_id="r", rate=0
    ).message


def test_the_simulator_pauses_on_its_directive_and_goes_on_when_sent_back() -> None:
    asked = {"role": "user", "content": "Tell me about tides [[sim: pause]]"}
    paused = _plan([asked])
    assert paused["stop_reason"] == "pause_turn"
    said = text_of(paused["content"])
    assert said and said == said.rstrip()  # sendable back on the anthropic dialect
    rest = _plan([asked, {"role": "assistant", "content": paused["content"]}])
    assert rest["stop_reason"] == "end_turn"  # the directive pauses only the first request
    whole = said + text_of(rest["content"])
    assert whole.endswith("is worth exploring step by step.")
    assert len(text_of(rest["content"])) > 0 and not text_of(rest["content"]).startswith(said)


def test_the_simulator_thinks_once_and_refuses_as_the_api_does() -> None:
    asked = {"role": "user", "content": "Tell me about tides [[sim: pause]]"}
    thinking = {"thinking": THINKING_ON}
    paused = _plan([asked], **thinking)
    assert [block["type"] for block in paused["content"]] == ["thinking", "text"]
    rest = _plan([asked, {"role": "assistant", "content": paused["content"]}], **thinking)
    assert [block["type"] for block in rest["content"]] == ["text"]
    with pytest.raises(RequestValidationError):
        _plan([USER, {"role": "assistant", "content": "Sure, "}])
    prefilled = _plan([USER, {"role": "assistant", "content": "Sure,"}])
    assert text_of(prefilled["content"]).startswith(" ")


# -- the loop through the socket ---------------------------------------------------------------

pytestmark_db = pytest.mark.django_db(transaction=True)


@database_sync_to_async
def _all_messages(conversation_id: Any) -> list[Message]:
    return list(
        Message.objects.filter(conversation_id=conversation_id)
        .select_related("run")
        .order_by("position", "created_at")
    )


@pytestmark_db
async def test_continue_after_pause_turn_keeps_one_turn_and_the_paused_one_behind(
    relay: Any, conversation: Any
) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send", "content": "Tides? [[sim: pause]]"})
        first = await read_run(socket)
        assert first.finished is not None and first.finished["stop_reason"] == "pause_turn"
        paused = first.finished["message"]
        await socket.send_json_to({"action": "continue"})
        second = await read_run(socket)
    assert second.started is not None
    assert second.started["continued_message"]["id"] == paused["id"]
    assert second.started["user_message"] is None
    assert second.finished is not None and second.finished["stop_reason"] == "end_turn"
    combined = second.finished["message"]
    assert combined["position"] == paused["position"]
    assert combined["carried_blocks"] == len(paused["content"])
    assert combined["content"][: len(paused["content"])] == paused["content"]
    assert combined["branch"]["count"] == 2  # the paused turn, kept as its alternative
    rows = await _all_messages(conversation.id)
    on_path = [row for row in rows if row.on_path]
    assert [row.role for row in on_path] == ["user", "assistant"]
    assert on_path[-1].pk == combined["id"] and on_path[-1].run_id is not None
    assert any(row.pk == paused["id"] and not row.on_path for row in rows)
    # The continuation's request ended with the paused turn, exactly as stored.
    run = await database_sync_to_async(Run.objects.get)(pk=second.finished["run_id"])
    assert run.request["messages"][-1] == {"role": "assistant", "content": paused["content"]}


@pytestmark_db
async def test_a_prefill_is_sent_last_and_kept_with_its_answer(
    relay: Any, conversation: Any
) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(
            {"action": "send", "content": "Tell me about tides", "prefill": "Tides are"}
        )
        run = await read_run(socket)
    assert run.started is not None and run.finished is not None
    assert run.started["user_message"]["content"][0]["text"] == "Tell me about tides"
    assert run.started["continued_message"]["prefill"] is True
    message = run.finished["message"]
    assert message["content"][0] == {"type": "text", "text": "Tides are"}
    assert message["carried_blocks"] == 1 and message["prefill"] is False
    assert text_of(message["content"]).startswith("Tides are ")
    sent = await database_sync_to_async(Run.objects.get)(pk=run.finished["run_id"])
    assert sent.request["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": "Tides are"}],
    }


@pytestmark_db
async def test_continue_is_refused_with_nothing_to_continue_and_changes_nothing(
    relay: Any, conversation: Any
) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "continue"})
        error = await receive_type(socket, "error")
        assert (
            error["error"]["code"] == "conflict"
            and "nothing to continue" in (error["error"]["message"])
        )
        await socket.send_json_to(
            {"action": "send", "content": "Hi", "prefill": "Sure, "}
        )  # the simulator's dialect is anthropic's: trailing whitespace is refused
        refused = await receive(socket)
        assert refused["type"] == "error" and refused["error"]["field"] == "messages[1].content[0]"
    assert await _all_messages(conversation.id) == []


@pytestmark_db
def test_the_preview_and_the_export_end_with_the_turn_to_continue(conversation: Any) -> None:
    user = conversations.append_user_message(conversation=conversation, content="Hi")
    assert user.role == "user"
    conversations.append_prefill(conversation=conversation, text='{"answer":')
    client = Client()
    preview = client.post(
        f"/api/conversations/{conversation.id}/request/",
        data={"continuing": True},
        content_type="application/json",
    )
    assert preview.status_code == 200, preview.content
    body = preview.json()["request"]
    assert body["messages"][-1] == {
        "role": "assistant",
        "content": [{"type": "text", "text": '{"answer":'}],
    }
    exported = client.get(f"/api/conversations/{conversation.id}/export/request.json")
    assert exported.status_code == 200, exported.content
    assert exported.json()["messages"][-1]["role"] == "assistant"
