"""The database being away (restarting, an outage, no pooled connection in time) is no fault of
ours: the errors that say so, and the log filter that keeps their tracebacks out of the log.

Every door answers them as ``unavailable`` (503, ``Retry-After``): the JSON endpoints
(``web.endpoint``), the socket (``runs.consumers``), any other page (``web.server_error``). Kept
free of models, so the logging configuration can load the filter before the apps are ready.
"""

from __future__ import annotations

import logging

from django.db import InterfaceError, OperationalError

__all__ = ["DATABASE_AWAY", "DatabaseAwayIsNoError"]

DATABASE_AWAY = (OperationalError, InterfaceError)


class DatabaseAwayIsNoError(logging.Filter):
    """On ``django.request``: drop the traceback Django logs with an answer the database's
    absence caused (``server_error`` logs one line for it): a traceback per request during an
    outage buried the log."""

    def filter(self, record: logging.LogRecord) -> bool:
        exc = record.exc_info[1] if record.exc_info else None
        return not isinstance(exc, DATABASE_AWAY)
