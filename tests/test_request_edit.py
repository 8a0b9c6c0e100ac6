"""The editable next request: the pure check, the dry-run endpoint, and ``send_request``.

An edit is held to the rules every other door applies (shape, messages, the dialect's ranges);
a draft is exactly what the send would build and stores nothing; a sent edit is the body the
run records, and a refused one changes nothing.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client

from playground import conversations
from playground.models import Run
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_edit import check_edited_request
from playground.web.ownership import local_user
from tests.relay_support import open_socket, read_run, receive_type, state_of

USER_HI = {"role": "user", "content": [{"type": "text", "text": "Hi"}]}


def body(**changes: Any) -> dict[str, Any]:
    return {"model": "simulator-1", "max_tokens": 64, "messages": [USER_HI], **changes}


# --- the pure check ------------------------------------------------------------------------------


def test_an_edit_is_rebuilt_streaming_without_nulls() -> None:
    checked = check_edited_request(body(stream=False, temperature=None), dialect="anthropic")
    assert checked == {
        "model": "simulator-1",
        "max_tokens": 64,
        "messages": [USER_HI],
        "stream": True,
    }


REFUSED = [
    pytest.param(body(authorization="Bearer x"), "authorization", id="credential-key"),
    pytest.param(body(temperature="hot"), "temperature", id="wrong-type"),
    pytest.param(body(temperature=1.5), "temperature", id="out-of-the-dialects-range"),
    pytest.param(body(model=""), "model", id="blank-model"),
    pytest.param(
        body(messages=[USER_HI, {"role": "assistant", "content": "Hello "}]),
        "messages[1].content",
        id="a-prefill-ending-in-whitespace",
    ),
    pytest.param(
        body(
            messages=[USER_HI, {"role": "assistant", "content": "Hello"}],
            max_tokens=4096,
            thinking={"type": "enabled", "budget_tokens": 1024},
        ),
        "messages[1].content",
        id="a-prefill-with-thinking-on",
    ),
    pytest.param(
        body(messages=[{"role": "user", "content": [{"type": "tool_result", "tool_use_id": "x"}]}]),
        "messages[0]",
        id="a-result-nobody-asked-for",
    ),
]


def test_an_edit_may_end_with_the_assistant_turn_to_continue() -> None:
    # A prefill, or a turn paused by pause_turn sent back: the API continues it.
    prefill = {"role": "assistant", "content": "Hello"}
    checked = check_edited_request(body(messages=[USER_HI, prefill]), dialect="anthropic")
    assert checked["messages"][-1] == prefill
    # The compatible servers check neither whitespace nor thinking: the same body goes out.
    loose = body(messages=[USER_HI, {"role": "assistant", "content": "Hello "}])
    assert check_edited_request(loose, dialect="compatible")["messages"][-1]["content"] == "Hello "


@pytest.mark.parametrize(("dialect", "kept"), [("anthropic", True), ("compatible", False)])
def test_an_edits_container_goes_out_on_the_anthropic_dialect(dialect: str, kept: bool) -> None:
    checked = check_edited_request(body(container="container_011CA"), dialect=dialect)
    assert checked.get("container") == ("container_011CA" if kept else None)


@pytest.mark.parametrize(("edited", "field"), REFUSED)
def test_an_edit_is_refused_by_the_same_rules(edited: dict[str, Any], field: str) -> None:
    with pytest.raises(RequestValidationError) as caught:
        check_edited_request(edited, dialect="anthropic")
    assert (caught.value.field or "").startswith(field), caught.value.as_dict()


# --- the dry run over HTTP -----------------------------------------------------------------------


def post(client: Client, url: str, payload: Any) -> Any:
    return client.post(url, data=json.dumps(payload), content_type="application/json")


@pytest.mark.django_db
def test_a_draft_is_what_the_send_would_build_and_stores_nothing(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user(), system="Be brief.")
    url = f"/api/conversations/{conversation.id}/request/"
    draft = post(client, url, {"content": "Hi"}).json()
    assert conversation.messages.count() == 0
    conversations.append_user_message(conversation=conversation, content="Hi")
    _, built = conversations.next_request(conversation=conversation)
    assert (draft["request"], draft["edited"]) == (built, None)


@pytest.mark.django_db
def test_a_checked_edit_comes_back_with_the_draft(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())
    url = f"/api/conversations/{conversation.id}/request/"
    edit = body(system="Answer in French.", temperature=0.2)
    payload = post(client, url, {"content": "Hi", "request": edit}).json()
    assert payload["edited"] == {**edit, "stream": True}
    assert "system" not in payload["request"]


@pytest.mark.django_db
def test_a_refused_edit_is_the_usual_400(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())
    url = f"/api/conversations/{conversation.id}/request/"
    response = post(client, url, {"content": "Hi", "request": body(top_k=-3)})
    assert response.status_code == 400
    assert response.json()["error"]["field"] == "top_k"
    assert conversation.messages.count() == 0


@pytest.mark.django_db
def test_a_turn_is_a_message_or_results_not_both(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())
    url = f"/api/conversations/{conversation.id}/request/"
    response = post(client, url, {"content": "Hi", "results": []})
    assert (response.status_code, response.json()["error"]["field"]) == (400, "content")


# --- send_request on the socket ------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
async def test_send_request_sends_the_edit_and_the_run_records_it(relay, conversation) -> None:
    edit = body(system="Answer in French.", max_tokens=50)
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "send_request", "content": "Hi", "request": edit})
        transcript = await read_run(socket)
    assert transcript.finished["status"] == "complete"
    run = await database_sync_to_async(Run.objects.get)(pk=transcript.started["run"]["id"])
    assert run.request == {**edit, "stream": True}
    roles = [role for role, _ in await state_of(conversation.id) if role in ("user", "assistant")]
    assert roles == ["user", "assistant"]


@pytest.mark.django_db(transaction=True)
async def test_a_refused_send_request_changes_nothing(relay, conversation) -> None:
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        before = await state_of(conversation.id)
        await socket.send_json_to(
            {"action": "send_request", "content": "Hi", "request": body(temperature=9)}
        )
        error = await receive_type(socket, "error")
        assert (error["error"]["field"], error["action"]) == ("temperature", "send_request")
        assert await state_of(conversation.id) == before
