"""A compare column that names a prompt label or version runs that version's settings (its
system prompt, tools, temperature…) with the column's own changes over them; a label that does
not exist is refused naming the column's field, and nothing is stored."""

from __future__ import annotations

import pytest
from channels.db import database_sync_to_async

from playground import conversations
from playground.models import Run
from playground.prompts import resolve_column, services
from playground.protocol.errors import RequestValidationError
from playground.web.ownership import local_user
from tests.relay_support import open_socket, receive_type, state_of
from tests.test_compare import read_columns

pytestmark = pytest.mark.django_db(transaction=True)

TERSE = {
    "system": "Answer in one line about {{topic}}.",
    "variables": {"topic": "tides"},
    "settings": {"temperature": 0.1, "max_tokens": 200},
}


@database_sync_to_async
def labelled_prompt() -> None:
    first = services.create_prompt(owner=local_user(), name="terse", definition=TERSE)
    services.save_version(
        prompt=first.prompt, definition={**TERSE, "system": "Newer."}, author=local_user()
    )
    services.move_label(prompt=first.prompt, label="production", version=first, actor=None)


@database_sync_to_async
def sent_requests(conversation_id: object) -> list[dict]:
    return [
        run.request
        for run in Run.objects.filter(conversation_id=conversation_id).order_by("column")
    ]


async def test_a_column_naming_a_label_runs_that_versions_settings(relay, conversation):
    await labelled_prompt()
    # The conversation gives the values, as it does for its own prompt's variables.
    await database_sync_to_async(conversations.update_variables)(
        conversation=conversation, values={"topic": "owls"}
    )
    columns = [{"model": "simulator-1"}, {"prompt": "terse@production", "max_tokens": 300}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to(
            {"action": "compare", "content": "Tell me about {{topic}}", "columns": columns}
        )
        seen = await read_columns(socket, count=2)
    assert {frame["status"] for frame in seen.finished.values()} == {"complete"}
    plain, prompted = await sent_requests(conversation.id)
    assert "system" not in plain and "temperature" not in plain
    # v1 (the label's), not the newer v2; the column's own max_tokens over the version's.
    assert prompted["system"] == "Answer in one line about owls."
    assert (prompted["temperature"], prompted["max_tokens"]) == (0.1, 300)


async def test_a_column_naming_an_unknown_label_is_refused_and_nothing_is_stored(
    relay, conversation
):
    await labelled_prompt()
    before = await state_of(conversation.id)
    columns = [{"model": "simulator-1"}, {"prompt": "terse@nowhere"}]
    async with open_socket(conversation.id) as socket:
        await receive_type(socket, "hello")
        await socket.send_json_to({"action": "compare", "content": "Hi", "columns": columns})
        error = await receive_type(socket, "error")
    assert error["error"]["field"] == "columns[1].prompt"
    assert "no label 'nowhere'" in error["error"]["message"]
    assert await state_of(conversation.id) == before


@pytest.mark.django_db
def test_resolving_says_which_version_a_label_meant() -> None:
    first = services.create_prompt(owner=local_user(), name="p", definition=TERSE)
    services.move_label(prompt=first.prompt, label="staging", version=first, actor=None)
    resolved = resolve_column(owner=local_user(), column={"prompt": "p@staging"}, field="c")
    assert resolved.reference == {"prompt": "p", "version": 1}
    assert resolved.changes["system"] == TERSE["system"] and "variables" not in resolved.changes
    assert resolve_column(owner=local_user(), column={"model": "m"}, field="c").version is None
    with pytest.raises(RequestValidationError) as caught:
        resolve_column(owner=local_user(), column={"prompt": 3}, field="columns[0]")
    assert caught.value.field == "columns[0].prompt"
