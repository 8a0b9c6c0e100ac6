"""The WebSocket Origin check, through the real ASGI application: scheme, host and port must
match the server's own origin (as the browser reached it) or a trusted origin, as Django's CSRF
check requires of a POST. A socket that passes is accepted (and, for an unknown conversation,
then closed with 4404); one that fails is refused at the handshake."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from channels.testing import WebsocketCommunicator

from playground.asgi import application

pytestmark = pytest.mark.django_db(transaction=True)

TIMEOUT = 10
HOST = "127.0.0.1:8000"


async def _opens(
    *, origin: str | None, host: str | None = HOST, scheme: str = "ws", extra: Any = ()
) -> bool:
    headers = [(b"host", host.encode())] if host is not None else []
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    headers.extend(extra)
    communicator = WebsocketCommunicator(
        application, f"/ws/conversations/{uuid.uuid4()}/", headers=headers
    )
    # Daphne sets the scope's scheme from the connection ("wss" behind TLS); the communicator
    # leaves it out (ASGI's default, "ws"). The application has not started yet: set it now.
    communicator.scope["scheme"] = scheme
    connected, _ = await communicator.connect(timeout=TIMEOUT)
    await communicator.disconnect()
    return connected


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        pytest.param("http://127.0.0.1:8000", HOST, id="same-origin"),
        pytest.param("http://localhost:8000", "localhost:8000", id="localhost"),
        pytest.param("http://[::1]:8000", "[::1]:8000", id="ipv6"),
        pytest.param("http://127.0.0.1", "127.0.0.1", id="default-port"),
    ],
)
async def test_the_servers_own_origin_opens_a_socket(origin, host):
    assert await _opens(origin=origin, host=host)


@pytest.mark.parametrize(
    ("origin", "host"),
    [
        pytest.param("http://127.0.0.1:9999", HOST, id="other-port"),
        pytest.param("https://127.0.0.1:8000", HOST, id="other-scheme"),
        pytest.param("http://127.0.0.1", HOST, id="port-left-out"),
        pytest.param("http://localhost:8000", HOST, id="other-allowed-host"),
        pytest.param("http://evil.example", HOST, id="other-host"),
        pytest.param("http://evil.example", "evil.example", id="host-not-allowed"),
        pytest.param("null", HOST, id="null"),
        pytest.param(None, HOST, id="no-origin"),
        pytest.param("http://127.0.0.1:8000", None, id="no-host"),
        pytest.param("http://127.0.0.1:8000/", HOST, id="trailing-slash"),
    ],
)
async def test_any_other_origin_is_refused_at_the_handshake(origin, host):
    assert not await _opens(origin=origin, host=host)


async def test_two_origin_headers_are_refused():
    extra = [(b"origin", b"http://evil.example")]
    assert not await _opens(origin="http://127.0.0.1:8000", extra=extra)


async def test_a_tls_socket_needs_an_https_origin():
    assert await _opens(origin="https://127.0.0.1:8000", scheme="wss")
    assert not await _opens(origin="http://127.0.0.1:8000", scheme="wss")


async def test_a_proxy_header_says_the_scheme_when_configured(settings):
    proto = [(b"x-forwarded-proto", b"https")]
    assert not await _opens(origin="https://127.0.0.1:8000", extra=proto)
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    assert await _opens(origin="https://127.0.0.1:8000", extra=proto)
    assert not await _opens(origin="http://127.0.0.1:8000", extra=proto)


async def test_a_trusted_origin_opens_a_socket_behind_a_proxy(settings):
    # The proxy forwards Host: 127.0.0.1:8000; the page is at https://play.example.com.
    settings.CSRF_TRUSTED_ORIGINS = ["https://play.example.com"]
    assert await _opens(origin="https://play.example.com")
    assert not await _opens(origin="http://play.example.com")
    assert not await _opens(origin="https://play.example.com:8443")
    assert not await _opens(origin="https://evil.play.example.com")


async def test_a_wildcard_trusted_origin_allows_subdomains_of_that_scheme(settings):
    settings.CSRF_TRUSTED_ORIGINS = ["https://*.example.com"]
    assert await _opens(origin="https://play.example.com")
    assert await _opens(origin="https://a.b.example.com")
    assert not await _opens(origin="http://play.example.com")
    assert not await _opens(origin="https://play.example.org")
