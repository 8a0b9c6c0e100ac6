"""The events of a run that its shared log holds beyond its last checkpoint, for a takeover.

A run's owner relays every event through its Redis stream at once but checkpoints to the
database only every ``PLAYGROUND_CHECKPOINT_SECONDS``: when the owner is cut off or dies, the
stream holds events the database lacks, which pages may already show. The process taking the
run over (``runs.recovery``) reads them here and keeps them, so a takeover keeps every event
anyone was shown. Synchronous redis-py (recovery runs in a database thread), with short
timeouts: Redis away costs a takeover only this tail, never the takeover itself.
"""

from __future__ import annotations

import logging
from uuid import UUID

from redis import Redis
from redis.exceptions import RedisError

from playground.runs.shared_delivery import new_lines, run_key, stream_entries

__all__ = ["shared_lines_after"]

logger = logging.getLogger(__name__)

#: Seconds to connect to Redis and for each answer: a takeover does not wait for an outage.
TIMEOUT_SECONDS = 2.0


def shared_lines_after(url: str, run_id: UUID, last_seq: int) -> list[str]:
    """The event lines after ``last_seq`` that the run's stream holds, in order, without a gap
    (the lines past a gap, which a reader could not place, are left out); none if Redis is
    away or the stream is gone."""
    client = Redis.from_url(
        url,
        decode_responses=True,
        socket_timeout=TIMEOUT_SECONDS,
        socket_connect_timeout=TIMEOUT_SECONDS,
    )
    try:
        entries = stream_entries(client.xrange(run_key(str(run_id))))
    except (RedisError, OSError) as exc:
        logger.warning("run %s: its shared log could not be read for a takeover (%s)", run_id, exc)
        return []
    finally:
        client.close()
    lines: list[str] = []
    for _, fields in entries:
        batch = new_lines(fields, last_seq=last_seq + len(lines))
        if batch is None:
            logger.error(
                "run %s: its shared log misses events from %d", run_id, last_seq + len(lines) + 1
            )
            break
        lines.extend(batch)
    return lines
