"""``shared_delivery.held_command``: a command straight on a client's held connection, answered
as the client answers it, and made again through the client when that connection is lost."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest
from redis.asyncio import Redis

from playground.redis_retry import retry_options
from playground.runs.shared_delivery import held_command
from tests.redis_support import RedisServer, redis_server  # noqa: F401 - the fixture


class CountingRedis(Redis):
    """Counts the commands that go through the client's own path."""

    through_client = 0

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        self.through_client += 1
        return await super().execute_command(*args, **options)


@pytest.fixture
async def held(redis_server: RedisServer) -> AsyncIterator[CountingRedis]:  # noqa: F811
    client = CountingRedis.from_url(
        redis_server.url, decode_responses=True, single_connection_client=True, **retry_options()
    )
    try:
        yield client
    finally:
        await client.aclose()


async def test_an_xread_is_answered_as_the_clients_own_and_on_the_held_connection(held):
    key = f"stream-{uuid.uuid4()}"
    await held.xadd(key, {"l": "one", "s": "1"})
    through_client = held.through_client
    answer = await held_command(held, "XREAD", "BLOCK", 10, "STREAMS", key, "0-0")
    assert held.through_client == through_client  # not the client's path
    assert answer == await held.xread({key: "0-0"}, block=10)
    assert answer[0][0] == key and answer[0][1][0][1] == {"l": "one", "s": "1"}
    # Nothing new: the blocking read times out into the client's own empty answer.
    assert await held_command(held, "XREAD", "BLOCK", 10, "STREAMS", key, "$") == []


async def test_an_eval_answers_each_false_as_none(held):
    assert await held_command(held, "EVAL", "return {1, false, 'x'}", 0) == [1, None, "x"]


async def test_the_first_command_opens_the_connection_through_the_client(held):
    assert held.connection is None
    assert await held_command(held, "EVAL", "return 7", 0) == 7
    assert held.through_client == 1
    assert held.connection is not None


async def test_a_lost_connection_is_made_again_through_the_client(held):
    await held.ping()  # the held connection is open
    own_id = await held.client_id()
    async with Redis.from_url(_url(held)) as other:
        assert await other.client_kill_filter(_id=own_id) == 1
    through_client = held.through_client
    assert await held_command(held, "EVAL", "return 'again'", 0) == "again"
    assert held.through_client == through_client + 1  # made again, by the client's retries
    assert await held.client_id() != own_id  # on a fresh connection
    through_client = held.through_client
    assert await held_command(held, "EVAL", "return 'held'", 0) == "held"
    assert held.through_client == through_client  # and held again


def _url(client: Redis) -> str:
    kwargs = client.connection_pool.connection_kwargs
    return f"redis://{kwargs['host']}:{kwargs['port']}/{kwargs.get('db', 0)}"
