"""The run path's hottest statements, compiled by the ORM once per connection and run again
with new values.

Rule: a statement here is written with the ORM like any other (so its SQL is Django's own, on
SQLite and PostgreSQL alike: ``FOR UPDATE`` where the database has it, its quoting, its
types), built the first time a thread's connection runs it, with stand-in values for its
named ones; each call then swaps in its own values, prepared by the same fields the ORM would
prepare them with, and runs the kept SQL. Why: a grid cell's reads and writes are a score of
small statements, and building them (filters, clones, compiling) was most of a cell's CPU
while their text never changes (docs/benchmarks.md, Evaluation grid). Only statements a cell
runs every time are kept here; any other stays a plain queryset. A statement is kept per
thread's connection: its converters belong to that connection.

A named value is never None (in a ``WHERE`` it would have to become ``IS NULL``, another
statement), except one an ``UPDATE`` sets.
"""

from __future__ import annotations

import itertools
import threading
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from django.db import connections, router
from django.db.models import Field, QuerySet
from django.db.models.query import get_related_populators
from django.db.models.sql import UpdateQuery
from django.db.models.sql.compiler import SQLCompiler

from playground.fields import JSONTextField

__all__ = ["Reads", "Updates"]

_SERIAL = itertools.count(1)


@dataclass(slots=True)
class _Kept:
    """One statement as compiled on one connection."""

    connection: Any
    sql: str
    params: list[Any]
    #: (index in ``params``, name, field) of each named value.
    slots: list[tuple[int, str, Field[Any, Any]]]
    #: A read's compiler (its columns and models) and converters; None for an update.
    compiler: SQLCompiler | None = None
    converters: dict[int, Any] | None = None


class _Statement:
    _reads = False

    def __init__(self, fields: Mapping[str, Field[Any, Any]]) -> None:
        self._fields = dict(fields)
        self._using: str | None = None  # the router's choice, asked once
        #: The values that may be None: those an update sets (a parameter either way).
        self._nullable: frozenset[str] = frozenset()
        self._local = threading.local()

    def _kept(self, values: Mapping[str, Any]) -> tuple[_Kept, list[Any]]:
        """The statement compiled on this thread's connection, and its parameters for
        ``values``."""
        if values.keys() != self._fields.keys():
            raise TypeError(f"expected the values {sorted(self._fields)}, got {sorted(values)}")
        connection = connections[self._using] if self._using is not None else None
        kept: _Kept | None = getattr(self._local, "kept", None)
        if kept is None or kept.connection is not connection:
            kept = self._local.kept = self._compile()
            connection = kept.connection
        for name, value in values.items():
            if value is None and name not in self._nullable:
                raise ValueError(f"{name} is None: that is another statement (IS NULL)")
        params = list(kept.params)
        for index, name, one in kept.slots:
            params[index] = one.get_db_prep_value(values[name], connection, prepared=False)
        return kept, params

    def _compile(self) -> _Kept:
        stand_ins = {name: _stand_in(one) for name, one in self._fields.items()}
        using, compiler = self._compiler(stand_ins)
        self._using = using
        connection = connections[using]
        sql, params = compiler.as_sql()
        slots = []
        for name, one in self._fields.items():
            prepared = one.get_db_prep_value(stand_ins[name], connection, prepared=False)
            at = [
                i
                for i, param in enumerate(params)
                if type(param) is type(prepared) and param == prepared
            ]
            if len(at) != 1:  # a statement this module cannot keep: a mistake, said at once
                raise ValueError(f"{name!r} is in the statement {len(at)} times, not once: {sql}")
            slots.append((at[0], name, one))
        kept = _Kept(connection=connection, sql=sql, params=list(params), slots=slots)
        if self._reads:
            kept.compiler = compiler
            kept.converters = compiler.get_converters(
                [column[0] for column in compiler.select[: compiler.col_count]]
            )
        return kept

    def _compiler(self, stand_ins: dict[str, Any]) -> tuple[str, SQLCompiler]:
        raise NotImplementedError


class Reads(_Statement):
    """A ``SELECT`` of model instances: ``build(**values)`` is the queryset (its model's
    fields, ``only()``, ``select_related()``, ``select_for_update()``, annotations, ``[:n]``),
    ``fields`` the field that prepares each value."""

    _reads = True

    def __init__(self, build: Callable[..., QuerySet[Any]], /, **fields: Field[Any, Any]) -> None:
        super().__init__(fields)
        self._build = build

    def _compiler(self, stand_ins: dict[str, Any]) -> tuple[str, SQLCompiler]:
        rows = self._build(**stand_ins)
        return rows.db, rows.query.get_compiler(using=rows.db)

    def __call__(self, **values: Any) -> list[Any]:
        """The rows as the queryset would give them."""
        kept, params = self._kept(values)
        compiler = kept.compiler
        assert compiler is not None
        with kept.connection.cursor() as cursor:
            cursor.execute(kept.sql, params)
            rows: Any = cursor.fetchall()
        if not rows:
            return []
        if kept.converters:
            rows = list(compiler.apply_converters(rows, kept.converters))
        select = compiler.select
        # As ``django.db.models.query.ModelIterable`` makes them.
        info = compiler.klass_info
        assert info is not None
        db = kept.connection.alias
        start, end = info["select_fields"][0], info["select_fields"][-1] + 1
        names = [column[0].target.attname for column in select[start:end]]
        populators = get_related_populators(info, select, db)
        annotations = compiler.annotation_col_map or {}
        made = []
        for row in rows:
            obj = info["model"].from_db(db, names, row[start:end])
            for populator in populators:
                populator.populate(row, obj)
            for name, at in annotations.items():
                setattr(obj, name, row[at])
            made.append(obj)
        return made


class Updates(_Statement):
    """An ``UPDATE``: ``build(**values)`` is the queryset of the rows and the columns' new
    values (``QuerySet.update()``'s), ``fields`` the field that prepares each named value
    (one a column is set to may be None). A call returns how many rows it changed."""

    def __init__(
        self,
        build: Callable[..., tuple[QuerySet[Any], dict[str, Any]]],
        /,
        **fields: Field[Any, Any],
    ) -> None:
        super().__init__(fields)
        self._build = build

    def _compiler(self, stand_ins: dict[str, Any]) -> tuple[str, SQLCompiler]:
        rows, changes = self._build(**stand_ins)
        # A value set (not looked up by) may be None: it is a parameter either way.
        self._nullable = frozenset(
            name for name, value in stand_ins.items() if any(value is v for v in changes.values())
        )
        update = rows.query.chain(UpdateQuery)
        update.add_update_values(changes)
        update.clear_select_clause()
        using = router.db_for_write(rows.model)
        return using, update.get_compiler(using)

    def __call__(self, **values: Any) -> int:
        kept, params = self._kept(values)
        with kept.connection.cursor() as cursor:
            cursor.execute(kept.sql, params)
            return int(cursor.rowcount)


def _stand_in(one: Field[Any, Any]) -> Any:
    """A value of ``one``'s type no real row has: found once in the compiled parameters."""
    target = one.target_field if one.is_relation else one
    kind = target.get_internal_type()
    if isinstance(target, JSONTextField):
        return {"stand-in": str(uuid.uuid4())}
    if kind == "BooleanField":  # found by its type: a statement may set one boolean
        return True
    if kind == "UUIDField":
        return uuid.uuid4()
    if kind in {
        "AutoField",
        "BigAutoField",
        "IntegerField",
        "BigIntegerField",
        "PositiveIntegerField",
        "PositiveBigIntegerField",
        "SmallAutoField",
    }:
        return -(2**31) - next(_SERIAL)  # unlike any other stand-in
    if kind == "DateTimeField":
        return datetime(1901, 1, 1, microsecond=uuid.uuid4().int % 10**6, tzinfo=UTC)
    if kind in {"CharField", "TextField"}:
        return f"\x01stand-in {uuid.uuid4()}"
    raise TypeError(f"no stand-in for a {kind}")
