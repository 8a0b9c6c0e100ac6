"""How many times this process has seen each request body: the memory behind ``times=N``.

Rule: in-process and bounded. A retrying client resends the same body, so its hash counts the
attempts; the oldest entries are forgotten past :data:`LIMIT`, which only matters to a body
not retried for thousands of requests. Each worker process counts on its own (documented).
"""

from __future__ import annotations

from collections import OrderedDict

LIMIT = 4096


class AttemptCounter:
    def __init__(self, *, limit: int = LIMIT) -> None:
        self._seen: OrderedDict[str, int] = OrderedDict()
        self._limit = limit

    def next(self, key: str) -> int:
        """Count one more attempt of ``key``; the first is 1."""
        count = self._seen.pop(key, 0) + 1
        self._seen[key] = count
        while len(self._seen) > self._limit:
            self._seen.popitem(last=False)
        return count


ATTEMPTS = AttemptCounter()
