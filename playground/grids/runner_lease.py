"""Which server process runs a grid's queue, and until when: one runner per grid, anywhere.

Rule: a process runs a grid's queued cells only while ``EvalGrid.runner`` names it and
``EvalGrid.runner_lease_expires_at`` is in the future (the database's clock, as run leases:
``runs.lease``). The runner renews it every heartbeat and clears it when its queue is done.
Every process, every heartbeat, takes the grids with queued cells whose runner is none, is
provably dead (a former process of this host) or let its lease expire. So with several
processes a grid whose process died goes on in another within a lease, and a process that
starts while another runs a grid never runs that grid's cells a second time.

Synchronous ORM code, called through ``run_write``.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Q
from django.db.models.functions import Now

from playground.models import EvalCell, EvalGrid
from playground.runs.lease import THIS_PROCESS, lease_from_now, owner_is_dead

__all__ = ["claim_grid", "grids_to_take", "release_grid", "renew_grid"]


def _free() -> Q:
    """No live runner by the lease (a dead one of this host is told apart in Python)."""
    return (
        Q(runner="")
        | Q(runner_lease_expires_at__isnull=True)
        | Q(runner_lease_expires_at__lt=Now())
    )


def claim_grid(*, grid_id: Any, process: str = THIS_PROCESS) -> bool:
    """Become the grid's runner, or stay it; False when a live process runs it."""
    with transaction.atomic():
        grid = EvalGrid.objects.select_for_update().filter(pk=grid_id).first()
        if grid is None:
            return False
        held_elsewhere = grid.runner not in ("", process) and not owner_is_dead(grid.runner)
        if held_elsewhere and not EvalGrid.objects.filter(_free(), pk=grid_id).exists():
            return False
        EvalGrid.objects.filter(pk=grid_id).update(
            runner=process, runner_lease_expires_at=lease_from_now()
        )
    return True


def renew_grid(*, grid_id: Any, process: str = THIS_PROCESS) -> bool:
    """Extend the lease this process holds; False when it is another's now."""
    renewed = EvalGrid.objects.filter(pk=grid_id, runner=process).update(
        runner_lease_expires_at=lease_from_now()
    )
    return renewed == 1


def release_grid(*, grid_id: Any, process: str = THIS_PROCESS) -> None:
    """The queue is done here: any process may take the grid when cells are queued again."""
    EvalGrid.objects.filter(pk=grid_id, runner=process).update(
        runner="", runner_lease_expires_at=None
    )


def grids_to_take(*, process: str = THIS_PROCESS) -> list[str]:
    """The grids with a cell queued whose runner is none, dead or out of its lease."""
    queued = EvalCell.objects.filter(queued_at__isnull=False).values("row__grid")
    found = EvalGrid.objects.filter(pk__in=queued).values_list(
        "pk", "runner", "runner_lease_expires_at"
    )
    free = set(EvalGrid.objects.filter(_free(), pk__in=queued).values_list("pk", flat=True))
    return sorted(
        str(grid_id)
        for grid_id, runner, _ in found
        if grid_id in free or runner == process or owner_is_dead(runner)
    )
