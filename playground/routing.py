"""WebSocket URL routes (the relay's consumer is added by the relay)."""

from __future__ import annotations

from django.urls import URLPattern

websocket_urlpatterns: list[URLPattern] = []
