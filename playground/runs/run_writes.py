"""The thread run writes go through: a small executor of their own, beside the one that serves
a socket's reads and handshakes.

Rule: every write of a run's life (its start, checkpoints, end, lease renewals, recovery) is
called with :func:`run_write`, never on ``database_sync_to_async``'s one thread. That thread
serves every socket's session check, ownership check and read: a run write waiting on a locked
database (SQLite's busy timeout, a PostgreSQL lock) held all of them up, and a second socket's
handshake was dropped. The writes keep their order among themselves (one thread by default,
``PLAYGROUND_DB_WRITE_THREADS``), and each thread holds one database connection.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from channels.db import DatabaseSyncToAsync
from django.conf import settings

__all__ = ["run_write"]

T = TypeVar("T")

_executor: ThreadPoolExecutor | None = None


def _writes() -> ThreadPoolExecutor:
    global _executor
    if _executor is None:
        _executor = ThreadPoolExecutor(
            max_workers=settings.PLAYGROUND_DB_WRITE_THREADS, thread_name_prefix="run-writes"
        )
    return _executor


def run_write(func: Callable[..., T]) -> Callable[..., Any]:
    """``func`` as an awaitable run on the run writes' thread (old connections closed around
    it, as ``database_sync_to_async`` does)."""
    return DatabaseSyncToAsync(func, thread_sensitive=False, executor=_writes())
