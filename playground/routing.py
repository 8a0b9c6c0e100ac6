"""WebSocket URL routes."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from playground.mcp.socket_calls import SocketCalls
from playground.runs.consumers import ConversationConsumer
from playground.web.unknown_socket import UnknownSocket

websocket_urlpatterns: list[URLPattern] = [
    path(
        "ws/conversations/<uuid:conversation_id>/",
        # The socket's MCP calls are served by ``mcp`` (which itself leans on ``runs``).
        ConversationConsumer.as_asgi(mcp_calls_of=SocketCalls),
    ),
    # Last: any other path is refused at the handshake, not answered with a 500.
    re_path(r"", UnknownSocket.as_asgi()),
]
