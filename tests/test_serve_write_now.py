"""``serve.writes_at_once``: what the sockets were sent in a tick is written right after it,
each transport's data as the reactor's own pass would write it, closing ones left to it."""

from __future__ import annotations

import logging

from playground.serve import writes_at_once


class Writer:
    def __init__(self, *, disconnecting: bool = False, fails: bool = False) -> None:
        self.disconnecting = disconnecting
        self.fails = fails
        self.writes = 0

    def doWrite(self) -> None:  # noqa: N802 - Twisted's IWriteDescriptor
        self.writes += 1
        if self.fails:
            raise OSError("the socket went away")


class Reactor:
    def __init__(self, writers: list[Writer]) -> None:
        self.writers = writers

    def getWriters(self) -> list[Writer]:  # noqa: N802 - Twisted's IReactorFDSet
        return list(self.writers)


def test_every_transport_with_data_is_written_once():
    writers = [Writer(), Writer()]
    writes_at_once(Reactor(writers))()
    assert [writer.writes for writer in writers] == [1, 1]


def test_a_transport_closing_after_its_data_is_left_to_the_reactor():
    """Its last write's answer (closed) is the reactor's to act on: written here, the
    connection would never be closed."""
    closing = Writer(disconnecting=True)
    writes_at_once(Reactor([closing]))()
    assert closing.writes == 0


def test_a_write_that_fails_is_logged_and_the_others_are_written(caplog):
    failing, fine = Writer(fails=True), Writer()
    with caplog.at_level(logging.WARNING, logger="playground.serve"):
        writes_at_once(Reactor([failing, fine]))()
    assert fine.writes == 1
    assert "writing a socket's frames at once failed" in caplog.text
