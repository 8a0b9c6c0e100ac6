"""The Redis channel layer, with a connection pool that waits instead of failing.

Rule: when every connection of a process's pool is in use, the next command waits for one to be
released. channels_redis builds redis-py's plain ``ConnectionPool``, which raises
``MaxConnectionsError`` for the connection after ``max_connections`` (100 by default in redis-py
8): under a burst of sends (many runs relaying at once, many sockets joining) a consumer's send
failed and its socket closed with 1011. ``BlockingConnectionPool`` queues that command until a
connection comes back, which happens as soon as any command in flight ends. The host options
(``socket_timeout`` and the rest) reach every connection unchanged.
"""

from __future__ import annotations

from typing import Any

from channels_redis.core import RedisChannelLayer
from redis.asyncio import BlockingConnectionPool


class WaitingRedisChannelLayer(RedisChannelLayer):
    """channels_redis's layer; each host's pool is a ``BlockingConnectionPool``."""

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        address = host.pop("address")
        return BlockingConnectionPool.from_url(address, **host)
