"""Delivery for the shared run log: an entry appended to a stream goes to the inbox of each
process that reads that stream, in the same atomic step.

Rule: a process never names the streams it follows in its blocking read; it reads its own inbox
only. So a process with nothing to read costs Redis one blocking read of one key however many
conversations its sockets watch, and a run's entries cost one inbox entry per process that
mirrors it (and nothing to the others). Before, every reader named every followed conversation
and mirrored run in each ``XREAD`` (about 76 keys every 10 ms in the team benchmark), which
redis-py packed and Redis scanned again each time.

Who reads what is a Redis set beside the stream (``readers:<run>``, ``watchers:<conversation>``),
which a reader joins *before* reading the stream itself: an entry appended before it joined is
in what it reads, one appended after is delivered, one in between is both (each delivered entry
carries its stream id, ``i``, so a reader keeps each once, by id). The script that appends
(:data:`DELIVER`) runs atomically, so no entry falls between the two.

The sets and inboxes are not history: a Redis restart loses them, an inbox is bounded. The
streams stay the record; ``runs.shared_reader`` joins its sets again and reads each followed
stream from its cursor on any doubt (its mark gone, Redis back, a gap in a run's events) and
every 30 s anyway, so a lost delivery costs a wait, never an entry. No Django here.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any

from redis.asyncio import Redis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from playground.protocol.json_text import dumps
from playground.runs.relay import RunLog

__all__ = [
    "DELIVER",
    "INBOX_MAXLEN",
    "Deliveries",
    "after",
    "apply_entry",
    "held_command",
    "conversation_key",
    "inbox_key",
    "mark_key",
    "new_lines",
    "readers_key",
    "run_key",
    "stream_entries",
    "stream_items",
    "watchers_key",
]

logger = logging.getLogger(__name__)

PREFIX = "playground:"
#: An inbox holds deliveries and requests; a reader this many entries behind loses the oldest
#: and reads them again from their streams (at 250 deliveries a second, 40 s behind).
INBOX_MAXLEN = 10_000
#: An inbox, a set of who reads a stream, a conversation's announcements, or a run's stream
#: before it ends: nobody has touched it for this long, it goes.
TTL = 86_400
#: A lost Redis connection is retried this often (the owner keeps every unsent event).
RETRY_SECONDS = 0.5

#: Appends entries to streams and delivers each, all in one call (one per publishing round trip,
#: however many runs it carries: a call's cost is mostly per call). ARGV: the inbox prefix, its
#: bound, its TTL, then the entries as one JSON array (``cjson``, Redis's own): per entry the
#: stream, the set of processes that read it, the delivered entry's tag ('r' run,
#: 'c' conversation) and the stream's name, a process not to deliver to ('': none), the stream's
#: own MAXLEN ('0': none), '1' when the stream must exist already (NOMKSTREAM: false when Redis
#: lost it), then its field and value words. Answers each entry's id, or false. One argument, not
#: a dozen words an entry: redis-py packs each word of a command in Python (about 3 µs a word
#: under load), which was half of the publisher's CPU (docs/benchmarks.md, Relay). No key is in
#: KEYS: one Redis, not a cluster.
DELIVER = """
local prefix, bound, ttl = ARGV[1], ARGV[2], ARGV[3]
local ids = {}
for k, entry in ipairs(cjson.decode(ARGV[4])) do
  local stream, readers, tag, name = entry[1], entry[2], entry[3], entry[4]
  local writer, maxlen, existing = entry[5], entry[6], entry[7]
  local fields = {}
  for i = 8, #entry do fields[#fields + 1] = entry[i] end
  local add = {stream}
  if existing == '1' then add[#add + 1] = 'NOMKSTREAM' end
  if maxlen ~= '0' then
    add[#add + 1] = 'MAXLEN'; add[#add + 1] = '~'; add[#add + 1] = maxlen
  end
  add[#add + 1] = '*'
  for _, value in ipairs(fields) do add[#add + 1] = value end
  local id = redis.call('XADD', unpack(add))
  ids[k] = id
  if id then
    for _, reader in ipairs(redis.call('SMEMBERS', readers)) do
      if reader ~= writer then
        local inbox = prefix .. reader
        redis.call('XADD', inbox, 'MAXLEN', '~', bound, '*', tag, name, 'i', id, unpack(fields))
        redis.call('EXPIRE', inbox, ttl)
      end
    end
  end
end
return ids
"""


def run_key(run_id: str) -> str:
    return f"{PREFIX}run:{run_id}"


def conversation_key(conversation_id: str) -> str:
    return f"{PREFIX}conversation:{conversation_id}"


def inbox_key(process: str) -> str:
    return f"{PREFIX}inbox:{process}"


def mark_key(process: str) -> str:
    """Set by a process's reader once it has joined what it follows: gone, Redis lost that."""
    return f"{PREFIX}joined:{process}"


def readers_key(run_id: str) -> str:
    """The processes that mirror a run."""
    return f"{PREFIX}readers:{run_id}"


def watchers_key(conversation_id: str) -> str:
    """The processes with a socket on a conversation (told of each run started in it)."""
    return f"{PREFIX}watchers:{conversation_id}"


class Deliveries:
    """The entries of one publishing round trip, appended and delivered by one :data:`DELIVER`."""

    __slots__ = ("_entries", "_args")

    def __init__(self) -> None:
        self._entries: list[list[str]] = []
        self._args: list[str | int] = [inbox_key(""), INBOX_MAXLEN, TTL]

    def __len__(self) -> int:
        return len(self._entries)

    def add(
        self,
        *,
        stream: str,
        readers: str,
        tag: str,
        name: str,
        fields: Mapping[str, str | int],
        existing: bool,
        maxlen: int = 0,
        writer: str = "",
    ) -> int:
        """Append ``fields`` to ``stream`` and deliver them (not to ``writer``: a process is not
        told of its own runs; it may mirror a run it ends for a dead owner, so run entries go to
        every reader). The entry's place in the call's answer."""
        entry = [stream, readers, tag, name, writer, str(maxlen), "1" if existing else "0"]
        for field, value in fields.items():
            entry += (field, str(value))
        self._entries.append(entry)
        return len(self) - 1

    def queue(self, pipe: Any) -> None:
        """Queue the call on ``pipe`` (nothing when empty). EVAL with the script's text, not
        EVALSHA: a restarted Redis has no script cached, and a NOSCRIPT in the middle of a
        pipeline would leave the rest of it done."""
        if not self._entries:
            return
        pipe.eval(DELIVER, 0, *self._args, dumps(self._entries))

    async def call(self, client: Redis) -> list[Any]:
        """Make the call alone, on ``client`` (not empty; its held connection, see
        :func:`held_command`): each entry's id, or None. EVAL, as :meth:`queue`'s, so a
        restarted Redis needs no script loaded first."""
        answer = await held_command(client, "EVAL", DELIVER, 0, *self._args, dumps(self._entries))
        return list(answer)


#: A held connection that fails with one of these is dropped, and the command goes through
#: the client, which retries it on a fresh one (``playground.redis_retry``).
_LOST = (RedisConnectionError, RedisTimeoutError, OSError)


async def held_command(client: Redis, *args: str | int) -> Any:
    """``client.execute_command(*args)``, sent and read straight on the connection a
    ``single_connection_client`` holds (once its first command has opened it), its answer
    parsed by the client's own callback. Why: the client's path around each command (its
    lock, its retry wrapper, the connection's set-up event, the metrics hook) cost 45 of the
    245 µs of a round trip measured here, and the publisher's round and the reader's blocking
    read are one each per tick. On a lost connection the command is made again through the
    client, with its retries, as before (an entry appended twice is kept once by its readers:
    ``new_lines``, ``after``)."""
    connection = client.connection
    if connection is None:
        return await client.execute_command(*args)
    try:
        await connection.send_command(*args)
        answer = await connection.read_response()
    except _LOST:
        await connection.disconnect()
        return await client.execute_command(*args)
    parse = client.response_callbacks.get(str(args[0]))
    return parse(answer) if parse is not None else answer


def after(entry_id: str, cursor: str) -> bool:
    """Whether stream id ``entry_id`` comes after ``cursor`` (ids are ``<ms>-<n>``)."""
    ms, _, n = entry_id.partition("-")
    cursor_ms, _, cursor_n = cursor.partition("-")
    return (int(ms), int(n)) > (int(cursor_ms), int(cursor_n))


def new_lines(fields: dict[str, str], *, last_seq: int) -> list[str] | None:
    """The event lines of one stream entry after ``last_seq`` (none for an entry that holds no
    events, or only ones already had), or None when the entry begins past ``last_seq + 1``:
    the events between are missing and nothing after them can be placed."""
    if "l" not in fields:
        return []
    lines = fields["l"].split("\n")
    skip = last_seq + 1 - int(fields["s"])
    return None if skip < 0 else lines[skip:]


def apply_entry(log: RunLog, fields: dict[str, str]) -> bool:
    """One stream entry into a mirror, in order; a batch already there is skipped. False when
    events before the entry's are missing: nothing is applied."""
    if "l" in fields:
        lines = new_lines(fields, last_seq=log.last_seq)
        if lines is None:
            return False
        if lines:
            if log.notice_frame is not None:
                # Only a "retrying" or "waiting" notice comes before events ("saving" later):
                # the owner's stream has opened, so the notice is over here too, as it is there
                # (``RunLog.clear_notice``), and a watcher who comes later is not told it.
                log.clear_notice()
            log.extend(lines)
    elif "notice" in fields:
        log.notify(fields["notice"])
    elif "finished" in fields:
        log.finish(fields["finished"])
    return True


def missing(log: RunLog, fields: dict[str, str]) -> None:
    """A run's own stream lacks events (its entries cannot all be placed): said, then skipped."""
    logger.error(
        "shared log: run %s is missing events %d-%d",
        log.run_id,
        log.last_seq + 1,
        int(fields["s"]) - 1,
    )


def stream_entries(answer: Any) -> list[tuple[str, dict[str, str]]]:
    """XRANGE's answer as read here (``decode_responses=True``: every id, field and value is
    text; redis-py's types allow bytes and None, for clients that do not decode)."""
    return list(answer or ())


def stream_items(answer: Any) -> Iterable[tuple[str, list[tuple[str, dict[str, str]]]]]:
    """XREAD's answer as (key, entries): a list under RESP2, a mapping under RESP3."""
    if not answer:
        return ()
    if isinstance(answer, dict):
        return [
            (key, value[0] if value and isinstance(value[0], list) else value)
            for key, value in answer.items()
        ]
    return [(key, entries) for key, entries in answer]
