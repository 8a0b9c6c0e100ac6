"""Migrations that move data: rows written before them read back as they should after them.

``0006_json_as_exact_text``: rows read back the same. ``0011_run_event_chunks``: each run's
event log becomes its first chunk and back. ``0013_message_branches``: each conversation's
messages become one path (each the child of the one before), all on screen.

Runs the real migrations on the test database (SQLite here; PostgreSQL in CI, where ``usage``
and ``block_issues`` go from jsonb to text), with rows written through the old schema.

On SQLite, the first test reaches its old schema backwards from the latest migration (so every
migration after 0005 is shown to reverse), the others forwards from an empty database, and each
gives the test database back as a copy of the run's migrated template: walking all the way back
and forth again cost each test about 7 s of CPU, the forward walk 0.3 to 1.6 s. On PostgreSQL
each goes back from the latest and forth to it again.
"""

from __future__ import annotations

import json
import sqlite3
import uuid
from collections.abc import Iterator
from contextlib import closing, contextmanager
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from tests.migrated import migrated_template

pytestmark = pytest.mark.django_db(transaction=True)

BEFORE = [("playground", "0005_run_content_kept")]
AFTER = [("playground", "0006_json_as_exact_text")]

ODD_CONTENT = (
    '[{"type":"thinking","thinking":"é","signature":"sig/+=","z":1},{"type":"text","text":"x"}]'
)
REQUEST = '{"model":"m","messages":[{"role":"user","content":"Hi"}],"stream":true}'


def _migrate(targets: list[tuple[str, str]]) -> Any:
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


@contextmanager
def old_schema(targets: list[tuple[str, str]], *, backwards: bool = False) -> Iterator[Any]:
    """The apps at ``targets``, and the test database at the latest migration afterwards."""
    if connection.vendor != "sqlite":
        yield _migrate(targets)
        _migrate(executor_leaf())
        return
    if not backwards:
        _copy_into_test_database(":memory:")  # empty: migrated forwards from nothing
    yield _migrate(targets)
    _copy_into_test_database(str(migrated_template()))


def _copy_into_test_database(source: str) -> None:
    """The test database becomes a copy of ``source`` (SQLite's backup API, whole)."""
    connection.ensure_connection()
    with closing(sqlite3.connect(source)) as database:
        database.backup(connection.connection)


@pytest.fixture
def old_apps() -> Iterator[Any]:
    with old_schema(BEFORE, backwards=True) as apps:
        yield apps


def executor_leaf() -> list[tuple[str, str]]:
    return MigrationExecutor(connection).loader.graph.leaf_nodes("playground")


def test_rows_written_before_read_back_the_same_after(old_apps: Any) -> None:
    user = old_apps.get_model("auth", "User").objects.create(username="old")
    Conversation = old_apps.get_model("playground", "Conversation")
    conversation = Conversation.objects.create(owner=user, title="Old")
    Run = old_apps.get_model("playground", "Run")
    now = timezone.now()
    usage = {"output_tokens": 48, "input_tokens": 12, "cache_read_input_tokens": 0}
    kept = Run.objects.create(
        id=uuid.uuid4(),
        conversation=conversation,
        profile="simulator",
        model="m",
        request_json=REQUEST,
        status="complete",
        started_at=now,
        usage=usage,
        block_issues={"1": "incomplete"},
        kept_content_json=ODD_CONTENT,
        kept_reason="changed under the run",
    )
    plain = Run.objects.create(
        id=uuid.uuid4(),
        conversation=conversation,
        profile="simulator",
        model="m",
        request_json="",
        status="failed",
        started_at=now,
    )
    old_apps.get_model("playground", "Message").objects.create(
        conversation=conversation, position=0, role="assistant", content_json=ODD_CONTENT, run=kept
    )
    old_apps.get_model("playground", "Share").objects.create(
        conversation=conversation, token_hash="a" * 64, snapshot_json="", snapshot_at=now
    )

    new_apps = _migrate(AFTER)

    NewRun = new_apps.get_model("playground", "Run")
    message = new_apps.get_model("playground", "Message").objects.get()
    assert message.content == json.loads(ODD_CONTENT)
    # Key order and the signature as received, to the byte, in the text the next request sends.
    assert json.dumps(message.content, ensure_ascii=False, separators=(",", ":")) == ODD_CONTENT
    with connection.cursor() as cursor:
        cursor.execute("SELECT content FROM playground_message")
        assert cursor.fetchone()[0] == ODD_CONTENT
    first = NewRun.objects.get(pk=kept.pk)
    assert (first.request, first.usage, first.block_issues) == (
        json.loads(REQUEST),
        usage,
        {"1": "incomplete"},
    )
    assert first.kept_content == json.loads(ODD_CONTENT)
    second = NewRun.objects.get(pk=plain.pk)
    assert (second.request, second.kept_content, second.usage) == (None, None, {})
    assert new_apps.get_model("playground", "Share").objects.get().snapshot is None


LOG = (
    '{"seq":1,"t":0,"type":"ping","data":{"type":"ping"}}\n{"seq":2,"t":5,"type":"x","data":"é"}\n'
)


@pytest.fixture
def apps_before_chunks() -> Iterator[Any]:
    with old_schema([("playground", "0010_conversation_tool_mocks")]) as apps:
        yield apps


def _run_with_log(apps: Any, log: str) -> Any:
    user = apps.get_model("auth", "User").objects.create(username=f"u{uuid.uuid4().hex[:8]}")
    conversation = apps.get_model("playground", "Conversation").objects.create(owner=user)
    return apps.get_model("playground", "Run").objects.create(
        conversation=conversation,
        profile="simulator",
        model="m",
        status="complete",
        started_at=timezone.now(),
        events_jsonl=log,
    )


def test_each_stored_log_becomes_its_first_chunk_and_back(apps_before_chunks: Any) -> None:
    logged = _run_with_log(apps_before_chunks, LOG)
    empty = _run_with_log(apps_before_chunks, "")

    chunked = _migrate([("playground", "0011_run_event_chunks")])
    Chunk = chunked.get_model("playground", "RunEventChunk")
    assert list(Chunk.objects.values_list("run_id", "first_seq", "lines")) == [(logged.pk, 1, LOG)]
    assert not Chunk.objects.filter(run_id=empty.pk).exists()
    # A second write appends a chunk; going back joins them in seq order.
    Chunk.objects.create(run_id=logged.pk, first_seq=3, lines='{"seq":3}\n')

    back = _migrate([("playground", "0010_conversation_tool_mocks")])
    Run = back.get_model("playground", "Run")
    assert Run.objects.get(pk=logged.pk).events_jsonl == LOG + '{"seq":3}\n'
    assert Run.objects.get(pk=empty.pk).events_jsonl == ""


# --- 0013_message_branches: each conversation's messages become one path ------------------------

BEFORE_BRANCHES = [("playground", "0012_attachments")]
AFTER_BRANCHES = [("playground", "0013_message_branches")]


@pytest.fixture
def apps_before_branches() -> Iterator[Any]:
    with old_schema(BEFORE_BRANCHES) as apps:
        yield apps


def test_existing_messages_become_one_path_per_conversation(apps_before_branches: Any) -> None:
    old = apps_before_branches
    user = old.get_model("auth", "User").objects.create(username="old")
    Conversation = old.get_model("playground", "Conversation")
    Message = old.get_model("playground", "Message")
    ids: dict[str, list[int]] = {}
    for title, count in (("A", 3), ("B", 2), ("Empty", 0)):
        conversation = Conversation.objects.create(owner=user, title=title)
        ids[title] = [
            Message.objects.create(
                conversation=conversation,
                position=position,
                role="user" if position % 2 == 0 else "assistant",
                content=[{"type": "text", "text": f"{title}{position}"}],
            ).pk
            for position in range(count)
        ]

    new = _migrate(AFTER_BRANCHES).get_model("playground", "Message")

    for title in ("A", "B"):
        rows = list(
            new.objects.filter(pk__in=ids[title])
            .order_by("position")
            .values_list("pk", "parent_id", "on_path")
        )
        parents = [None, *ids[title][:-1]]
        assert rows == [(pk, parent, True) for pk, parent in zip(ids[title], parents, strict=True)]


# --- 0031_conversation_settings: the settings' columns become one JSON object -------------------

BEFORE_SETTINGS = [("playground", "0030_audit_log")]
AFTER_SETTINGS = [("playground", "0031_conversation_settings")]
#: A value other than its default for every setting the old schema had a column for.
EVERY_SETTING: dict[str, Any] = {
    "profile": "friendli",
    "model": "meta-llama-3.1-8b-instruct",
    "system": "Be brief. «é» \u2028",
    "max_tokens": 333,
    "temperature": 1.5,
    "top_p": 0.25,
    "top_k": 7,
    "stop_sequences": ["END", "§"],
    "tools": [{"name": "t", "input_schema": {"type": "object", "z": 1, "a": 2}}],
    "tool_choice": {"type": "tool", "name": "t"},
    "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
    "thinking": {"type": "enabled", "budget_tokens": 100},
    "extra_fields": {"metadata": {"user_id": "u-1"}},
}
#: A row of the old schema left at its columns' defaults and nulls.
DEFAULTS: dict[str, Any] = {
    "profile": "simulator",
    "model": "simulator-1",
    "system": "",
    "max_tokens": 1024,
    "temperature": None,
    "top_p": None,
    "top_k": None,
    "stop_sequences": [],
    "tools": [],
    "tool_choice": None,
    "output_config": None,
    "thinking": None,
    "extra_fields": {},
}


@pytest.fixture
def apps_before_settings() -> Iterator[Any]:
    with old_schema(BEFORE_SETTINGS) as apps:
        yield apps


def test_every_setting_moves_into_the_one_column_and_back(apps_before_settings: Any) -> None:
    old = apps_before_settings
    user = old.get_model("auth", "User").objects.create(username="old")
    Conversation = old.get_model("playground", "Conversation")
    chosen = Conversation.objects.create(owner=user, title="Chosen", **EVERY_SETTING)
    plain = Conversation.objects.create(owner=user, title="Plain", max_tokens=None)

    Settings = _migrate(AFTER_SETTINGS).get_model("playground", "Conversation")

    moved = Settings.objects.get(pk=chosen.pk).settings
    assert {name: getattr(moved, name) for name in EVERY_SETTING} == EVERY_SETTING
    # Key order inside a setting's JSON is kept (a tool's schema is sent as it was written).
    assert list(moved.tools[0]["input_schema"]) == ["type", "z", "a"]
    left = Settings.objects.get(pk=plain.pk).settings
    assert {name: getattr(left, name) for name in DEFAULTS} == {**DEFAULTS, "max_tokens": None}
    # Read back by the code that runs on it: every setting the declaration has, one value.
    from playground.models import Conversation as Current

    # Only its settings: columns added after this migration are not there yet.
    assert Current.objects.only("settings").get(pk=chosen.pk).settings.model_dump() == {
        **moved.model_dump(),
        **EVERY_SETTING,
    }

    back = _migrate(BEFORE_SETTINGS).get_model("playground", "Conversation")
    row = back.objects.get(pk=chosen.pk)
    assert {name: getattr(row, name) for name in EVERY_SETTING} == EVERY_SETTING
    assert back.objects.get(pk=plain.pk).max_tokens is None
