"""The upstream slots of every server process together, on Redis (when ``REDIS_URL`` is set).

Rule: the same limit and the same fairness as ``runs.upstream_slots`` (a profile's ``limit``
requests at once; a freed slot goes to the waiting person holding fewest, the longest waiting
first among equals), counted across every process: each take and each release is one Lua
script run atomically by Redis (:data:`SCRIPT`), which also hands freed slots on to the waiters
it chooses, wherever they wait, and tells each one's process on its channel
(``playground:slots:granted:<process>``, a pub/sub message).

Keys (``playground:slots:`` prefix): per profile ``<profile>:held`` (hash: holder id →
``person LF process``), ``<profile>:waiting`` (sorted set: waiter id → arrival),
``<profile>:waiters`` (hash, as ``held``); ``alive`` (sorted set: process → when its lease
ends, by Redis's clock) and ``order`` (the arrival counter). Every script call renews its
caller's lease, and each process renews it every heartbeat (``runs.lease``'s: a sixth of
``PLAYGROUND_RUN_LEASE_SECONDS``) for two thirds of that setting. A process whose lease ran out
is dead to every script: its slots and its places in the queues go, so a process killed
(``kill -9``, a lost host) holds its slots at most a lease. Each process also asks again, every
heartbeat, for the slots it still waits for: a grant whose message was lost, or a slot a dead
process left, is taken then.

Redis away (stopped, restarted, cut off): a take that cannot reach it, and every take waiting
on it, falls back on this process's own keeper (``LocalSlots``, the same limit counted in this
process only), so runs go on; the releases Redis missed are sent once it answers again, which
each heartbeat looks for, and from then on takes are shared again. During an outage the limit
holds per process (at most processes × limit at once), and for a while after it the slots taken
locally are not in Redis's count. No Django here.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import RedisError

from playground.redis_retry import retry_options
from playground.runs.owned_tasks import cancel_and_wait, lost_cancel_raised
from playground.runs.upstream_slots import LocalSlots, OnWait, Slot

__all__ = ["SCRIPT", "RedisSlots"]

logger = logging.getLogger(__name__)

PREFIX = "playground:slots:"
#: Keys of a profile no process has used for this long go (a profile removed from the settings).
KEY_TTL = 86_400

_AWAY = (RedisError, OSError)

#: KEYS: held, waiting, waiters, alive, order. ARGV: op (take | leave | renew), id, person,
#: process, limit, lease in ms, channel prefix, key ttl. Answers 1 when ``id`` holds a slot.
SCRIPT = """
local held, waiting, waiters, alive, order = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5]
local op, id, person, process = ARGV[1], ARGV[2], ARGV[3], ARGV[4]
local limit, lease, channel, ttl = tonumber(ARGV[5]), tonumber(ARGV[6]), ARGV[7], ARGV[8]
local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
redis.call('ZADD', alive, now + lease, process)
redis.call('EXPIRE', alive, ttl)
if op == 'renew' then return 0 end
for _, key in ipairs({held, waiting, waiters, order}) do redis.call('EXPIRE', key, ttl) end

local dead = {}
local function is_dead(where)
  if dead[where] == nil then
    local until_ms = redis.call('ZSCORE', alive, where)
    dead[where] = (not until_ms) or tonumber(until_ms) < now
  end
  return dead[where]
end
local function owner(info)
  local cut = string.find(info, '\\n', 1, true)
  return string.sub(info, 1, cut - 1), string.sub(info, cut + 1)
end

-- What is held, without the dead's.
local count, per = 0, {}
local entries = redis.call('HGETALL', held)
for i = 1, #entries, 2 do
  local who, where = owner(entries[i + 1])
  if is_dead(where) then
    redis.call('HDEL', held, entries[i])
  elseif not (op == 'leave' and entries[i] == id) then
    count = count + 1
    per[who] = (per[who] or 0) + 1
  end
end
if op == 'leave' then redis.call('HDEL', held, id) end

-- Who waits, without the dead and without the one leaving.
local queue, registered = {}, false
local listed = redis.call('ZRANGE', waiting, 0, -1, 'WITHSCORES')
for i = 1, #listed, 2 do
  local wid, arrival = listed[i], tonumber(listed[i + 1])
  local info = redis.call('HGET', waiters, wid)
  local gone = not info or (op == 'leave' and wid == id)
  if not gone then
    local who, where = owner(info)
    if is_dead(where) then gone = true else
      table.insert(queue, {wid, arrival, who, where, info})
      if wid == id then registered = true end
    end
  end
  if gone then
    redis.call('ZREM', waiting, wid)
    redis.call('HDEL', waiters, wid)
  end
end

if op == 'take' and redis.call('HEXISTS', held, id) == 0 and not registered then
  local arrival = redis.call('INCR', order)
  local info = person .. '\\n' .. process
  redis.call('ZADD', waiting, arrival, id)
  redis.call('HSET', waiters, id, info)
  table.insert(queue, {id, arrival, person, process, info})
end

-- Free slots to the waiting people holding fewest, the longest waiting first.
while count < limit and #queue > 0 do
  local best = 1
  for i = 2, #queue do
    local a, b = queue[i], queue[best]
    local ha, hb = per[a[3]] or 0, per[b[3]] or 0
    if ha < hb or (ha == hb and a[2] < b[2]) then best = i end
  end
  local w = table.remove(queue, best)
  redis.call('ZREM', waiting, w[1])
  redis.call('HDEL', waiters, w[1])
  redis.call('HSET', held, w[1], w[5])
  count = count + 1
  per[w[3]] = (per[w[3]] or 0) + 1
  if w[1] ~= id then redis.call('PUBLISH', channel .. w[4], w[1]) end
end
return redis.call('HEXISTS', held, id)
"""


class _Away(Exception):
    """Redis stopped answering while a take waited on it: the take counts locally instead."""


@dataclass(slots=True)
class _Waiting:
    profile: str
    person: str
    granted: asyncio.Future[None]


class RedisSlots:
    """This process's side of the shared slots (see the module rule)."""

    def __init__(
        self,
        *,
        url: str,
        process: str,
        default: int,
        limits: Mapping[str, int] | None = None,
        lease_seconds: float,
        check_seconds: float,
    ) -> None:
        self.process = process
        self._default = default
        self._limits = dict(limits or {})
        self._lease_ms = max(1, round(lease_seconds * 1000))
        self._check_seconds = check_seconds
        #: The keeper while Redis is away: the same limits, this process's count only.
        self.local = LocalSlots(default=default, limits=self._limits)
        self._redis = Redis.from_url(url, decode_responses=True, **retry_options())
        self._script = self._redis.register_script(SCRIPT)
        self._ids = itertools.count(1)
        self._waiting: dict[str, _Waiting] = {}
        #: Slot ids this process holds in Redis (a grant's message for one is old news).
        self._held: set[str] = set()
        #: Ids Redis must forget (a release or a leave it missed while away), by profile.
        self._unsent: dict[str, str] = {}
        self._releases: set[asyncio.Task[None]] = set()
        self._tasks: list[asyncio.Task[None]] = []
        #: Set by :meth:`close`: the loops end at their next turn even if a cancel was lost.
        self._closing = False
        #: Whether Redis answers: while False every take counts locally.
        self.available = True

    def limit_of(self, profile: str) -> int:
        return self._limits.get(profile, self._default)

    # -- taking and giving back -----------------------------------------------------------------

    async def take(self, *, profile: str, person: str, on_wait: OnWait | None = None) -> Slot:
        """A slot of ``profile`` counted across every process (locally while Redis is away)."""
        self._start()
        if not self.available:
            return await self.local.take(profile=profile, person=person, on_wait=on_wait)
        slot_id = f"{self.process}#{next(self._ids)}"
        granted: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        # Registered before the script runs: its grant's message may come before its answer.
        self._waiting[slot_id] = _Waiting(profile, person, granted)
        try:
            # A cancel its answer dropped is taken as the cancel it was, or this take would wait
            # for a grant in a task being stopped.
            with lost_cancel_raised():
                held = await self._call("take", profile=profile, slot_id=slot_id, person=person)
        except _AWAY as exc:
            self._waiting.pop(slot_id, None)
            self._forget_later(slot_id, profile)
            self._went_away(exc)
            return await self.local.take(profile=profile, person=person, on_wait=on_wait)
        except BaseException:
            self._waiting.pop(slot_id, None)
            self._forget_later(slot_id, profile)
            raise
        if held:
            return self._granted(slot_id, profile, person)
        if on_wait is not None:
            on_wait()
        try:
            await asyncio.shield(granted)
        except _Away:
            return await self.local.take(profile=profile, person=person)
        except asyncio.CancelledError:
            # Granted or not, it leaves: a slot granted as it was cancelled goes on.
            self._waiting.pop(slot_id, None)
            self._release(slot_id, profile)
            raise
        return self._granted(slot_id, profile, person)

    def _granted(self, slot_id: str, profile: str, person: str) -> Slot:
        self._waiting.pop(slot_id, None)
        self._held.add(slot_id)
        return Slot(
            profile=profile,
            person=person,
            give_back=lambda _: self._release(slot_id, profile),
        )

    def _release(self, slot_id: str, profile: str) -> None:
        """Give ``slot_id`` back (or leave its queue): a script call in a task of its own, as
        ``Slot.release`` is synchronous; sent again later if Redis is away."""
        self._held.discard(slot_id)
        task = asyncio.get_running_loop().create_task(
            self._leave(slot_id, profile), name=f"slot release {slot_id}"
        )
        self._releases.add(task)
        task.add_done_callback(self._releases.discard)

    async def _leave(self, slot_id: str, profile: str) -> None:
        try:
            await self._call("leave", profile=profile, slot_id=slot_id)
        except _AWAY as exc:
            self._forget_later(slot_id, profile)
            self._went_away(exc)

    def _forget_later(self, slot_id: str, profile: str) -> None:
        self._unsent[slot_id] = profile

    async def _call(self, op: str, *, profile: str, slot_id: str = "", person: str = "") -> bool:
        keys = [
            f"{PREFIX}{profile}:held",
            f"{PREFIX}{profile}:waiting",
            f"{PREFIX}{profile}:waiters",
            f"{PREFIX}alive",
            f"{PREFIX}order",
        ]
        args: list[str | int] = [
            op,
            slot_id,
            person,
            self.process,
            self.limit_of(profile),
            self._lease_ms,
            f"{PREFIX}granted:",
            KEY_TTL,
        ]
        answer: Any = await self._script(keys=keys, args=args)
        return bool(answer)

    # -- Redis away and back --------------------------------------------------------------------

    def _went_away(self, exc: BaseException) -> None:
        """Count locally from here, and the takes waiting on Redis too."""
        if self.available:
            logger.warning(
                "upstream slots: Redis unreachable (%s); each process counts its own until it "
                "is back",
                exc,
            )
        self.available = False
        for slot_id, waiting in list(self._waiting.items()):
            self._waiting.pop(slot_id)
            self._forget_later(slot_id, waiting.profile)
            if not waiting.granted.done():
                waiting.granted.set_exception(_Away())

    # -- the process's tasks --------------------------------------------------------------------

    def _start(self) -> None:
        if self._tasks or self._closing:
            return
        self._tasks = [
            asyncio.create_task(self._keep(), name="upstream slots keeper"),
            asyncio.create_task(self._listen(), name="upstream slots grants"),
        ]

    async def _keep(self) -> None:
        """Every heartbeat: renew this process's lease, send what Redis missed, ask again for
        the slots still waited for; and notice Redis back after an outage."""
        while not self._closing:
            await asyncio.sleep(self._check_seconds)
            try:
                await self._call("renew", profile="")
                for slot_id, profile in list(self._unsent.items()):
                    await self._call("leave", profile=profile, slot_id=slot_id)
                    self._unsent.pop(slot_id, None)
                for slot_id, waiting in list(self._waiting.items()):
                    granted = await self._call(
                        "take", profile=waiting.profile, slot_id=slot_id, person=waiting.person
                    )
                    if slot_id not in self._waiting and slot_id not in self._held:
                        # It left (cancelled, or held and given back) while this ask was on its
                        # way: an ask that reached Redis after its leave put it back in the
                        # queue, and a slot granted to it would be held, and renewed, for good.
                        await self._call("leave", profile=waiting.profile, slot_id=slot_id)
                    elif granted and not waiting.granted.done():
                        waiting.granted.set_result(None)
            except _AWAY as exc:
                self._went_away(exc)
                continue
            if not self.available:
                self.available = True
                logger.warning("upstream slots: Redis is back; the limits are shared again")

    async def _listen(self) -> None:
        """Grants made by other processes' releases (a pub/sub message each).

        Read a heartbeat at a time, not with ``listen()``: a cancel lost inside redis-py's read
        (taken for its timeout, then retried by reconnecting) would leave ``listen()`` reading
        for good and :meth:`close` waiting on it; a bounded read comes back to the flag."""
        channel = f"{PREFIX}granted:{self.process}"
        while not self._closing:
            pubsub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(channel)
                while not self._closing:
                    message = await pubsub.get_message(timeout=self._check_seconds)
                    if message is None:
                        continue
                    waiting = self._waiting.get(str(message.get("data")))
                    if waiting is not None and not waiting.granted.done():
                        waiting.granted.set_result(None)
            except _AWAY:
                # The heartbeat asks again for what waits; listen again once Redis answers.
                await asyncio.sleep(self._check_seconds)
            finally:
                with contextlib.suppress(*_AWAY):
                    await pubsub.aclose()

    async def close(self) -> None:
        """Stop the tasks and give back, as far as Redis answers, what is still held here."""
        # A cancel can be lost inside a Redis call (redis-py turns what reaches it while its
        # own timeout fires into its TimeoutError, which the loops take for Redis away and
        # retry): the flag ends them anyway, so a stop never waits on them forever.
        self._closing = True
        for task in self._tasks:
            await cancel_and_wait(task)
        self._tasks = []
        if self._releases:
            await asyncio.wait(set(self._releases), timeout=2)
        with contextlib.suppress(*_AWAY):
            for slot_id, profile in list(self._unsent.items()):
                await self._call("leave", profile=profile, slot_id=slot_id)
        await self._redis.aclose()
