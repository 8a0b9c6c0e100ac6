"""The full-text index of message content: PostgreSQL's text search, or SQLite's FTS5.

Rule: ``Message.search_text`` (the words of a message, written by the services beside its
content: ``conversations.search.search_text_of``) is what is indexed. PostgreSQL: a GIN index
on ``to_tsvector('simple', search_text)`` (the very expression the query uses, so the planner
takes it; 'simple': no stemming, no stop words, any language). SQLite: an FTS5 table with
external content (``playground_message`` itself) kept in step by three triggers.
:func:`ensure_index` is idempotent: the migration calls it, and so does ``post_migrate``,
because SQLite's schema editor rebuilds a table to alter it and its triggers go with the old
one; recreating them rebuilds the index from the table. Other databases get no index (the
search falls back to ``icontains``).
"""

from __future__ import annotations

from django.db.backends.base.base import BaseDatabaseWrapper

__all__ = ["FTS_TABLE", "PG_INDEX", "ensure_index", "fts5_available"]

FTS_TABLE = "playground_message_fts"
PG_INDEX = "playground_message_search_text_gin"

_SQLITE_TRIGGERS = {
    f"{FTS_TABLE}_ai": f"""
        CREATE TRIGGER {FTS_TABLE}_ai AFTER INSERT ON playground_message BEGIN
          INSERT INTO {FTS_TABLE}(rowid, search_text) VALUES (new.id, new.search_text);
        END""",
    f"{FTS_TABLE}_ad": f"""
        CREATE TRIGGER {FTS_TABLE}_ad AFTER DELETE ON playground_message BEGIN
          INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, search_text)
            VALUES ('delete', old.id, old.search_text);
        END""",
    f"{FTS_TABLE}_au": f"""
        CREATE TRIGGER {FTS_TABLE}_au AFTER UPDATE OF search_text ON playground_message BEGIN
          INSERT INTO {FTS_TABLE}({FTS_TABLE}, rowid, search_text)
            VALUES ('delete', old.id, old.search_text);
          INSERT INTO {FTS_TABLE}(rowid, search_text) VALUES (new.id, new.search_text);
        END""",
}


def fts5_available(connection: BaseDatabaseWrapper) -> bool:
    """SQLite built with FTS5 (Debian's and Python's wheels are)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT sqlite_compileoption_used('ENABLE_FTS5')")
        return bool(cursor.fetchone()[0])


def _has_search_text(connection: BaseDatabaseWrapper) -> bool:
    # A database migrated only part of the way (or back) has no column to index yet.
    with connection.cursor() as cursor:
        if "playground_message" not in connection.introspection.table_names(cursor):
            return False
        columns = connection.introspection.get_table_description(cursor, "playground_message")
    return any(column.name == "search_text" for column in columns)


def ensure_index(connection: BaseDatabaseWrapper) -> None:
    if not _has_search_text(connection):
        return
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute(
                f"CREATE INDEX IF NOT EXISTS {PG_INDEX} ON playground_message USING gin "
                "(to_tsvector('simple'::regconfig, COALESCE(search_text, '')))"
            )
    elif connection.vendor == "sqlite" and fts5_available(connection):
        _ensure_fts5(connection)


def _ensure_fts5(connection: BaseDatabaseWrapper) -> None:
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE VIRTUAL TABLE IF NOT EXISTS {FTS_TABLE} USING fts5(search_text, "
            "content='playground_message', content_rowid='id', "
            "tokenize='unicode61 remove_diacritics 2')"
        )
        cursor.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'")
        present = {row[0] for row in cursor.fetchall()}
        missing = [name for name in _SQLITE_TRIGGERS if name not in present]
        for name in missing:
            cursor.execute(_SQLITE_TRIGGERS[name])
        if missing:
            # Rows written while a trigger was missing are not in the index: rebuild it.
            cursor.execute(f"INSERT INTO {FTS_TABLE}({FTS_TABLE}) VALUES ('rebuild')")


def drop_index(connection: BaseDatabaseWrapper) -> None:
    """The migration's way back."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"DROP INDEX IF EXISTS {PG_INDEX}")
        elif connection.vendor == "sqlite":
            for name in _SQLITE_TRIGGERS:
                cursor.execute(f"DROP TRIGGER IF EXISTS {name}")
            cursor.execute(f"DROP TABLE IF EXISTS {FTS_TABLE}")
