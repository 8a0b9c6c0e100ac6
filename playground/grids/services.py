"""A grid's rows and cells, and the conversation each cell runs in.

Rule: a cell's conversation is the source conversation forked up to its last user turn (the
prompt under test), with the row's values over the source's variables and the column's
settings changes applied, each checked as the page's own changes are (``conversations``). It
is made once, the first time the cell runs; a re-run answers the same user turn again (the
earlier answer kept as an alternative). Synchronous ORM code: the runner calls it with
``database_sync_to_async``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from django.db import transaction
from django.utils import timezone

from playground import conversations
from playground.compiled_sql import Reads
from playground.conversations.fields import profile_named
from playground.grids.cell_fork import Fork, fork_for, store_fork
from playground.grids.imported import materialize
from playground.grids.loop_turns import CellPlan, plan_of
from playground.grids.options import check_options
from playground.grids.prompt_columns import column_changes, names_a_prompt
from playground.grids.scorers import check_scorers
from playground.models import (
    GRID_BEING_MADE,
    Conversation,
    EvalCell,
    EvalGrid,
    EvalRow,
    Message,
    Run,
)
from playground.prompts import PROMPT_KEY
from playground.protocol.errors import PlaygroundError, RequestValidationError
from playground.protocol.grid_rows import read_rows, variable_warnings
from playground.protocol.variables import names_in_request

__all__ = [
    "COLUMNS_MAX",
    "cell_conversation",
    "cell_setup",
    "cells_to_run",
    "check_columns",
    "check_grid",
    "checked_options",
    "checked_scorers",
    "create_grid",
    "drop_half_made_grids",
    "grid_warnings",
    "prompt_variables",
]

#: As a compare: one to four columns side by side.
COLUMNS_MAX = 4
#: Runs at once: at least one, and never more than a grid of four columns has in a row × 8.
CONCURRENCY_MAX = 32
#: Rows, then cells, inserted a transaction: a 500 x 4 grid's 2,000 cells in one held the write
#: lock 1.1 s on a loaded PostgreSQL (issue 43: no request holds one past a second).
CREATE_CHUNK = 250
#: A grid still being made this long after it began was cut by its process's death (a stop,
#: kill -9, a crash): a 500 x 4 grid goes in within seconds, so this is generous.
HALF_MADE_AFTER = timedelta(minutes=10)


def _check_columns(
    columns: Sequence[Mapping[str, Any]], *, field: str, owner: Any = None
) -> list[dict[str, Any]]:
    if not isinstance(columns, Sequence) or not 1 <= len(columns) <= COLUMNS_MAX:
        count = len(columns) if isinstance(columns, Sequence) else "none"
        raise RequestValidationError(
            f"a grid has 1 to {COLUMNS_MAX} columns, got {count}", field=f"{field}columns"
        )
    checked = []
    for index, column in enumerate(columns):
        place = f"{field}columns[{index}]"
        if not isinstance(column, Mapping):
            raise RequestValidationError("expected an object {label, changes}", field=place)
        changes = column.get("changes", {})
        if not isinstance(changes, Mapping):
            raise RequestValidationError(
                "expected an object of settings changes", field=f"{place}.changes"
            )
        # A column naming a prompt version or label (``grids.prompt_columns``) is checked with
        # that version's settings; without an owner (a bundle read before its import), the
        # prompt is resolved when the column runs.
        settings = dict(changes)
        if names_a_prompt(changes) and owner is not None:
            settings = column_changes(owner, changes, field=f"{place}.changes").changes
        settings.pop(PROMPT_KEY, None)
        try:
            conversations.check_fields(settings)
        except RequestValidationError as exc:
            raise RequestValidationError(exc.message, field=f"{place}.changes.{exc.field}") from exc
        label = str(column.get("label") or f"Column {index + 1}")
        checked.append({"label": label, "changes": dict(changes)})
    return checked


def check_columns(columns: Sequence[Any], *, owner: Any) -> list[dict[str, Any]]:
    """Columns as a grid keeps them (a header's edit, ``grids.column_edit``)."""
    return _check_columns(columns, field="", owner=owner)


def checked_scorers(value: Any, *, columns: int, field: str = "scorers") -> list[dict[str, Any]]:
    """The scorers as a grid keeps them (``grids.scorers.check_scorers``), each judge's profile
    one this server has (``scorers[2].profile``)."""
    checked = check_scorers(value, columns=columns, field=field)
    for index, scorer in enumerate(checked):
        if scorer.get("profile"):
            try:
                profile_named(scorer["profile"])
            except PlaygroundError as exc:
                raise RequestValidationError(
                    exc.message, field=f"{field}[{index}].profile"
                ) from exc
    return checked


def check_grid(
    *,
    conversation: Conversation | None,
    columns: Sequence[Mapping[str, Any]],
    rows: Sequence[Any],
    concurrency: int,
    field: str = "",
    row_field: str = "rows[{index}]",
    owner: Any = None,
) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """The columns and rows as a grid keeps them, read before anything is written (a bundle
    checks every grid before it writes one, its conversation not made yet: None); a refusal
    names ``{field}columns[1]…``, a row ``{field}{row_field}``."""
    checked_columns = _check_columns(columns, field=field, owner=owner)
    checked_rows = read_rows(
        objects=rows,
        columns=len(checked_columns),
        field=f"{field}rows",
        row_place=field + row_field,
    )
    if not 1 <= concurrency <= CONCURRENCY_MAX:
        raise RequestValidationError(
            f"concurrency must be 1 to {CONCURRENCY_MAX}, got {concurrency}",
            field=f"{field}concurrency",
        )
    if (
        conversation is not None
        and not conversation.messages.filter(role=Message.Role.USER).exists()
    ):
        raise RequestValidationError(
            "the conversation has no user turn to run: write the prompt first", field="messages"
        )
    return checked_columns, checked_rows


def checked_options(value: Any) -> dict[str, Any]:
    """The grid's options (``grids.options``) with their MCP sampling profile one configured
    here: a typo is refused when saved, not found when a server first asks."""
    options = check_options(value)
    if options["sampling_profile"]:
        try:
            profile_named(options["sampling_profile"])
        except RequestValidationError as exc:
            raise RequestValidationError(exc.message, field="options.sampling_profile") from exc
    return options


def create_grid(
    *,
    owner: Any,
    conversation: Conversation,
    columns: Sequence[Mapping[str, Any]],
    rows: Sequence[Any],
    concurrency: int,
    title: str = "",
    scorers: Sequence[Any] = (),
    options: Any = None,
) -> EvalGrid:
    """A grid over ``conversation`` with its rows and an empty cell per row and column, inserted
    :data:`CREATE_CHUNK` a transaction: the grid is hidden (``GRID_BEING_MADE``) until the last
    is in, and deleted if one fails, so no half-made grid is ever seen or run."""
    checked_columns, checked_rows = check_grid(
        conversation=conversation,
        columns=columns,
        rows=rows,
        concurrency=concurrency,
        owner=owner,
    )
    checked_scorers_ = checked_scorers(list(scorers), columns=len(checked_columns))
    checked_options_ = checked_options(options)
    grid = EvalGrid.objects.create(
        owner=owner,
        conversation=conversation,
        title=title,
        columns=checked_columns,
        concurrency=concurrency,
        scorers=checked_scorers_,
        options=checked_options_,
        runner=GRID_BEING_MADE,
    )
    try:
        _insert_cells(grid, rows=checked_rows, columns=len(checked_columns))
        EvalGrid._base_manager.filter(pk=grid.pk).update(runner="")
    except BaseException:
        EvalGrid._base_manager.filter(pk=grid.pk).delete()
        raise
    grid.runner = ""
    return grid


def _insert_cells(grid: EvalGrid, *, rows: Sequence[Any], columns: int) -> None:
    made: list[EvalRow] = []
    for start in range(0, len(rows), CREATE_CHUNK):
        with transaction.atomic():
            made += EvalRow.objects.bulk_create(
                EvalRow(grid=grid, position=position, values=values)
                for position, values in enumerate(rows[start : start + CREATE_CHUNK], start)
            )
    cells = [(row, column) for row in made for column in range(columns)]
    for start in range(0, len(cells), CREATE_CHUNK):
        with transaction.atomic():
            EvalCell.objects.bulk_create(
                EvalCell(row=row, column=column)
                for row, column in cells[start : start + CREATE_CHUNK]
            )


def drop_half_made_grids() -> int:
    """Delete the grids left half-made (``GRID_BEING_MADE``) by a process that died while it
    made them, once :data:`HALF_MADE_AFTER` old, with their rows and cells; how many."""
    since = timezone.now() - HALF_MADE_AFTER
    stale = EvalGrid._base_manager.filter(runner=GRID_BEING_MADE, created_at__lt=since)
    # Looked for first: the sweep runs at every heartbeat and almost always finds none, and a
    # read takes no write lock (a delete of nothing still opens a write on SQLite).
    if not stale.exists():
        return 0
    return stale.delete()[1].get(EvalGrid._meta.label, 0)


def prompt_variables(conversation: Conversation) -> list[str]:
    """The variables the prompt names (system prompt, then user turns), then any other saved."""
    path = conversations.path_of(conversation)
    messages = [{"role": m.role, "content": m.content} for m in path]
    named = names_in_request({"system": conversation.settings.system, "messages": messages})
    return list(dict.fromkeys([*named, *(conversation.variables or {})]))


def grid_warnings(grid: EvalGrid) -> list[str]:
    """What the grid's rows and its prompt's variables disagree on (``grid_rows``)."""
    rows = list(EvalRow.objects.filter(grid=grid).values_list("values", flat=True))
    return variable_warnings(rows=rows, variables=prompt_variables(grid.conversation))


def cell_conversation(*, cell_id: Any) -> Conversation:
    """The conversation ``cell_id`` runs in, made (once) on its first run or when it is first
    opened; a result a bundle carried becomes its answer then (``grids.imported``)."""
    return cell_setup(cell_id=cell_id)[0]


def cell_setup(*, cell_id: Any) -> tuple[Conversation, CellPlan]:
    """:func:`cell_conversation`, and how the runner runs the cell this time
    (``grids.loop_turns.plan_of``), from the same read."""
    with transaction.atomic():
        # One read: the cell locked (only its row: ``of``) with its row, grid, source and owner.
        cell = (
            EvalCell.objects.select_for_update(of=("self",))
            .select_related("row__grid__conversation", "row__grid__owner", "conversation")
            .get(pk=cell_id)
        )
        if cell.conversation_id is not None:
            return cell.conversation, plan_of(cell)
        fork = store_fork(fork_for(cell)).conversation
        cell.conversation = fork
        cell.save(update_fields=["conversation"])
        materialize(cell, fork)
        return fork, plan_of(cell)


#: What the runner's read of a cell takes: the cell, its row, the grid's columns and options,
#: and the grid's conversation (a fork copies all of it). A read's cost grows with its columns
#: and joins, and it runs once a cell; the owner is the runner's.
_START_READS = (
    *("row", "column", "conversation", "imported", "repeats", "row__values", "row__position"),
    *("row__grid__columns", "row__grid__options", "row__grid__owner", "row__grid__conversation"),
)


#: The runner's read of each cell it starts: compiled once (``playground.compiled_sql``).
_START_READ = Reads(
    lambda cell: (
        EvalCell.objects.select_related("row__grid__conversation")
        .only(*_START_READS)
        .filter(pk=cell)
    ),
    cell=EvalCell._meta.get_field("id"),
)


def cell_start(*, cell_id: Any, owner: Any = None) -> tuple[Conversation, CellPlan, Fork | None]:
    """:func:`cell_setup` for the runner: a cell with no conversation yet (nor a result a
    bundle carried) gets its fork checked and built, not stored (``grids.cell_fork``: its
    first run's start write stores it); one read, no write. ``owner``: the grid's, when the
    caller holds it (not read again)."""
    found = _START_READ(cell=cell_id)
    if not found:
        raise EvalCell.DoesNotExist(f"no cell {cell_id}")
    cell = found[0]
    if cell.conversation_id is not None or isinstance(cell.imported, dict):
        return (*cell_setup(cell_id=cell_id), None)
    grid = cell.row.grid
    if owner is not None and getattr(owner, "pk", None) == grid.owner_id:
        grid.owner = owner
    fork = fork_for(cell)
    return fork.conversation, plan_of(cell), fork


def cells_to_run(
    grid: EvalGrid, *, row: int | None = None, column: int | None = None, failed: bool = False
) -> list[EvalCell]:
    """The cells a run takes: all, one row's, one column's, or those whose last run did not
    complete or did not pass its scorers (or never ran)."""
    cells = EvalCell.objects.filter(row__grid=grid).select_related("row")
    if row is not None:
        cells = cells.filter(row__position=row)
    if column is not None:
        cells = cells.filter(column=column)
    chosen = list(cells)
    if failed:
        chosen = [cell for cell in chosen if _failed(cell, _last_run(cell))]
    return chosen


def _failed(cell: EvalCell, run: Run | None) -> bool:
    if run is None and isinstance(cell.imported, dict):  # a result a bundle carried
        return cell.imported.get("status") != Run.Status.COMPLETE or cell.passed is False
    if run is None or run.status != Run.Status.COMPLETE:
        return True
    return cell.scored_run_id == run.id and cell.passed is False


def _last_run(cell: EvalCell) -> Run | None:
    if cell.conversation_id is None:
        return None
    return Run.objects.filter(conversation_id=cell.conversation_id).order_by("-started_at").first()


def prompt_messages(conversation: Conversation) -> tuple[str | None, list[dict[str, Any]]]:
    """The prompt under test as the API takes it: the system prompt's text and the turns up to
    the last user turn (``{{variables}}`` unfilled)."""
    path = list(conversations.path_of(conversation))
    users = [index for index, message in enumerate(path) if message.role == Message.Role.USER]
    turns = [message.as_api() for message in path[: users[-1] + 1]] if users else []
    system = conversation.settings.system
    return (system if isinstance(system, str) and system else None), turns
