"""WebSocket URL routes."""

from __future__ import annotations

from django.urls import URLPattern, path

from playground.runs.consumers import ConversationConsumer

websocket_urlpatterns: list[URLPattern] = [
    path("ws/conversations/<uuid:conversation_id>/", ConversationConsumer.as_asgi()),
]
