"""``manage.py run_grid GRID``: run an evaluation grid from CI, print its summary, write JUnit
XML, and exit 1 when it fails its gate.

Run: ``manage.py run_grid GRID [--row N] [--column N] [--failed] [--min-pass-rate 0.9]
[--baseline EXPERIMENT] [--summary SUMMARY.json] [--junit results.xml] [--timeout 1800]``

The cells are queued and run as the page's Run would, as an experiment of the grid
(``grids.experiments``; ``grids.launch``: this process's run manager, or the server process
already running the grid), each scored on the server; the command waits until no cell is
queued, running or awaiting a judge, freezes the experiment, and judges it (``grids.gate``):
below ``--min-pass-rate`` (0 to 1), or a cell that passed in ``--baseline`` failing now, it
exits 1; a grid that does not end within ``--timeout`` seconds exits 2. ``--baseline`` names a
stored experiment of the grid (its number, ``#3``, ``latest`` for the newest before this run,
or its id), or an earlier run's ``--summary`` file.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser

from playground.grids.experiments import experiment_view, queue_run, seal_experiments
from playground.grids.gate import gate, junit_xml, summary_lines, summary_of
from playground.grids.grid_json import serialize_grid
from playground.grids.launch import start_grid
from playground.grids.options import REPEATS_MAX
from playground.grids.services import cells_to_run
from playground.models import EvalExperiment, EvalGrid
from playground.protocol.errors import PlaygroundError
from playground.runs.manager import get_manager
from playground.runs.run_writes import run_write
from playground.upstream.client import close_clients

#: How often the command looks whether the grid has ended.
LOOK_SECONDS = 0.5


class Command(BaseCommand):
    help = (
        "Run an evaluation grid, print its summary and exit non-zero below the gate. A cell run"
        " more than once (--repeats, or the grid's repeats) passes only if every repeat passed;"
        " a tool loop that needs a result by hand has no verdict and is counted apart."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("grid", help="the grid's id")
        parser.add_argument("--row", type=int, default=None, help="only this row (from 0)")
        parser.add_argument("--column", type=int, default=None, help="only this column")
        parser.add_argument("--failed", action="store_true", help="only the cells that failed")
        parser.add_argument("--min-pass-rate", type=float, default=None, help="0 to 1")
        parser.add_argument(
            "--repeats",
            type=int,
            default=None,
            help="run each cell this many times, 1 to 10 (default: the grid's repeats); a cell"
            " passes only if every repeat passed",
        )
        parser.add_argument(
            "--baseline",
            default=None,
            help="a finished experiment of the grid (number, #3, latest, id) or a --summary file",
        )
        parser.add_argument("--summary", default=None, help="write this run's summary (JSON)")
        parser.add_argument("--junit", default=None, help="write JUnit XML here")
        parser.add_argument("--timeout", type=float, default=1800.0, help="seconds to wait")

    def handle(self, *args: Any, **options: Any) -> None:
        rate = options["min_pass_rate"]
        if rate is not None and not 0 <= rate <= 1:
            raise CommandError("--min-pass-rate is a share from 0 to 1 (0.9 for 90 %)")
        repeats = options["repeats"]
        if repeats is not None and not 1 <= repeats <= REPEATS_MAX:
            raise CommandError(f"--repeats is 1 to {REPEATS_MAX}")
        try:
            grid = EvalGrid.objects.get(pk=options["grid"])
        except (EvalGrid.DoesNotExist, ValidationError) as exc:
            raise CommandError(f"no grid {options['grid']!r}") from exc
        baseline = self._baseline(grid, options["baseline"])
        experiment = asyncio.run(self._run(grid, options))
        view = experiment_view(experiment)
        summary = summary_of(view)
        verdict = gate(summary, min_pass_rate=rate, baseline=baseline)
        self.stdout.write(f"experiment #{experiment.number} ({experiment.pk})")
        for line in summary_lines(summary, verdict):
            self.stdout.write(line)
        if options["summary"]:
            Path(options["summary"]).write_text(json.dumps(summary, indent=2), encoding="utf-8")
        if options["junit"]:
            Path(options["junit"]).write_text(junit_xml(summary, view), encoding="utf-8")
        if not verdict.passed:
            raise SystemExit(1)

    def _baseline(self, grid: EvalGrid, named: str | None) -> dict[str, Any] | None:
        """The baseline's summary: a stored experiment of the grid, or a ``--summary`` file."""
        if not named:
            return None
        found = grid.experiments.filter(finished_at__isnull=False)
        if named == "latest":
            experiment = found.order_by("-number").first()
        elif named.lstrip("#").isdigit():
            experiment = found.filter(number=int(named.lstrip("#"))).first()
        else:
            try:
                experiment = found.filter(pk=named).first()
            except ValidationError:
                experiment = None
        if experiment is not None:
            return summary_of(experiment_view(experiment))
        try:
            return dict(json.loads(Path(named).read_text(encoding="utf-8")))
        except (OSError, ValueError) as exc:
            numbers = ", ".join(f"#{n}" for n in found.values_list("number", flat=True)) or "none"
            raise CommandError(
                f"--baseline {named}: no finished experiment of this grid by that name"
                f" (finished: {numbers}) and no summary file there ({exc})"
            ) from exc

    async def _run(self, grid: EvalGrid, options: dict[str, Any]) -> EvalExperiment:
        manager = get_manager()
        try:
            # On the runs' own database thread, in their order (``runs.run_writes``): SQLite
            # then never meets a read of ours in the middle of a run's write.
            cells = await run_write(cells_to_run)(
                grid, row=options["row"], column=options["column"], failed=options["failed"]
            )
            asked = {
                "row": options["row"],
                "column": options["column"],
                "failed": options["failed"],
            }
            if options["repeats"] is not None:
                asked["repeats"] = options["repeats"]
            try:
                queued, experiment = await run_write(queue_run)(
                    grid, cells, asked=asked, by=grid.owner_id
                )
            except PlaygroundError as exc:  # a column's prompt label gone, say
                field = getattr(exc, "field", None)
                where = f"{field}: " if field else ""
                raise CommandError(f"{where}{exc.message}") from exc
            self.stdout.write(f"{queued} cell(s) queued")
            try:
                start_grid(manager, grid_id=grid.id)
            except PlaygroundError as exc:
                raise CommandError(exc.message) from exc
            await self._ended(grid, timeout=options["timeout"])
            job = manager.job(f"grid {grid.id}")
            if job is not None:  # its last writes (the hold given back) before the end
                await asyncio.wait([job], timeout=LOOK_SECONDS * 20)
            # Frozen by the job that ran it; by this look when another process ran it and
            # has not yet (it does nothing once frozen).
            await run_write(seal_experiments)(grid_id=grid.id)
            return await run_write(_refreshed)(experiment)
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


def _refreshed(experiment: EvalExperiment) -> EvalExperiment:
    experiment.refresh_from_db()
    return experiment
