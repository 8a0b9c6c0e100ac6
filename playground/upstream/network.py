"""httpcore's network backend on a plain asyncio protocol: a read that finds data waiting
returns it without touching the event loop's selector.

Rule: this is only the byte pipe under httpx and httpcore (HTTP/1.1, TLS through asyncio's
own ``start_tls``, the pool and every protocol rule stay theirs); the errors are httpcore's
own (``ConnectError``, ``ReadTimeout`` …), so httpx maps them as it does for its default.
``PLAYGROUND_UPSTREAM_NETWORK=anyio`` goes back to httpx's default, and so does an environment
that names a proxy (httpx applies ``HTTPS_PROXY`` and the like only to its own transport;
settings tell which: ``PLAYGROUND_UPSTREAM_PROXIED``).

Why not the default (anyio's streams): per read it resumes the transport's reading and pauses
it again (an ``epoll_ctl`` add and delete) and enters a cancel scope, which at 100 streams ×
200 events/s was about a tenth of the relay's CPU; this backend cut the server's CPU per
relayed event by about 14 % there (``benchmarks/relay.py --scenarios 2``, docs/benchmarks.md).
Here the socket is read whenever data arrives, into a buffer bounded by pausing the transport
above :data:`HIGH_WATER`; a read waits (with its timeout) only when the buffer is empty, and
takes every buffered chunk up to ``max_bytes`` at once.

The read timeout is a deadline each wait moves forward and one timer per connection checks
(:class:`_ReadDeadline`), not a timer per wait: at 100 streams a wait ends every few hundred
microseconds, and scheduling and cancelling a timer for each (``asyncio.timeout``) was about
3 % of the relay's CPU, most of it the timer heap's comparisons.
"""

from __future__ import annotations

import asyncio
import socket
import ssl
from collections import deque
from collections.abc import Iterable
from typing import Any

import httpcore
import httpx

__all__ = ["AsyncioBackend", "default_transport", "transport"]

#: One option for ``setsockopt``, as httpcore hands it (its ``_backends.base.SOCKET_OPTION``).
SocketOption = (
    tuple[int, int, int] | tuple[int, int, bytes | bytearray] | tuple[int, int, None, int]
)


#: Bytes buffered before the transport stops reading (flow control toward a fast upstream).
HIGH_WATER = 1 << 20
LOW_WATER = HIGH_WATER // 4


class Buffered(asyncio.Protocol):
    """What arrived on one connection and not yet read; wakes the one waiting reader."""

    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.chunks: deque[bytes] = deque()
        self.size = 0
        self.ended = False
        self.error: BaseException | None = None
        self.reading_paused = False
        self.waiter: asyncio.Future[None] | None = None
        self.writable: asyncio.Future[None] | None = None  # set while writing is paused
        # The connection's, not a stream's: ``start_tls`` wraps the same protocol anew.
        self.read_deadline = _ReadDeadline(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]

    def data_received(self, data: bytes) -> None:
        self.chunks.append(data)
        self.size += len(data)
        if self.size > HIGH_WATER and not self.reading_paused and self.transport is not None:
            self.reading_paused = True
            self.transport.pause_reading()
        self._wake()

    def eof_received(self) -> bool:
        self.ended = True
        self._wake()
        return False  # close the transport: HTTP/1.1 has no use for a half-open socket

    def connection_lost(self, exc: Exception | None) -> None:
        self.ended = True
        self.error = exc
        self._wake()
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)

    def pause_writing(self) -> None:
        if self.writable is None or self.writable.done():
            self.writable = asyncio.get_running_loop().create_future()

    def resume_writing(self) -> None:
        if self.writable is not None and not self.writable.done():
            self.writable.set_result(None)

    def take(self, max_bytes: int) -> bytes:
        """Every buffered chunk up to ``max_bytes`` (at least one chunk's start)."""
        first = self.chunks.popleft()
        if len(first) > max_bytes:
            self.chunks.appendleft(first[max_bytes:])
            first = first[:max_bytes]
        parts = [first]
        taken = len(first)
        while self.chunks and taken + len(self.chunks[0]) <= max_bytes:
            chunk = self.chunks.popleft()
            parts.append(chunk)
            taken += len(chunk)
        self.size -= taken
        if self.reading_paused and self.size < LOW_WATER and self.transport is not None:
            self.reading_paused = False
            self.transport.resume_reading()
        return parts[0] if len(parts) == 1 else b"".join(parts)

    def _wake(self) -> None:
        waiter = self.waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class _ReadDeadline:
    """The read timeout of one connection: the waiting read fails once its deadline passes.

    :meth:`wait` sets the deadline; the timer is armed only when none is (at the deadline of the
    wait that armed it), and when it fires before the current deadline it re-arms for that one.
    A stream that reads every few milliseconds so costs one timer per ``timeout``, not per read.
    """

    __slots__ = ("protocol", "deadline", "timer")

    def __init__(self, protocol: Buffered) -> None:
        self.protocol = protocol
        self.deadline: float | None = None
        self.timer: asyncio.TimerHandle | None = None

    def wait(self, loop: asyncio.AbstractEventLoop, timeout: float | None) -> None:
        if timeout is None:
            self.deadline = None  # this read waits for ever: a timer still armed lets it be
            return
        self.deadline = loop.time() + timeout
        timer = self.timer
        if timer is not None and timer.when() > self.deadline:
            # A shorter timeout than the armed one's (another request on this kept-alive
            # connection): the timer must not fire late.
            timer.cancel()
            timer = None
        if timer is None:
            self.timer = loop.call_at(self.deadline, self._check, loop)

    def _check(self, loop: asyncio.AbstractEventLoop) -> None:
        self.timer = None
        waiter = self.protocol.waiter
        if waiter is None or waiter.done() or self.deadline is None:
            return  # no read is waiting (or none with a timeout): the next wait arms it again
        if loop.time() >= self.deadline:
            waiter.set_exception(httpcore.ReadTimeout("timed out"))
        else:
            self.timer = loop.call_at(self.deadline, self._check, loop)

    def cancel(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None


class _Stream(httpcore.AsyncNetworkStream):
    def __init__(self, transport: asyncio.Transport, protocol: Buffered) -> None:
        self._transport = transport
        self._protocol = protocol
        self._deadline = protocol.read_deadline
        protocol.transport = transport

    async def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        protocol = self._protocol
        if not protocol.chunks and not protocol.ended:
            loop = asyncio.get_running_loop()
            protocol.waiter = waiter = loop.create_future()
            self._deadline.wait(loop, timeout)
            try:
                await waiter  # raises ReadTimeout when the deadline passes first
            finally:
                protocol.waiter = None
        if protocol.chunks:
            return protocol.take(max_bytes)
        if protocol.error is not None:
            raise httpcore.ReadError(str(protocol.error)) from protocol.error
        return b""  # the peer closed: httpcore reads this as the end

    async def write(self, buffer: bytes, timeout: float | None = None) -> None:
        if not buffer:
            return
        protocol = self._protocol
        if self._transport.is_closing() or protocol.ended:
            raise httpcore.WriteError(str(protocol.error or "the connection is closed"))
        self._transport.write(buffer)
        writable = protocol.writable
        if writable is not None and not writable.done():
            try:
                async with asyncio.timeout(timeout):
                    await writable
            except TimeoutError:
                raise httpcore.WriteTimeout("timed out") from None
        if protocol.error is not None:
            raise httpcore.WriteError(str(protocol.error)) from protocol.error

    async def aclose(self) -> None:
        self._deadline.cancel()
        self._transport.close()

    async def start_tls(
        self,
        ssl_context: ssl.SSLContext,
        server_hostname: str | None = None,
        timeout: float | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                secured = await loop.start_tls(
                    self._transport, self._protocol, ssl_context, server_hostname=server_hostname
                )
        except TimeoutError:
            self._transport.abort()
            raise httpcore.ConnectTimeout("TLS handshake timed out") from None
        except (OSError, ssl.SSLError) as exc:
            self._transport.abort()
            raise httpcore.ConnectError(str(exc)) from exc
        if secured is None:  # the connection closed during the handshake
            raise httpcore.ConnectError("the connection closed during the TLS handshake")
        return _Stream(secured, self._protocol)

    def get_extra_info(self, info: str) -> Any:
        if info == "ssl_object":
            return self._transport.get_extra_info("ssl_object")
        if info == "client_addr":
            return self._transport.get_extra_info("sockname")
        if info == "server_addr":
            return self._transport.get_extra_info("peername")
        if info == "socket":
            return self._transport.get_extra_info("socket")
        if info == "is_readable":
            # httpcore asks this of an idle kept-alive connection: anything buffered or an end
            # means the server closed it (or broke the protocol), so it is not reused.
            return bool(self._protocol.chunks) or self._protocol.ended
        return None


class AsyncioBackend(httpcore.AsyncNetworkBackend):
    """Connections as :class:`Buffered` protocols on the running loop."""

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        local = (local_address, 0) if local_address else None
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_connection(
                    Buffered, host, port, local_addr=local
                )
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        sock: socket.socket = transport.get_extra_info("socket")
        for option in socket_options or ():
            sock.setsockopt(*option)
        return _Stream(transport, protocol)

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,
        socket_options: Iterable[SocketOption] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                transport, protocol = await loop.create_unix_connection(Buffered, path)
        except TimeoutError:
            raise httpcore.ConnectTimeout("timed out") from None
        except OSError as exc:
            raise httpcore.ConnectError(str(exc)) from exc
        return _Stream(transport, protocol)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(seconds)


def default_transport(network: str, *, proxied: bool = False) -> httpx.AsyncHTTPTransport | None:
    """The transport an upstream client uses: this backend (``network="asyncio"``), or None
    for httpx's own (``"anyio"``, or ``proxied``: the environment names a proxy)."""
    if network == "anyio" or proxied:
        return None
    return transport()


def transport(**options: Any) -> httpx.AsyncHTTPTransport:
    """httpx's own transport (its pool, TLS settings, limits) on :class:`AsyncioBackend`."""
    made = httpx.AsyncHTTPTransport(**options)
    pool = made._pool
    # httpx names no network backend; its pool hands this one to every connection it makes.
    if not hasattr(pool, "_network_backend"):
        raise RuntimeError("httpcore's pool changed: playground.upstream.network needs updating")
    pool._network_backend = AsyncioBackend()
    return made
