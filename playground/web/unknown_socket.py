"""A WebSocket to a path no route serves: refused at the handshake, quietly.

Rule: Channels' router raises for an unmatched path, which Daphne answers with HTTP 500 and a
traceback in the log for every stray or probing client. This consumer is the router's last
route: it closes before accepting (Daphne's answer is HTTP 403) and logs nothing.
"""

from __future__ import annotations

from channels.generic.websocket import AsyncWebsocketConsumer

__all__ = ["UnknownSocket"]


class UnknownSocket(AsyncWebsocketConsumer):
    async def connect(self) -> None:
        await self.close()
