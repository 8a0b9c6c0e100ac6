"""The URL of an MCP server a person adds: checked before it is kept and before each session.

Rule: ``http`` or ``https`` with a host, no user part (a password in a URL ends up in logs); in
login mode (the only mode where people add servers) every address the host resolves to must be
public, so a person cannot make the server reach its own loopback, a private network or a cloud's
metadata address (169.254.169.254) on their behalf. ``PLAYGROUND_MCP_ALLOW_PRIVATE_URLS`` lifts
that for an operator whose people's servers are inside (and for the tests, on loopback). The
check is made again when a session starts, so a name that resolves elsewhere later is caught.
"""

from __future__ import annotations

import ipaddress
import socket
from urllib.parse import urlsplit

from playground.protocol.errors import RequestValidationError

__all__ = ["check_url"]

MAX_LENGTH = 2000


def check_url(url: str, *, allow_private: bool) -> str:
    """``url`` if it may be reached, else ``RequestValidationError`` naming why (field ``url``).
    Blocking (it resolves the host): call it from a thread on the event loop's side."""
    if not isinstance(url, str) or not url.strip() or len(url) > MAX_LENGTH:
        raise _bad(f"the server's URL is required (at most {MAX_LENGTH} characters)")
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise _bad(f"not a URL ({exc})") from exc
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise _bad("the URL must be http:// or https:// with a host")
    if parts.username is not None or parts.password is not None:
        raise _bad("the URL must not carry a user or password: give a header instead")
    if allow_private:
        return url
    host = parts.hostname
    try:
        found = socket.getaddrinfo(host, port or (443 if parts.scheme == "https" else 80))
    except (OSError, UnicodeError) as exc:
        raise _bad(f"{host} cannot be resolved") from exc
    for *_, address in found:
        ip = ipaddress.ip_address(str(address[0]).split("%", 1)[0])
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped:  # ::ffff:127.0.0.1
            ip = ip.ipv4_mapped
        if not ip.is_global:
            raise _bad(
                f"{host} is a loopback, private or reserved address ({ip}): only public servers "
                "may be added here (the operator allows others with "
                "PLAYGROUND_MCP_ALLOW_PRIVATE_URLS)"
            )
    return url


def _bad(message: str) -> RequestValidationError:
    return RequestValidationError(message, field="url")
