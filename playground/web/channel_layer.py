"""The Redis channel layer, with a connection pool that waits instead of failing.

Rule: when every connection of a process's pool is in use, the next command waits for one to be
released. channels_redis builds redis-py's plain ``ConnectionPool``, which raises
``MaxConnectionsError`` for the connection after ``max_connections`` (100 by default in redis-py
8): under a burst of sends (many runs relaying at once, many sockets joining) a consumer's send
failed and its socket closed with 1011. ``BlockingConnectionPool`` queues that command until a
connection comes back, which happens as soon as any command in flight ends. The host options
(``socket_timeout`` and the rest) reach every connection unchanged.

Redis away: a command meeting a stale or refused connection is retried (``redis_retry``), and a
socket's wait for its messages (``receive``) outlasts an outage instead of ending the consumer:
every WebSocket closed with 1011 when Redis restarted, and reconnects failed until it was back.
The outage is logged once when it begins and once when it ends, never per call.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from playground.redis_retry import retry_options

logger = logging.getLogger(__name__)

#: How often a socket's wait for messages tries Redis again while it is away.
RETRY_SECONDS = 1.0
_AWAY = (RedisConnectionError, RedisTimeoutError, OSError)


class WaitingRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer; each host's pool is a ``BlockingConnectionPool`` that retries,
    and a receive waits out an outage."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.away = False

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        address = host.pop("address")
        return BlockingConnectionPool.from_url(address, **{**retry_options(), **host})

    async def receive(self, channel: str) -> dict[str, Any]:
        while True:
            try:
                message = await super().receive(channel)
            except _AWAY as exc:
                if not self.away:
                    self.away = True
                    logger.warning("Redis unreachable (%s): sockets wait for it", exc)
                await asyncio.sleep(RETRY_SECONDS)
                continue
            self._back()
            return message

    def _back(self) -> None:
        if self.away:
            self.away = False
            logger.warning("Redis reachable again")
