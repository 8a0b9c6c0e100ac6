"""How every Redis connection of the app retries: a restarted Redis costs no command.

redis-py keeps connections in a pool; after Redis restarts each pooled connection fails once
("Connection closed by server") before it is replaced, and each of those failures reached a
caller: a run followed on its own process only, a resume refused, a socket closed with 1011.
With these options a command that meets a closed or refused connection is retried on a fresh
one, a few times with a short backoff, before the error is raised. No Django here: the shared
log (``runs.shared_log``) and the channel layer (``web.channel_layer``) both use it.
"""

from __future__ import annotations

from typing import Any

from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["retry_options"]

#: Tries after the first (0.05, 0.1, 0.2 s apart): enough for a stale connection or a restart
#: under way; an outage longer than that is reported to the caller, which waits it out.
RETRIES = 3


def retry_options() -> dict[str, Any]:
    """Keyword options for a redis-py asyncio client or pool (a new ``Retry`` each call)."""
    return {
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), RETRIES),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, OSError],
    }
