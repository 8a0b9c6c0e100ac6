"""``redis_retry.retry_options``: every connection a client or pool makes shares the process's one
``DriverInfo`` (what ``CLIENT SETINFO`` tells Redis), so none reads the package's metadata."""

from __future__ import annotations

from typing import Any

import pytest
from redis.asyncio import BlockingConnectionPool, Redis

from playground.redis_retry import driver_info, retry_options


def test_connections_share_one_driver_info_and_read_no_metadata(monkeypatch: pytest.MonkeyPatch):
    driver_info()  # made once, before

    def read_metadata(*args: Any) -> str:
        raise AssertionError("a connection read redis-py's version from its metadata")

    monkeypatch.setattr("redis.utils.get_lib_version", read_metadata)
    client = Redis.from_url("redis://127.0.0.1:1/0", **retry_options())
    pool = BlockingConnectionPool.from_url("redis://127.0.0.1:1/0", **retry_options())
    made = [client.connection_pool.make_connection(), pool.make_connection()]
    assert all(connection.driver_info is driver_info() for connection in made)
    assert driver_info().formatted_name == "redis-py"
