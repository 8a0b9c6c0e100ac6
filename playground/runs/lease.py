"""Run leases: which server process streams a run, and until when that holds.

Rule: a ``running`` row belongs to the process named in ``Run.owner`` only while
``Run.lease_expires_at`` is in the future. The owner renews the leases of all its live runs in
one write per heartbeat (silent streams included) and with every checkpoint; every checkpoint
and final write of a run is made only while its row is still ``running`` and still names this
process. Another process takes a run over (``runs.recovery``) only once its lease has expired,
or at once when its owner is provably dead: a process on this same host whose pid is gone (a
restart after ``kill -9`` need not wait out the lease).

Every lease time is the database's clock, never a host's: a lease is written as "the database's
now plus the lease" and judged against the database's now, so hosts whose clocks disagree (a
process 40 s ahead, another 40 s behind) agree on which leases hold.

``PLAYGROUND_RUN_LEASE_SECONDS`` (default 30) bounds how long a dead owner's runs stay
``running``: a lease lasts two thirds of it and is renewed every sixth, and every process
sweeps for expired leases every sixth, so a run is taken over at most five sixths of it after
its owner's last heartbeat, and four renewals may fail in a row before a live run is lost.

Synchronous ORM code (called with ``database_sync_to_async``), apart from the identity.
"""

from __future__ import annotations

import os
import secrets
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import timedelta
from uuid import UUID

from django.conf import settings
from django.db import transaction
from django.db.models import DateTimeField, ExpressionWrapper
from django.db.models.functions import Now

from playground.models import Run
from playground.protocol.run_status import RunStatus

__all__ = [
    "LeaseTimes",
    "THIS_PROCESS",
    "lease_times",
    "lease_from_now",
    "owner_is_dead",
    "renew_leases",
]

#: This process's name in ``Run.owner``: host, pid, and a token that tells a restarted process
#: apart from a dead one that had the same pid.
THIS_PROCESS = f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class LeaseTimes:
    duration: timedelta  # how long a lease holds unless renewed
    heartbeat_seconds: float  # how often the owner renews, and every process sweeps


def lease_times() -> LeaseTimes:
    takeover = float(settings.PLAYGROUND_RUN_LEASE_SECONDS)
    return LeaseTimes(duration=timedelta(seconds=takeover * 2 / 3), heartbeat_seconds=takeover / 6)


def lease_from_now() -> ExpressionWrapper:
    """When a lease taken now ends, by the database's clock (an expression for a write)."""
    return ExpressionWrapper(Now() + lease_times().duration, output_field=DateTimeField())


def owner_is_dead(owner: str, *, this_process: str = THIS_PROCESS) -> bool:
    """Whether ``owner`` is provably gone: a former process of this host whose pid is free
    (or is ours, reused). A process elsewhere is only ever presumed dead by its lease."""
    host, _, rest = owner.partition(":")
    pid_text, _, token = rest.partition(":")
    this_host, _, this_rest = this_process.partition(":")
    if host != this_host or not pid_text.isdigit():
        return False
    pid = int(pid_text)
    if pid == os.getpid():
        return owner != this_process  # a former process whose pid we were given
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False  # alive, another user's
    return False


def renew_leases(*, run_ids: Iterable[UUID], owner: str = THIS_PROCESS) -> set[UUID]:
    """Extend the leases this process still holds; the ids of those it holds (one transaction).

    A run missing from the answer was taken over (or ended) elsewhere: its stream must stop.
    """
    ids = list(run_ids)
    if not ids:
        return set()
    with transaction.atomic():
        mine = Run.objects.filter(pk__in=ids, owner=owner, status=RunStatus.RUNNING)
        # Locked (PostgreSQL): a takeover racing this renewal waits for it, then sees it.
        held = set(mine.select_for_update().values_list("pk", flat=True))
        if held:
            Run.objects.filter(pk__in=held).update(lease_expires_at=lease_from_now())
    return held
