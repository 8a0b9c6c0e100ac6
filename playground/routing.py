"""WebSocket URL routes."""

from __future__ import annotations

from django.urls import URLPattern, path, re_path

from playground.runs.consumers import ConversationConsumer
from playground.web.unknown_socket import UnknownSocket

websocket_urlpatterns: list[URLPattern] = [
    path("ws/conversations/<uuid:conversation_id>/", ConversationConsumer.as_asgi()),
    # Last: any other path is refused at the handshake, not answered with a 500.
    re_path(r"", UnknownSocket.as_asgi()),
]
