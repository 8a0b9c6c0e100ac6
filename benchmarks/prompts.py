"""A prompt of 100 versions and 5 labels: opened, any two versions diffed, a label served,
each timed on a real server, as a page and an application reach it.

Run: ``.venv/bin/python benchmarks/prompts.py [--versions 100] [--requests 100]``

It makes a fresh SQLite database, writes one prompt through ``prompts.services`` (each version
a realistic definition: a system prompt of about 60 lines edited a little each time, six
template turns, three tools, settings; five labels, each moved several times, so the history
holds about 50 moves), and serves the app as deployed (``DJANGO_DEBUG`` off) on a loopback
port. After 10 warm-up requests of each kind it makes ``--requests`` of each, one after another
on one kept-alive connection (``lean_http``: the client's own CPU stays small), and reports per
request the median and p90 wall time and the server process's CPU (read from /proc):

- open: ``GET /prompts/<name>/`` (the page, its payload: every version listed, the labels and
  their history, the newest version whole) and ``GET /api/prompts/<name>/`` (the same JSON);
- diff: ``GET …/diff/?a=&b=`` for pairs drawn at random (a seeded ``random``), the far ones
  included: both versions whole and the text diffs;
- serve: ``GET /api/prompts/<name>?label=production`` as it is, filled in
  (``&var.city=Lisbon``), and answered 304 for its ETag;
- the floor, in the same run: ``GET /api/mcp/servers/`` (a request that reads nothing: what any
  API request costs this server), and the same diffs computed in this process
  (``prompts.diffs.text_diffs``: the diff's own share).

The target (issue 46): each under 100 ms of server time on this machine. The load average is
printed before and after: on a shared machine the wall-clock figures grow with it.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import secrets
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.lean_http import LeanHttp  # noqa: E402
from benchmarks.relay_procs import (  # noqa: E402
    cpu_seconds,
    load_average,
    migrate,
    server_env,
    start_server,
    stop,
)

WARM_UP = 10
NAME = "support-desk"
LABELS = ("production", "staging", "canary", "eu", "experiment")


def definition(number: int, rng: random.Random) -> dict:
    """Version ``number``: a long system prompt with a few lines changed since the last."""
    lines = [
        f"Rule {line}: answer customers of {{{{company}}}} about topic {line % 7} "
        f"clearly, politely and in at most {3 + line % 4} sentences."
        for line in range(60)
    ]
    for _ in range(number):  # each version edits a few lines of the one before
        at = rng.randrange(len(lines))
        lines[at] = lines[at].replace("clearly", f"clearly (v{number})", 1)
    turns = []
    for turn in range(3):
        turns.append(
            {"role": "user", "content": f"Customer {turn} in {{{{city}}}} asks about order {turn}."}
        )
        turns.append(
            {
                "role": "assistant",
                "content": [{"type": "text", "text": f"Answer {turn}, version {number}."}],
            }
        )
    tools = [
        {
            "name": f"lookup_{kind}",
            "description": f"Find a {kind} by id",
            "input_schema": {
                "type": "object",
                "properties": {"id": {"type": "string"}, "detail": {"type": "boolean"}},
                "required": ["id"],
            },
        }
        for kind in ("order", "customer", "invoice")
    ]
    return {
        "system": "\n".join(lines),
        "messages": turns,
        "tools": tools,
        "settings": {"temperature": round(0.1 + (number % 9) / 10, 1), "max_tokens": 512 + number},
        "variables": {"company": "Acme", "city": "Paris"},
    }


def seed(database: Path, versions: int) -> None:
    os.environ["DATABASE_URL"] = f"sqlite:///{database}"
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    import django

    django.setup()
    from playground.prompts import services
    from playground.web.ownership import local_user

    rng = random.Random(46)
    owner = local_user()
    first = services.create_prompt(owner=owner, name=NAME, definition=definition(1, rng))
    prompt = first.prompt
    for number in range(2, versions + 1):
        saved = services.save_version(
            prompt=prompt, definition=definition(number, rng), author=owner, message=f"v{number}"
        ).version
        if number % 10 == 0:  # every tenth version moves a label or two
            for label in rng.sample(LABELS, 2):
                services.move_label(prompt=prompt, label=label, version=saved, actor=owner)
    for label in LABELS:  # every label ends somewhere
        version = services.resolve(prompt, rng.randint(1, versions))
        services.move_label(prompt=prompt, label=label, version=version, actor=owner)


async def timed(client: LeanHttp, paths: list[str], pid: int, headers: dict | None = None) -> dict:
    for path in paths[:WARM_UP]:
        await client.request("GET", path, headers=headers)
    walls, statuses = [], set()
    cpu = cpu_seconds(pid)
    for path in paths:
        start = time.perf_counter()
        status, _ = await client.request("GET", path, headers=headers)
        walls.append((time.perf_counter() - start) * 1000)
        statuses.add(status)
    server_ms = (cpu_seconds(pid) - cpu) * 1000 / len(paths)
    walls.sort()
    return {
        "median": statistics.median(walls),
        "p90": walls[int(len(walls) * 0.9) - 1],
        "server_cpu": server_ms,
        "statuses": sorted(statuses),
    }


async def measure(url: str, pid: int, requests: int, versions: int) -> list[tuple[str, dict]]:
    rng = random.Random(7)
    pairs = [(rng.randint(1, versions), rng.randint(1, versions)) for _ in range(requests)]
    pairs[0] = (1, versions)  # the farthest pair is always among them
    serve = f"/api/prompts/{NAME}?label=production"
    diffs = [f"/api/prompts/{NAME}/diff/?a={a}&b={b}" for a, b in pairs]
    etag = await _etag(url, serve)
    client = await LeanHttp.open(url)
    rows = []
    kinds = [
        ("floor: GET /api/mcp/servers/", ["/api/mcp/servers/"] * requests, None),
        ("open: the page /prompts/<name>/", [f"/prompts/{NAME}/"] * requests, None),
        ("open: GET /api/prompts/<name>/", [f"/api/prompts/{NAME}/"] * requests, None),
        ("diff: …/diff/?a=&b= (random pairs)", diffs, None),
        ("serve: ?label=production", [serve] * requests, None),
        ("serve: filled (&var.city=Lisbon)", [serve + "&var.city=Lisbon"] * requests, None),
        ("serve: 304 (If-None-Match)", [serve] * requests, {"If-None-Match": etag}),
    ]
    try:
        for name, paths, headers in kinds:
            rows.append((name, await timed(client, paths, pid, headers)))
    finally:
        await client.close()
    return rows


async def _etag(url: str, path: str) -> str:
    import httpx

    async with httpx.AsyncClient(base_url=url, timeout=120) as client:  # the first is slow
        return (await client.get(path)).headers["etag"]


def in_process_diffs(requests: int, versions: int) -> float:
    """The text diffs alone, in this process: ms per pair."""
    from playground.prompts import services
    from playground.prompts.diffs import text_diffs
    from playground.web.ownership import local_user

    prompt = services.get_prompt(owner=local_user(), name=NAME)
    rng = random.Random(7)
    pairs = [(rng.randint(1, versions), rng.randint(1, versions)) for _ in range(requests)]
    definitions = {v.number: v.definition for v in prompt.versions.all()}
    start = time.process_time()
    for a, b in pairs:
        text_diffs(definitions[a], definitions[b])
    return (time.process_time() - start) * 1000 / len(pairs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--versions", type=int, default=100)
    parser.add_argument("--requests", type=int, default=100)
    args = parser.parse_args()
    folder = Path(tempfile.mkdtemp(prefix="prompts-bench-"))
    database = folder / "bench.sqlite3"
    deployed = {  # as deployed: no per-query log, no debug checks (mcp_call.server_mode's)
        "DJANGO_DEBUG": "0",
        "DJANGO_SECRET_KEY": secrets.token_urlsafe(32),
        "DJANGO_SECURE_COOKIES": "0",
        "PLAYGROUND_LOG_LEVEL": "WARNING",
    }
    env = server_env(database_url=f"sqlite:///{database}", **deployed)
    migrate(env)
    started = time.perf_counter()
    seed(database, args.versions)
    took = time.perf_counter() - started
    print(f"seeded {args.versions} versions, {len(LABELS)} labels in {took:.1f} s")
    print(f"load average before: {load_average()}")
    server = start_server(name="prompts", log_dir=folder, env=env, server="daphne")
    try:
        rows = asyncio.run(measure(server.url, server.pid, args.requests, args.versions))
    finally:
        stop(server)
    print(f"load average after:  {load_average()}")
    print(f"{'request':<42} {'median ms':>10} {'p90 ms':>8} {'server CPU ms':>14}  statuses")
    for name, row in rows:
        figures = f"{row['median']:>10.1f} {row['p90']:>8.1f} {row['server_cpu']:>14.1f}"
        print(f"{name:<42} {figures}  {row['statuses']}")
    alone = in_process_diffs(args.requests, args.versions)
    print(f"{'the text diffs alone, in this process':<42} {'':>10} {'':>8} {alone:>14.1f}")


if __name__ == "__main__":
    main()
