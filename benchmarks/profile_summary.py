"""Summarise py-spy's collapsed stacks (``relay.py --profile FILE``): where the server's time goes.

Run: ``.venv/bin/python benchmarks/profile_summary.py FILE [--top 40]`` (``--by-task``: the busy
samples by the relay's task)

Rule: shares are of all samples of the server's busy threads (py-spy leaves idle threads out),
counted once per sample for every function on its stack (inclusive), and by buckets of our own
naming (the layers of the relay's path, matched on the file of a frame), so two profiles taken
before and after a change can be compared line by line.
"""

from __future__ import annotations

import argparse
import re
from collections import Counter
from pathlib import Path

#: The layers of the relay's path, by the file (or function) a frame is in; first match wins
#: when a sample's stack is charged to its innermost known layer.
BUCKETS: tuple[tuple[str, str], ...] = (
    ("gc (collections)", r"<gc>|gc_collect"),
    ("database (ORM, sqlite, psycopg)", r"django/db/|sqlite3|psycopg"),
    ("httpcore / h11 / anyio (upstream HTTP read)", r"httpcore/|h11/|anyio/"),
    ("httpx (response streams, decoders)", r"httpx/"),
    ("httpx-sse / our SSE splitter", r"httpx_sse/|upstream/sse"),
    ("parse_event + accumulate", r"protocol/events|protocol/accumulate|protocol/json_text"),
    ("relay (RunLog, Watcher)", r"runs/relay"),
    ("channels / consumer send", r"channels/|runs/consumers"),
    ("daphne / autobahn / twisted (WebSocket frames)", r"daphne/|autobahn/|twisted/"),
    ("uvicorn / websockets (WebSocket frames)", r"uvicorn/|websockets/"),
    ("asyncio loop", r"asyncio/"),
)


#: What a sample was doing, by a frame anywhere on its stack (first match wins): the relay's
#: tasks and Twisted's write pass, for ``--by-task``. Samples idle in a thread pool or in the
#: loop's ``epoll_wait`` are left out (py-spy counts a thread waiting for a core as busy).
TASKS: tuple[tuple[str, str], ...] = (
    ("Twisted's write pass (doWrite, the send)", "FileDescriptor.doWrite"),
    ("sockets' watchers (Channels, Daphne, autobahn framing)", "Watcher._pump"),
    # On the clock a watcher sends in the tick's callback or the reader's (``_send_now``).
    ("sockets' watchers (Channels, Daphne, autobahn framing)", "Watcher._send_now"),
    ("shared log reader (XREAD)", "SharedLog._read_loop"),  # before runs/shared_reader.py
    ("shared log reader (XREAD)", "runs/shared_reader.py"),
    ("runs' upstream read (httpcore, SSE, parse, log)", "LiveRun.drive"),
    ("shared log publisher (XADD pipeline)", "SharedLog._publish_loop"),
    ("database thread (checkpoints, connects)", "_WorkItem.run"),
)
_IDLE = ("_worker (concurrent/futures/thread.py:81)", "EpollSelector.select", "select (selectors")


def by_task(path: Path) -> None:
    counts: Counter[str] = Counter()
    busy = 0
    for line in path.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        frames = stack.split(";")
        if frames[-1].startswith(_IDLE):
            continue
        busy += int(count_text)
        name = next(
            (name for name, key in TASKS if any(key in frame for frame in frames)),
            "other (the loop, timers, Twisted's reads)",
        )
        counts[name] += int(count_text)
    print(f"{busy} busy samples, by task:")
    for name, count in counts.most_common():
        print(f"  {100 * count / busy:5.1f} %  {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("file", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument(
        "--by-task", action="store_true", help="busy samples by the relay's task instead"
    )
    args = parser.parse_args()
    if args.by_task:
        by_task(args.file)
        return
    inclusive: Counter[str] = Counter()
    innermost: Counter[str] = Counter()
    total = 0
    patterns = [(name, re.compile(pattern)) for name, pattern in BUCKETS]
    for line in args.file.read_text().splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = stack.split(";")
        for name in {frame.split(" (")[0] + " " + _file(frame) for frame in frames}:
            inclusive[name] += count
        for frame in reversed(frames):
            bucket = next((name for name, rx in patterns if rx.search(frame)), None)
            if bucket is not None:
                innermost[bucket] += count
                break
        else:
            innermost["other"] += count
    print(f"{total} samples\n\nby layer (each sample charged to its innermost known layer):")
    for name, count in innermost.most_common():
        print(f"  {100 * count / total:5.1f} %  {name}")
    print(f"\ntop {args.top} functions (inclusive):")
    for name, count in inclusive.most_common(args.top):
        print(f"  {100 * count / total:5.1f} %  {name}")


def _file(frame: str) -> str:
    match = re.search(r"\(([^)]*)\)", frame)
    if match is None:
        return ""
    path = match.group(1)
    return "/".join(path.split("/")[-2:])


if __name__ == "__main__":
    main()
