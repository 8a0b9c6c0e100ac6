"""``serve.name_the_loop``: the thread that runs the server's loop tells sniffio it runs
asyncio, so anyio's look-up around each upstream read takes that name, not a sniff of the
running task; other threads (the database's) are asked as before."""

from __future__ import annotations

import threading
from collections.abc import Callable

import sniffio

from playground.serve import name_the_loop


def _in_a_thread(work: Callable[[], object]) -> list[object]:
    seen: list[object] = []

    def run() -> None:
        try:
            seen.append(work())
        except sniffio.AsyncLibraryNotFoundError as exc:
            seen.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    thread.join()
    return seen


def test_the_loops_thread_is_named_asyncio_without_a_sniff():
    def named() -> str:
        name_the_loop()
        try:
            # No loop runs in this thread: only the name can answer.
            return sniffio.current_async_library()
        finally:
            sniffio.thread_local.name = None

    assert _in_a_thread(named) == ["asyncio"]


def test_another_thread_is_not_named():
    _in_a_thread(name_the_loop)  # the name stays with that thread

    (answer,) = _in_a_thread(sniffio.current_async_library)
    assert isinstance(answer, sniffio.AsyncLibraryNotFoundError)
