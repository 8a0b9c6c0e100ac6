"""Owning asyncio tasks: the one way an owner cancels a task it started and waits for it.

Rule: ``CancelledError`` is swallowed only when it is the cancel we just sent; if the caller is
itself being cancelled, that cancellation goes on.
"""

from __future__ import annotations

import asyncio
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
