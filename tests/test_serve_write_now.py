"""``serve.HeldWrites``: a transport given data is written by the process's next callback (at
once after a tick's), not registered with the loop for the reactor's next pass; what is left
(a full socket, a failed write, a closing transport) goes to the reactor as before."""

from __future__ import annotations

import asyncio
import logging

from playground.serve import HeldWrites


class Reactor:
    """Twisted's ``addWriter``/``removeWriter``, recording who is registered."""

    def __init__(self) -> None:
        self.writers: list[Transport] = []

    def addWriter(self, writer: Transport) -> None:  # noqa: N802 - Twisted's IReactorFDSet
        if writer not in self.writers:
            self.writers.append(writer)

    def removeWriter(self, writer: Transport) -> None:  # noqa: N802 - Twisted's IReactorFDSet
        if writer in self.writers:
            self.writers.remove(writer)


class Transport:
    """A transport as Twisted's ``FileDescriptor`` acts: ``write`` registers it as a writer,
    ``doWrite`` sends and, once its data is out, unregisters it (``stopWriting``)."""

    def __init__(self, reactor: Reactor, *, fills: bool = False, fails: bool = False) -> None:
        self.reactor = reactor
        self.connected = True
        self.disconnecting = False
        self.fills = fills  # the socket takes part of the data only
        self.fails = fails
        self.pending = 0
        self.sent = 0

    def write(self, frames: int = 1) -> None:
        self.pending += frames
        self.reactor.addWriter(self)

    def doWrite(self) -> None:  # noqa: N802 - Twisted's IWriteDescriptor
        if self.fails:
            raise OSError("the socket went away")
        taken = 1 if self.fills else self.pending
        self.sent, self.pending = self.sent + taken, self.pending - taken
        if not self.pending:
            self.reactor.removeWriter(self)


def held(reactor: Reactor) -> HeldWrites:
    return HeldWrites(reactor)  # type: ignore[arg-type]


async def test_a_transport_given_data_is_written_at_once_never_registered():
    reactor = Reactor()
    writes = held(reactor)
    transport = Transport(reactor)
    transport.write()
    transport.write()
    assert reactor.writers == []  # held, not registered
    writes.write_now()
    assert (transport.sent, transport.pending, reactor.writers) == (2, 0, [])


async def test_data_given_outside_a_tick_is_written_by_the_loops_next_turn():
    reactor = Reactor()
    held(reactor)
    transport = Transport(reactor)
    transport.write()
    written = asyncio.get_running_loop().create_future()
    asyncio.get_running_loop().call_soon(written.set_result, None)  # after the held write's
    await written
    assert (transport.sent, reactor.writers) == (1, [])


async def test_what_a_full_socket_leaves_is_the_reactors_to_write():
    reactor = Reactor()
    writes = held(reactor)
    transport = Transport(reactor, fills=True)
    transport.write(frames=3)
    writes.write_now()
    assert (transport.sent, transport.pending, reactor.writers) == (1, 2, [transport])


async def test_a_transport_closing_after_its_data_is_left_to_the_reactor():
    """Its last write's answer (closed) is the reactor's to act on: written here, the
    connection would never be closed."""
    reactor = Reactor()
    writes = held(reactor)
    transport = Transport(reactor)
    transport.write()  # given data while open, then asked to close (``loseConnection``)
    transport.disconnecting = True
    writes.write_now()
    assert (transport.sent, reactor.writers) == (0, [transport])
    closing = Transport(reactor)
    closing.disconnecting = True
    closing.write()
    assert reactor.writers == [transport, closing]


async def test_a_write_that_fails_is_logged_and_left_to_the_reactor(caplog):
    reactor = Reactor()
    writes = held(reactor)
    failing, fine = Transport(reactor, fails=True), Transport(reactor)
    failing.write()
    fine.write()
    with caplog.at_level(logging.WARNING, logger="playground.serve"):
        writes.write_now()
    assert (fine.sent, reactor.writers) == (1, [failing])
    assert "writing a socket's frames at once failed" in caplog.text


async def test_a_transport_lost_meanwhile_is_not_written():
    reactor = Reactor()
    writes = held(reactor)
    transport = Transport(reactor)
    transport.write()
    transport.connected = False
    writes.write_now()
    assert (transport.sent, reactor.writers) == (0, [])


def test_without_a_running_loop_a_transport_is_registered_as_before():
    reactor = Reactor()
    held(reactor)
    transport = Transport(reactor)
    transport.write()
    assert reactor.writers == [transport]
