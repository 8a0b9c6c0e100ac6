"""A test server's database (``tests/migrated.py``): a new file is a copy of the run's template, a
file already at every migration is left as it is, and any other gets the real command."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from contextlib import closing
from pathlib import Path

import pytest

from tests import migrated


@pytest.fixture
def commands(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The databases ``manage.py migrate`` was run on (recorded, not run; the run's template
    is made first, by the real command where no test made it yet)."""
    migrated.migrated_template()
    ran: list[str] = []

    def record(env: Mapping[str, str]) -> None:
        ran.append(env["DATABASE_URL"])

    monkeypatch.setattr(migrated, "_run_migrate", record)
    return ran


def _url(path: Path) -> dict[str, str]:
    return {"DATABASE_URL": f"{migrated.SQLITE_PREFIX}{path}"}


def test_a_restarted_servers_file_is_left_as_it_is(tmp_path: Path, commands: list[str]) -> None:
    database = tmp_path / "live.sqlite3"
    migrated.migrate(_url(database))  # the first start: a copy of the template
    with closing(sqlite3.connect(database)) as db, db:
        db.execute("UPDATE django_migrations SET applied = '2000-01-01 00:00:00'")

    migrated.migrate(_url(database))  # the restart

    assert commands == []
    with closing(sqlite3.connect(database)) as db:
        assert {row[0] for row in db.execute("SELECT applied FROM django_migrations")} == {
            "2000-01-01 00:00:00"
        }


def test_a_file_missing_a_migration_gets_the_command(tmp_path: Path, commands: list[str]) -> None:
    database = tmp_path / "old.sqlite3"
    migrated.migrate(_url(database))
    with closing(sqlite3.connect(database)) as db, db:
        last = "(SELECT max(id) FROM django_migrations)"
        db.execute(f"DELETE FROM django_migrations WHERE id = {last}")

    migrated.migrate(_url(database))

    assert commands == [_url(database)["DATABASE_URL"]]


def test_a_file_of_no_migrations_gets_the_command(tmp_path: Path, commands: list[str]) -> None:
    database = tmp_path / "empty.sqlite3"
    sqlite3.connect(database).close()  # an empty SQLite file, there before the server
    assert database.exists()

    migrated.migrate(_url(database))

    assert commands == [_url(database)["DATABASE_URL"]]
