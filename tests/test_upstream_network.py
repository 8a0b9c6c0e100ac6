"""The upstream's byte pipe (``playground.upstream.network``) under real httpx, on real sockets.

A small HTTP/1.1 server on loopback (asyncio streams, one handler per test) answers as an
upstream would: a chunked event stream, a stall, a cut, a close; TLS with a certificate made
for the test. Each check is one of the pipe's promises: bytes arrive whole and in order, a
kept-alive connection is reused (and one the server closed is not), timeouts and failures are
httpx's own errors, a fast sender is paused rather than buffered without bound, and a
cancelled read leaves the connection closable.
"""

from __future__ import annotations

import asyncio
import datetime
import gzip
import ipaddress
import ssl
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from playground.upstream import network, sse

Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


class Server:
    def __init__(self, url: str) -> None:
        self.url = url
        self.connections = 0


@asynccontextmanager
async def serving(handler: Handler, *, tls: ssl.SSLContext | None = None) -> AsyncIterator[Server]:
    server_box: list[Server] = []

    async def on_connect(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        server_box[0].connections += 1
        try:
            await handler(reader, writer)
        finally:
            writer.close()

    server = await asyncio.start_server(on_connect, "127.0.0.1", 0, ssl=tls)
    port = server.sockets[0].getsockname()[1]
    server_box.append(Server(f"{'https' if tls else 'http'}://127.0.0.1:{port}"))
    try:
        yield server_box[0]
    finally:
        server.close()
        await server.wait_closed()


async def read_request(reader: asyncio.StreamReader) -> bytes:
    """One request's head and body (Content-Length), or b"" when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return b""
    for line in head.split(b"\r\n"):
        if line.lower().startswith(b"content-length:"):
            await reader.readexactly(int(line.split(b":")[1]))
    return head


async def until(condition: Callable[[], bool], *, seconds: float = 5.0) -> None:
    """Poll an observable state, with a deadline (not a sleep standing in for an event)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + seconds
    while not condition():
        assert loop.time() < deadline, "the state never came"
        await asyncio.sleep(0.005)


def chunk(data: bytes) -> bytes:
    return b"%x\r\n%s\r\n" % (len(data), data)


STREAM_HEAD = (
    b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ntransfer-encoding: chunked\r\n\r\n"
)


def client(*, timeout: float = 5.0, verify: ssl.SSLContext | bool = True) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=network.transport(verify=verify), timeout=timeout)


async def test_a_chunked_stream_arrives_whole_and_in_order() -> None:
    events = [b'event: e\ndata: {"n": %d}\n\n' % n for n in range(200)]

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(STREAM_HEAD)
        for event in events:
            writer.write(chunk(event))
            await writer.drain()
        writer.write(b"0\r\n\r\n")
        await writer.drain()

    async with (
        serving(handler) as server,
        client() as http,
        http.stream("POST", server.url, json={"stream": True}) as response,
    ):
        body = b"".join([part async for part in response.aiter_bytes()])
    assert body == b"".join(events)


async def test_a_kept_alive_connection_is_reused_and_one_the_server_closed_is_not() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()

    async with serving(handler) as server, client() as http:
        for _ in range(3):
            assert (await http.get(server.url)).text == "ok"
        assert server.connections == 1

    async def closes(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
        await writer.drain()  # then the handler returns and the server closes the socket

    async with serving(closes) as server, client() as http:
        assert (await http.get(server.url)).text == "ok"
        # Once the server's close has reached the idle connection, httpcore sees it as
        # readable (expired) and sends the next request on a new one, not into the dead one.
        pool = http._transport._pool  # type: ignore[attr-defined]
        await until(lambda: not pool.connections or pool.connections[0].has_expired())
        assert (await http.get(server.url)).text == "ok"
        assert server.connections == 2


async def test_a_stall_is_a_read_timeout() -> None:
    stalled = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(STREAM_HEAD + chunk(b"data: {}\n\n"))
        await writer.drain()
        stalled.set()
        await asyncio.Event().wait()  # never another byte

    async with (
        serving(handler) as server,
        client(timeout=0.3) as http,
        http.stream("POST", server.url) as response,
    ):
        parts = response.aiter_bytes()
        assert await anext(parts) == b"data: {}\n\n"
        with pytest.raises(httpx.ReadTimeout):
            await anext(parts)
    assert stalled.is_set()


async def test_the_read_timeout_counts_from_each_wait_not_from_the_first() -> None:
    # One timer per connection checks a deadline each wait moves forward (_ReadDeadline): a
    # stream that sends more often than the timeout, for several timeouts in all, never times
    # out, and when it then stalls the timeout still comes, no sooner than it should.
    # A tenth of the timeout between parts: a loaded machine (CI beside other work) may hold a
    # part back several times that long without the stream seeming to stall.
    timeout, every, parts_sent = 1.0, 0.1, 25
    last_sent_at: list[float] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(STREAM_HEAD)
        for index in range(parts_sent):
            if index:
                await asyncio.sleep(every)  # the pace of a live upstream, not a wait for a state
            # Taken before the write: the client cannot read the last part any sooner, so its
            # deadline is at least a timeout after this, however late a sleep wakes under load.
            last_sent_at[:] = [asyncio.get_running_loop().time()]
            writer.write(chunk(b"data: %d\n\n" % index))
            await writer.drain()
        await asyncio.Event().wait()  # never another byte

    received = b""
    loop = asyncio.get_running_loop()
    async with (
        serving(handler) as server,
        client(timeout=timeout) as http,
        http.stream("POST", server.url) as response,
    ):
        parts = response.aiter_bytes()
        with pytest.raises(httpx.ReadTimeout):
            while True:
                received += await anext(parts)
        timed_out_at = loop.time()
    assert received == b"".join(b"data: %d\n\n" % index for index in range(parts_sent))
    assert parts_sent * every > 2 * timeout  # the stream outlived the timeout several times
    assert timed_out_at - last_sent_at[0] >= timeout - every  # the stall, not the start, timed out


async def test_on_a_kept_alive_connection_each_request_keeps_its_own_read_timeout() -> None:
    # The deadline timer belongs to the connection, so a request reusing it must neither be
    # cut by the timer an earlier request armed (here: none of its own) nor wait for that
    # timer when its own timeout is shorter.
    answered = 0
    pace = 0.4  # how long the server thinks before its second answer

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answered
        while await read_request(reader):
            answered += 1
            if answered == 2:
                await asyncio.sleep(pace)  # the peer's pace, not a wait for a state
            if answered == 4:
                await asyncio.Event().wait()  # never an answer
            writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            await writer.drain()

    async with serving(handler) as server, client() as http:
        assert (await http.get(server.url, timeout=pace / 4)).text == "ok"
        assert (await http.get(server.url, timeout=None)).text == "ok"  # outlives that timer
        assert (await http.get(server.url, timeout=30.0)).text == "ok"  # arms a long timer
        with pytest.raises(httpx.ReadTimeout):
            # Its own 0.2 s, not the 30 s timer already armed (the deadline here is a guard).
            await asyncio.wait_for(http.get(server.url, timeout=0.2), 10)
        assert server.connections == 1


async def test_an_event_stream_a_proxy_gzipped_is_read_decoded() -> None:
    # A Content-Encoding is undone before the SSE splitter (aiter_bytes, not aiter_raw): a
    # gzip from a proxy must not reach it as compressed bytes.
    events = (
        b'event: ping\ndata: {"type":"ping"}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    )
    body = gzip.compress(events)
    head = STREAM_HEAD.replace(b"\r\n\r\n", b"\r\ncontent-encoding: gzip\r\n\r\n")

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        half = len(body) // 2
        writer.write(head + chunk(body[:half]) + chunk(body[half:]) + b"0\r\n\r\n")
        await writer.drain()

    async with (
        serving(handler) as server,
        client() as http,
        http.stream("POST", server.url) as response,
    ):
        kinds = [event.type async for event in sse.aiter_events(response)]
    assert kinds == ["ping", "message_stop"]


async def test_a_refused_connection_is_a_connect_error() -> None:
    async with serving(read_request) as server:
        url = server.url  # the port is free again once the server is closed
    async with client() as http:
        with pytest.raises(httpx.ConnectError):
            await http.get(url)


async def test_a_stream_cut_mid_body_is_a_transport_error() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(STREAM_HEAD + chunk(b"data: {}\n\n") + b"ff\r\npartial")
        await writer.drain()
        writer.transport.abort()

    async with (
        serving(handler) as server,
        client() as http,
        http.stream("POST", server.url) as response,
    ):
        with pytest.raises(httpx.TransportError):
            async for _ in response.aiter_bytes():
                pass


async def test_a_fast_sender_is_paused_and_every_byte_still_arrives() -> None:
    payload = bytes(range(256)) * 4096 * 8  # 8 MiB, many times the buffer's high water mark
    paused: list[bool] = []

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n" % len(payload))
        writer.write(payload)
        await writer.drain()

    original = network.Buffered.data_received

    def watched(self: network.Buffered, data: bytes) -> None:
        original(self, data)
        paused.append(self.reading_paused)

    async with serving(handler) as server, client() as http:
        network.Buffered.data_received = watched  # type: ignore[method-assign]
        try:
            async with http.stream("GET", server.url) as response:
                received = bytearray()
                async for part in response.aiter_raw():
                    received += part
                    if len(received) < 2 * network.HIGH_WATER:
                        await asyncio.sleep(0.01)  # a slow reader while the sender is fast
        finally:
            network.Buffered.data_received = original  # type: ignore[method-assign]
    assert bytes(received) == payload
    assert any(paused), "the transport was never paused"


async def test_a_cancelled_read_leaves_the_client_usable() -> None:
    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while await read_request(reader):
            writer.write(STREAM_HEAD)
            await writer.drain()
            await asyncio.sleep(30)

    async with serving(handler) as server, client() as http:
        for _ in range(2):

            async def read_forever() -> None:
                async with http.stream("GET", server.url) as response:
                    async for _ in response.aiter_bytes():
                        pass

            task = asyncio.create_task(read_forever())
            await until(lambda: server.connections >= 1)
            await asyncio.sleep(0)  # the read is waiting on the socket: cancel it there
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task


def self_signed(tmp: Path) -> tuple[ssl.SSLContext, ssl.SSLContext]:
    """A server context with a certificate for 127.0.0.1, and a client context trusting it."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=1))
        .not_valid_after(now + datetime.timedelta(hours=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    cert_path, key_path = tmp / "cert.pem", tmp / "key.pem"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server.load_cert_chain(cert_path, key_path)
    trusting = ssl.create_default_context(cafile=str(cert_path))
    return server, trusting


async def test_tls_streams_through_asyncios_start_tls(tmp_path: Path) -> None:
    server_tls, trusting = self_signed(tmp_path)

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await read_request(reader)
        writer.write(STREAM_HEAD + chunk(b'data: {"secure": true}\n\n') + b"0\r\n\r\n")
        await writer.drain()

    async with serving(handler, tls=server_tls) as server:
        async with (
            client(verify=trusting) as http,
            http.stream("POST", server.url) as response,
        ):
            body = b"".join([part async for part in response.aiter_bytes()])
        assert body == b'data: {"secure": true}\n\n'
        # A certificate the client does not trust is refused as httpx refuses it.
        async with client() as untrusting:
            with pytest.raises(httpx.ConnectError):
                await untrusting.get(server.url)


def test_the_default_is_this_backend_unless_anyio_or_a_proxy_is_named() -> None:
    # Whether the environment names a proxy is the settings' to read (test_settings_environment).
    assert isinstance(network.default_transport("asyncio"), httpx.AsyncHTTPTransport)
    assert network.default_transport("anyio") is None
    assert network.default_transport("asyncio", proxied=True) is None


async def test_an_idle_connection_reads_as_readable_once_the_server_closed_it() -> None:
    """httpcore asks ``is_readable`` of a kept-alive connection before reusing it: true once
    the server's close (or any stray byte) arrived, false while the line is quiet."""
    close = asyncio.Event()

    async def handler(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await close.wait()

    async with serving(handler) as server:
        host, port = server.url.removeprefix("http://").split(":")
        stream = await network.AsyncioBackend().connect_tcp(host, int(port), timeout=5)
        try:
            await asyncio.sleep(0.05)  # a quiet line stays quiet: nothing to wait for
            assert stream.get_extra_info("is_readable") is False
            close.set()  # the handler returns: the server closes the socket
            await until(lambda: stream.get_extra_info("is_readable"))
            assert await stream.read(1024, timeout=1) == b""  # the end, as httpcore reads it
        finally:
            await stream.aclose()
