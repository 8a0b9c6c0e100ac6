"""Two imports of a new prompt at once, on PostgreSQL: the one that finds the name taken by the
other (made after it looked, committed while it waited on the name's unique index) adds to
that prompt, as an import into an existing prompt does, instead of failing with a 500.

SQLite runs one writer at a time, so the race is PostgreSQL's: this runs in CI's PostgreSQL
phase. The test holds the other's insert open in a transaction of its own, starts the import,
waits until PostgreSQL reports the import waiting on that lock (``pg_stat_activity``), then
commits: no sleep decides the order."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection, connections, transaction

from playground.models import Prompt
from playground.prompts import files
from playground.web.ownership import local_user
from tests.live_support import wait_for
from tests.postgres_support import postgres_phase

pytestmark = [
    pytest.mark.skipif(not postgres_phase(), reason="a PostgreSQL race (CI's PostgreSQL phase)"),
    pytest.mark.django_db(transaction=True),
]

DOCUMENT = {
    "format": "messages-playground/prompt",
    "name": "raced",
    "labels": {},
    "versions": [{"number": 1, "message": "from the file", "definition": {"system": "Hi"}}],
}


def _waiting_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
            "AND datname = current_database()"
        )
        return bool(cursor.fetchone()[0])


def test_an_import_racing_a_new_prompt_of_its_name_adds_to_it() -> None:
    owner = local_user()
    holding = threading.Event()
    release = threading.Event()
    outcome: dict[str, Any] = {}

    def make_it_first() -> None:
        try:
            with transaction.atomic():
                Prompt.objects.create(owner=owner, name="raced")
                holding.set()
                release.wait(timeout=60)
        finally:
            connections.close_all()

    def import_it() -> None:
        try:
            outcome["imported"] = files.import_document(owner=owner, document=DOCUMENT)
        except Exception as exc:  # noqa: BLE001 - the outcome is what the test reads
            outcome["error"] = exc
        finally:
            connections.close_all()

    first = threading.Thread(target=make_it_first)
    first.start()
    assert holding.wait(timeout=60)
    second = threading.Thread(target=import_it)
    second.start()
    try:
        wait_for(_waiting_on_a_lock, what="the import to wait on the name's index")
    finally:
        release.set()
        first.join(timeout=60)
        second.join(timeout=60)
    assert "error" not in outcome, repr(outcome.get("error"))
    imported = outcome["imported"]
    assert (imported.added, imported.already) == ([1], [])
    assert Prompt.objects.get(owner=owner, name="raced").versions.count() == 1
