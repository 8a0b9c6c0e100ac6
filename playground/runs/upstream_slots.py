"""One limit per upstream profile on the requests sent to it at once, fair between people.

Rule: every request a run sends upstream (an interactive send, a compare's column, a grid's
cell, a judge) holds a :class:`Slot` of its profile for as long as its stream is open
(``runs.live_run``); a profile has ``limit`` slots (``PLAYGROUND_PROFILE_CONCURRENCY``). When a
slot frees it goes to the waiting person who holds the fewest slots of that profile, the
longest waiting first among equals: one person's 500-cell grid holds at most every slot but
one while another person waits, and that person's single run takes the next slot that frees.
A grid takes its cell's slot *before* the cell's run starts (``grids.runner``), so a cell that
waits is still queued, not a run waiting in silence.

A take that has to wait says so once (``on_wait``): an interactive run tells its page
"waiting for a free slot on <profile>" (``runs.live_run``).

This is the one process's keeper (no Redis): with ``REDIS_URL`` the slots are counted across
every process by ``runs.shared_slots`` under the same rule (and fall back on this keeper while
Redis is away); without it one process serves a database (docs/architecture.md), so the
process's count is the whole count.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import Counter, deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Protocol

__all__ = ["LocalSlots", "OnWait", "Slot", "SlotKeeper", "parse_limits"]


class Slot:
    """A place to send one request to ``profile``; :meth:`release` gives it back (once)."""

    def __init__(self, *, profile: str, person: str, give_back: Callable[[Slot], None]) -> None:
        self.profile = profile
        self.person = person
        self._give_back: Callable[[Slot], None] | None = give_back

    @property
    def held(self) -> bool:
        return self._give_back is not None

    def release(self) -> None:
        give_back, self._give_back = self._give_back, None
        if give_back is not None:
            give_back(self)


#: Told once when a take cannot be granted at once (before it waits).
OnWait = Callable[[], None]


class SlotKeeper(Protocol):
    """What a run and a grid ask for: a slot of a profile, for a person."""

    async def take(self, *, profile: str, person: str, on_wait: OnWait | None = None) -> Slot: ...

    def limit_of(self, profile: str) -> int: ...

    async def close(self) -> None: ...


def parse_limits(text: str, *, default: int = 16) -> tuple[int, dict[str, int]]:
    """``"16"`` or ``"16 anthropic=4 simulator=64"``: the default limit and each profile's own.
    Raises ValueError naming what it could not read."""
    overall = default
    each: dict[str, int] = {}
    for word in text.replace(",", " ").split():
        name, _, number = word.rpartition("=")
        try:
            value = int(number)
        except ValueError:
            raise ValueError(f"{word!r}: expected a number or profile=number") from None
        if value < 1:
            raise ValueError(f"{word!r}: a limit is at least 1")
        if name:
            each[name] = value
        else:
            overall = value
    return overall, each


@dataclass(slots=True)
class _Waiter:
    person: str
    order: int
    granted: asyncio.Future[Slot]


@dataclass(slots=True)
class _Profile:
    limit: int
    in_use: int = 0
    held: Counter[str] = field(default_factory=Counter)
    waiting: dict[str, deque[_Waiter]] = field(default_factory=dict)


class LocalSlots:
    """The slots of every profile in this process."""

    def __init__(self, *, default: int, limits: Mapping[str, int] | None = None) -> None:
        self._default = default
        self._limits = dict(limits or {})
        self._profiles: dict[str, _Profile] = {}
        self._order = itertools.count()

    def limit_of(self, profile: str) -> int:
        return self._limits.get(profile, self._default)

    def _state(self, profile: str) -> _Profile:
        state = self._profiles.get(profile)
        if state is None:
            state = self._profiles[profile] = _Profile(limit=self.limit_of(profile))
        return state

    def in_use(self, profile: str) -> int:
        """Slots of ``profile`` held now (the tests' window onto the count)."""
        return self._state(profile).in_use

    async def take(self, *, profile: str, person: str, on_wait: OnWait | None = None) -> Slot:
        """A slot, at once if one is free and nobody waits, else in the fair order."""
        state = self._state(profile)
        if state.in_use < state.limit and not state.waiting:
            return self._grant(state, profile, person)
        if on_wait is not None:
            on_wait()
        waiter = _Waiter(person, next(self._order), asyncio.get_running_loop().create_future())
        state.waiting.setdefault(person, deque()).append(waiter)
        try:
            return await asyncio.shield(waiter.granted)
        except asyncio.CancelledError:
            if waiter.granted.done() and not waiter.granted.cancelled():
                waiter.granted.result().release()  # granted as it was cancelled: give it on
            else:
                waiter.granted.cancel()
                self._forget(state, waiter)
            raise

    async def close(self) -> None:
        """Nothing to close: the slots live in this process's memory."""

    def _grant(self, state: _Profile, profile: str, person: str) -> Slot:
        state.in_use += 1
        state.held[person] += 1
        return Slot(profile=profile, person=person, give_back=self._give_back)

    def _give_back(self, slot: Slot) -> None:
        state = self._state(slot.profile)
        state.in_use -= 1
        state.held[slot.person] -= 1
        if state.held[slot.person] <= 0:
            del state.held[slot.person]
        self._hand_on(state, slot.profile)

    def _forget(self, state: _Profile, waiter: _Waiter) -> None:
        queue = state.waiting.get(waiter.person)
        if queue is not None and waiter in queue:
            queue.remove(waiter)
            if not queue:
                del state.waiting[waiter.person]

    def _hand_on(self, state: _Profile, profile: str) -> None:
        """Free slots to the waiting people holding fewest, the longest waiting first."""
        while state.in_use < state.limit and state.waiting:
            person = min(state.waiting, key=lambda p: (state.held[p], state.waiting[p][0].order))
            queue = state.waiting[person]
            waiter = queue.popleft()
            if not queue:
                del state.waiting[person]
            if waiter.granted.done():  # cancelled meanwhile
                continue
            waiter.granted.set_result(self._grant(state, profile, person))
