"""The database being away (restarting, an outage, no pooled connection in time) or refusing
writes (read-only: a standby after a failover, ``default_transaction_read_only``, SQLite's
``query_only``) is no fault of ours: the errors that say so, and the log filter that keeps their
tracebacks out of the log.

Every door answers them as ``unavailable`` (503, ``Retry-After``): the JSON endpoints
(``web.endpoint``), the socket (``runs.consumers``), any other page (``web.server_error``). Kept
free of models, so the logging configuration can load the filter before the apps are ready.
"""

from __future__ import annotations

import logging
import sqlite3

from django.db import InterfaceError, InternalError, OperationalError

__all__ = ["DATABASE_AWAY", "DatabaseAwayIsNoError", "is_read_only"]

#: ``InternalError`` is the database's own state, never a value of ours (DB-API: "the cursor is
#: not valid anymore, the transaction is out of sync"); PostgreSQL's read-only refusal (SQLSTATE
#: 25006, a standby or ``default_transaction_read_only``) is one. Like an outage, it may end.
DATABASE_AWAY = (OperationalError, InterfaceError, InternalError)

#: PostgreSQL's ``read_only_sql_transaction``.
_READ_ONLY_SQLSTATE = "25006"


def is_read_only(exc: BaseException) -> bool:
    """Whether the database refused a write because it is read-only (PostgreSQL or SQLite),
    read from the driver's own error code, which Django keeps as the cause."""
    cause = exc.__cause__
    if getattr(cause, "sqlstate", None) == _READ_ONLY_SQLSTATE:
        return True
    code = getattr(cause, "sqlite_errorcode", None)  # the extended code's low byte is the class
    return code is not None and code & 0xFF == sqlite3.SQLITE_READONLY


class DatabaseAwayIsNoError(logging.Filter):
    """On ``django.request``: drop the traceback Django logs with an answer the database's
    absence caused (``server_error`` logs one line for it): a traceback per request during an
    outage buried the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, DATABASE_AWAY)
