"""``manage.py run_grid GRID``: run an evaluation grid from CI, print its summary, write JUnit
XML, and exit 1 when it fails its gate.

Run: ``manage.py run_grid GRID [--row N] [--column N] [--failed] [--min-pass-rate 0.9]
[--baseline SUMMARY.json] [--summary SUMMARY.json] [--junit results.xml] [--timeout 1800]``

The cells are queued and run as the page's Run would (``grids.launch``: this process's run
manager, or the server process already running the grid), each scored on the server; the
command waits until no cell is queued, running or awaiting a judge, then reads the grid as the
page does and judges it (``grids.gate``): below ``--min-pass-rate`` (0 to 1), or a cell that
passed in ``--baseline`` (an earlier run's ``--summary``) failing now, it exits 1; a grid that
does not end within ``--timeout`` seconds exits 2.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.grids.gate import gate, junit_xml, summary_lines, summary_of
from playground.grids.grid_json import serialize_grid
from playground.grids.launch import start_grid
from playground.grids.queue import queue_cells
from playground.grids.services import cells_to_run
from playground.models import EvalGrid
from playground.protocol.errors import PlaygroundError
from playground.runs.manager import get_manager
from playground.runs.run_writes import run_write
from playground.upstream.client import close_clients

#: How often the command looks whether the grid has ended.
LOOK_SECONDS = 0.5


class Command(BaseCommand):
    help = "Run an evaluation grid, print its summary and exit non-zero below the gate."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("grid", help="the grid's id")
        parser.add_argument("--row", type=int, default=None, help="only this row (from 0)")
        parser.add_argument("--column", type=int, default=None, help="only this column")
        parser.add_argument("--failed", action="store_true", help="only the cells that failed")
        parser.add_argument("--min-pass-rate", type=float, default=None, help="0 to 1")
        parser.add_argument("--baseline", default=None, help="an earlier run's --summary file")
        parser.add_argument("--summary", default=None, help="write this run's summary (JSON)")
        parser.add_argument("--junit", default=None, help="write JUnit XML here")
        parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait")

    def handle(self, *args: Any, **options: Any) -> None:
        rate = options["min_pass_rate"]
        if rate is not None and not 0 <= rate <= 1:
            raise CommandError("--min-pass-rate is a share from 0 to 1 (0.9 for 90 %)")
        baseline = None
        if options["baseline"]:
            try:
                baseline = json.loads(Path(options["baseline"]).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CommandError(f"--baseline {options['baseline']}: {exc}") from exc
        try:
            grid = EvalGrid.objects.get(pk=options["grid"])
        except (EvalGrid.DoesNotExist, ValidationError) as exc:
            raise CommandError(f"no grid {options['grid']!r}") from exc
        view = asyncio.run(self._run(grid, options))
        summary = summary_of(view)
        verdict = gate(summary, min_pass_rate=rate, baseline=baseline)
        for line in summary_lines(summary, verdict):
            self.stdout.write(line)
        if options["summary"]:
            Path(options["summary"]).write_text(json.dumps(summary, indent=2), encoding="utf-8")
        if options["junit"]:
            Path(options["junit"]).write_text(junit_xml(summary, view), encoding="utf-8")
        if not verdict.passed:
            raise SystemExit(1)

    async def _run(self, grid: EvalGrid, options: dict[str, Any]) -> dict[str, Any]:
        manager = get_manager()
        try:
            # On the runs' own database thread, in their order (``runs.run_writes``): SQLite
            # then never meets a read of ours in the middle of a run's write.
            cells = await run_write(cells_to_run)(
                grid, row=options["row"], column=options["column"], failed=options["failed"]
            )
            queued = await run_write(queue_cells)(cells)
            self.stdout.write(f"{queued} cell(s) queued")
            try:
                start_grid(manager, grid_id=grid.id)
            except PlaygroundError as exc:
                raise CommandError(exc.message) from exc
            view = await self._ended(grid, timeout=options["timeout"])
            job = manager.job(f"grid {grid.id}")
            if job is not None:  # its last writes (the hold given back) before the end
                await asyncio.wait([job], timeout=LOOK_SECONDS * 20)
            return view
        finally:
            await manager.shutdown()
            await close_clients()

    async def _ended(self, grid: EvalGrid, *, timeout: float) -> dict[str, Any]:
        """The grid once nothing of it is queued, running or judging (whichever process runs
        it: this one's job, or a server's)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            view: dict[str, Any] = await run_write(serialize_grid)(grid, answer_chars=None)
            judging = any(
                score["passed"] is None
                for row in view["rows"]
                for cell in row["cells"]
                for score in cell["scores"]
            )
            if not view["running"] and not judging:
                return view
            if loop.time() > deadline:
                self.stderr.write(f"the grid did not end within {timeout:g} s")
                raise SystemExit(2)
            await asyncio.sleep(LOOK_SECONDS)
