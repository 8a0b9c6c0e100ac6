"""How every Redis connection of the app retries: a restarted Redis costs no command.

redis-py keeps connections in a pool; after Redis restarts each pooled connection fails once
("Connection closed by server") before it is replaced, and each of those failures reached a
caller: a run followed on its own process only, a resume refused, a socket closed with 1011.
With these options a command that meets a closed or refused connection is retried on a fresh
one, a few times with a short backoff, before the error is raised. No Django here: the shared
log (``runs.shared_log``) and the channel layer (``web.channel_layer``) both use it.
"""

from __future__ import annotations

import functools
from typing import Any

from redis.asyncio.retry import Retry
from redis.backoff import ExponentialBackoff
from redis.driver_info import DriverInfo
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

__all__ = ["driver_info", "retry_options"]

#: Tries after the first (0.05, 0.1, 0.2 s apart): enough for a stale connection or a restart
#: under way; an outage longer than that is reported to the caller, which waits it out.
RETRIES = 3


def retry_options() -> dict[str, Any]:
    """Keyword options for a redis-py asyncio client or pool (a new ``Retry`` each call), and
    the one :func:`driver_info` of the process."""
    return {
        "retry": Retry(ExponentialBackoff(cap=0.5, base=0.05), RETRIES),
        "retry_on_error": [RedisConnectionError, RedisTimeoutError, OSError],
        "driver_info": driver_info(),
    }


@functools.cache
def driver_info() -> DriverInfo:
    """What each new connection tells Redis of its library (``CLIENT SETINFO``), made once.
    Without it redis-py makes one per connection, reading its own version from the installed
    package's metadata (``importlib.metadata``: a file read and an e-mail header parse, several
    ms); a pool's connections are made while the runs are, when many runs start or end at once
    (the upstream slots' takes and leaves): 3.4 to 5.5 % of the app's CPU an event in the team
    benchmark (docs/benchmarks.md, Relay). One object for every connection: redis-py only
    reads it."""
    return DriverInfo()
