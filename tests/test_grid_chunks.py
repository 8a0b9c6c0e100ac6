"""A grid is made in short write transactions (no request holds one past a second): its rows
and cells go in a chunk a transaction, the grid unseen until the last is in, and a failure in a
later chunk leaves no grid behind."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from itertools import pairwise
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.utils import timezone

from playground import conversations, grids
from playground.grids.launch import take_grids
from playground.grids.runner_lease import claim_grid
from playground.grids.services import CREATE_CHUNK, HALF_MADE_AFTER
from playground.models import GRID_BEING_MADE, Conversation, EvalCell, EvalGrid, EvalRow
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db(transaction=True)  # real commits, as a request's


def source() -> Conversation:
    item = conversations.create_conversation(owner=local_user(), title="Explain")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    return item


def make(item: Conversation, rows: int = 500) -> EvalGrid:
    return grids.create_grid(
        owner=local_user(),
        conversation=item,
        columns=[{"label": f"c{n}", "changes": {}} for n in range(4)],
        rows=[{"topic": f"topic {n}"} for n in range(rows)],
        concurrency=2,
    )


@pytest.fixture
def commits(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int, int]]:
    """Each commit of the connection, with what another request sees right after it: the rows,
    the cells and the grids in the database."""
    seen: list[tuple[int, int, int]] = []
    commit: Callable[[], Any] = connection.commit

    def counted() -> None:
        commit()
        seen.append((EvalRow.objects.count(), EvalCell.objects.count(), EvalGrid.objects.count()))
        # The counts' own read transaction ended: on PostgreSQL, autocommit is still off here
        # and the reads opened one, which Django's return to autocommit refuses.
        commit()

    monkeypatch.setattr(connection, "commit", counted)
    return seen


def test_a_500_by_4_grid_goes_in_a_chunk_a_transaction_unseen_until_whole(commits) -> None:
    grid = make(source())
    assert EvalCell.objects.filter(row__grid=grid).count() == 2000
    steps = [(b[0] - a[0], b[1] - a[1]) for a, b in pairwise([(0, 0, 0), *commits])]
    assert len([step for step in steps if step != (0, 0)]) > 1  # more than one transaction
    assert all(rows <= CREATE_CHUNK and cells <= CREATE_CHUNK for rows, cells in steps)
    assert all(grids_seen == 0 for *_, grids_seen in commits)  # none seen while made
    assert EvalGrid.objects.get() == grid  # and once whole, runnable
    assert claim_grid(grid_id=grid.pk)


def test_a_failure_in_a_later_chunk_leaves_no_grid(monkeypatch: pytest.MonkeyPatch) -> None:
    item = source()
    inserted = EvalCell.objects.bulk_create
    calls: list[int] = []

    def fails_third(cells: Any, *args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("the database went away mid-grid")
        return inserted(cells, *args, **kwargs)

    monkeypatch.setattr(EvalCell.objects, "bulk_create", fails_third)
    with pytest.raises(RuntimeError, match="went away"):
        make(item)
    assert len(calls) == 3
    assert not EvalGrid._base_manager.filter(conversation=item).exists()
    assert not EvalRow.objects.exists() and not EvalCell.objects.exists()


def test_the_heartbeats_look_deletes_a_grid_left_half_made_long_ago_and_nothing_else() -> None:
    item = source()
    cut_long_ago, cut_just_now, whole = make(item, rows=3), make(item, rows=3), make(item, rows=3)
    half_made = EvalGrid._base_manager.filter(pk__in=[cut_long_ago.pk, cut_just_now.pk])
    half_made.update(runner=GRID_BEING_MADE)  # as a process that died mid-creation left them
    long_ago = timezone.now() - HALF_MADE_AFTER - timedelta(minutes=1)
    EvalGrid._base_manager.filter(pk=cut_long_ago.pk).update(created_at=long_ago)
    EvalGrid._base_manager.filter(pk=whole.pk).update(created_at=long_ago)
    # What start-up recovery and every heartbeat run (no cell is queued: no manager is needed).
    async_to_sync(take_grids)(None)
    left = set(EvalGrid._base_manager.values_list("pk", flat=True))
    assert left == {cut_just_now.pk, whole.pk}  # a creation may still be under way; a whole one
    assert not EvalRow.objects.filter(grid_id=cut_long_ago.pk).exists()
    assert not EvalCell.objects.filter(row__grid_id=cut_long_ago.pk).exists()
    assert EvalCell.objects.filter(row__grid_id=whole.pk).count() == 12
