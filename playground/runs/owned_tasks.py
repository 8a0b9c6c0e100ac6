"""Owning asyncio tasks: the one way an owner cancels a task it started and waits for it.

Rule: ``CancelledError`` is swallowed only when it is the cancel we just sent; if the caller is
itself being cancelled, that cancellation goes on.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Iterator
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any]) -> None:
    """Cancel ``task`` and wait until it has finished (its ``finally`` blocks have run)."""
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        current = asyncio.current_task()
        if current is not None and current.cancelling():
            raise


@contextlib.contextmanager
def lost_cancel_raised() -> Iterator[None]:
    """Raise ``CancelledError`` at the block's end if its task was cancelled inside it though
    nothing raised: Python 3.11's ``wait_for`` (redis-py's reads use it) returns a result that
    came in the same turn as a cancel and drops the cancel, and code after it would carry on in
    a task being stopped."""
    task = asyncio.current_task()
    cancels = task.cancelling() if task is not None else 0
    yield
    if task is not None and task.cancelling() > cancels:
        raise asyncio.CancelledError
