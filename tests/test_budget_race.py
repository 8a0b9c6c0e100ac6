"""Two real processes race 50 runs each against one budget: together they never pass it.

Each run reserves its worst case inside its start write with the person's limits locked, and
settles at its end; the answers are cut at max_tokens, so what a run uses is nearly what it
reserved and two starts that both spent the same room would pass the limit in the sums. On a
SQLite file in the suite's first phase, on PostgreSQL in CI's PostgreSQL phase
(``multiprocess_support.shared_database``).
"""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from contextlib import closing
from pathlib import Path

from tests.conftest import ROOT
from tests.live_support import wait_for
from tests.migrated import SQLITE_PREFIX, migrate
from tests.multiprocess_support import shared_database
from tests.prefork import launch

RUNS_EACH = 50
LIMIT = 600


def _settled_tokens(database: str) -> tuple[int, int]:
    """Every run's settled tokens together, and how many runs are not settled, read straight
    from the shared database (no third Django start)."""
    query = "SELECT COALESCE(SUM(tokens), 0), COUNT(*) - COUNT(NULLIF(settled, FALSE)) "
    query += "FROM playground_usagerecord"
    if database.startswith(SQLITE_PREFIX):
        with closing(sqlite3.connect(database.removeprefix(SQLITE_PREFIX))) as connection:
            tokens, unsettled = connection.execute(query).fetchone()
    else:
        import psycopg

        with psycopg.connect(database) as connection:
            tokens, unsettled = connection.execute(query).fetchone()  # type: ignore[misc]
    return int(tokens), int(unsettled)


def test_two_processes_racing_never_pass_a_budget(live_server_proc, tmp_path: Path):
    with shared_database(tmp_path) as database:
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "playground.settings",
            "DATABASE_URL": database,
            "PLAYGROUND_SIMULATOR_URL": live_server_proc.simulator_url,
            "PLAYGROUND_UPSTREAM_MAX_RETRIES": "0",
        }
        migrate(env)
        race = [sys.executable, "-m", "tests.budget_race", "race", str(RUNS_EACH)]
        go = tmp_path / "go"
        # The first side makes the budget as it makes its conversations (no Django start of
        # its own for it); neither starts a run before both are ready.
        sides, outputs = [], []
        for limit in ([str(LIMIT)], []):
            read, write = os.pipe()
            outputs.append(open(read))  # noqa: SIM115 - closed below
            with open(write, "w") as out, open(os.dup(2), "w") as err:  # stderr: this process's
                sides.append(
                    launch([*race, str(go), *limit], cwd=ROOT, env=env, stdout=out, stderr=err)
                )
        try:
            for output in outputs:
                assert wait_for(output.readline, what="a side to be ready").strip() == "ready"
            go.touch()
            for side in sides:
                side.wait(timeout=120)  # a line of JSON each: the pipe holds it
            results = [json.loads(output.read()) for output in outputs]
        finally:
            for side in sides:
                if side.poll() is None:
                    side.kill()
                    side.wait()
            for output in outputs:
                output.close()
        assert all(side.returncode == 0 for side in sides)
        ran = sum(result["ran"] for result in results)
        refused = sum(result["refused"] for result in results)
        assert ran + refused == 2 * RUNS_EACH
        assert ran > 0 and refused > 0, results
        tokens, unsettled = _settled_tokens(database)
        assert unsettled == 0
        assert 0 < tokens <= LIMIT, (tokens, results)
