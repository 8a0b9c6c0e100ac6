"""Text PostgreSQL cannot hold: a NUL character (U+0000) in any string sent to it becomes
U+FFFD, the character that marks one that could not be kept.

Rule: one place for every path. PostgreSQL's text types refuse NUL outright (psycopg raises
``DataError`` before the query is sent), and a NUL can come from anywhere: an upstream's error
message or ``stop_sequence``, a title, a system prompt, an import, a search query. Replacing it
in psycopg's string dumpers, on each new connection, covers every ORM write, lookup and raw
query at once; JSON values are unaffected (their text holds ``\\u0000`` escaped, never a raw
NUL). SQLite stores NUL as it is, so nothing is registered there. A run's own columns are
cleaned and the replacement noted before they are written (``runs.details``), the same on
either database, so its answer says what became of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # psycopg is the postgres extra's, imported only once PostgreSQL is in use
    from psycopg.adapt import Dumper

__all__ = ["REPLACEMENT", "install_nul_replacement"]

#: What a NUL becomes.
REPLACEMENT = "\ufffd"

_DUMPERS: list[type[Dumper]] | None = None


def _dumpers() -> list[type[Dumper]]:
    global _DUMPERS
    if _DUMPERS is None:
        from psycopg.types import string

        def nul_safe(base: type[Dumper]) -> type[Dumper]:
            def dump(self: Any, obj: str) -> Any:
                return base.dump(self, obj.replace("\x00", REPLACEMENT) if "\x00" in obj else obj)

            return type(f"NulSafe{base.__name__}", (base,), {"dump": dump})

        # psycopg's own order (psycopg.types.string): the last one registered for a format is
        # the default for str in it.
        _DUMPERS = [
            nul_safe(base)
            for base in (
                string.StrBinaryDumperName,
                string.StrBinaryDumperVarchar,
                string.StrBinaryDumper,
                string.StrDumperName,
                string.StrDumperVarchar,
                string.StrDumper,
                string.StrDumperUnknown,
            )
        ]
    return _DUMPERS


def install_nul_replacement(*, sender: Any, connection: Any, **kwargs: Any) -> None:
    """``connection_created``: on a PostgreSQL connection, dump strings NUL-free."""
    if connection.vendor != "postgresql":
        return
    adapters = connection.connection.adapters
    for dumper in _dumpers():
        adapters.register_dumper(str, dumper)
