"""The run path's two hooks into usage: a run's start and its end, nothing between.

Rule: :func:`run_ended` is called by every write that ends a run (``runs.store``'s end write,
``runs.recovery``'s), inside its transaction, with the run's usage and ``finished_at`` set and
before the row is saved: it stores what the run cost on the run. Synchronous ORM code.
"""

from __future__ import annotations

from playground.models import Run
from playground.usage.costs import run_cost

__all__ = ["END_FIELDS", "run_ended"]

#: The run's columns :func:`run_ended` sets (an end write saves them with its own).
END_FIELDS = ("cost_nanos",)


def run_ended(run: Run) -> None:
    """The run's end write is about to save ``run``: its cost goes with it."""
    run.cost_nanos = run_cost(run).nanos
