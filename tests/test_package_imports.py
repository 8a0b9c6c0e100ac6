"""The sub-packages of ``playground`` depend on each other one way, through public names.

A unit is a sub-package (``playground/sharing/``) or a top-level module (``playground/models.py``).
The units' imports form no cycle (a cycle means neither side can change alone), and no module
imports a private (``_``) name from another unit, nor reaches one through an imported module
(``views._helper``): a private name is free to change, so nothing outside may lean on it.
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "playground"


@dataclass(frozen=True)
class Import:
    """One import of a ``playground`` module: where it is, what it names."""

    where: str
    module: str
    name: str | None


def unit_of(module: str) -> str:
    """The unit a dotted ``playground`` module belongs to: ``playground.sharing.views`` ->
    ``sharing``, ``playground.models`` -> ``models``, ``playground`` -> ``playground``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else parts[0]


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: The nodes a statement may sit in: a statement is only ever in another's body, a handler's
#: or a case's, never in an expression.
_HOLDERS = (ast.stmt, ast.excepthandler, ast.match_case)


def statements(tree: ast.AST) -> Iterator[ast.stmt]:
    """Every statement in ``tree``, nested ones included, in :func:`ast.walk`'s order, without
    walking the expressions (most of a module's nodes, and most of the check's CPU: the suite
    reads every module here)."""
    todo = [tree]
    while todo:
        level, todo = todo, []
        for node in level:
            if isinstance(node, ast.stmt):
                yield node
            for field in node._fields:
                value = getattr(node, field, None)
                if isinstance(value, list):
                    todo.extend(item for item in value if isinstance(item, _HOLDERS))


def imports_in(
    source: str | ast.Module, *, module: str, is_package: bool = False, where: str = ""
) -> Iterator[Import]:
    """Every ``playground`` import in ``source`` (relative ones resolved), with each name."""
    package = module if is_package else module.rpartition(".")[0]
    tree = ast.parse(source) if isinstance(source, str) else source
    for node in statements(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "playground":
                    yield Import(f"{where}:{node.lineno}", alias.name, None)
        elif isinstance(node, ast.ImportFrom):
            target = node.module or ""
            if node.level:
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, *([node.module] if node.module else [])])
            if target.split(".")[0] != "playground":
                continue
            for alias in node.names:
                yield Import(f"{where}:{node.lineno}", target, alias.name)


def is_module(dotted: str) -> bool:
    base = ROOT.joinpath(*dotted.split("."))
    return base.with_suffix(".py").is_file() or (base / "__init__.py").is_file()


def private_reaches(source: str, *, module: str, where: str = "") -> Iterator[str]:
    """Private names this source takes from another unit, by import or by attribute."""
    own = unit_of(module)
    tree = ast.parse(source)
    # Names bound to another unit's module: ``from playground.sharing import views``.
    modules: dict[str, str] = {}
    for found in imports_in(tree, module=module, where=where):
        if found.name is None:
            continue
        if unit_of(found.module) == own and found.module != "playground":
            continue
        if found.name.startswith("_") and not found.name.startswith("__"):
            yield f"{found.where}: from {found.module} import {found.name}"
        dotted = f"{found.module}.{found.name}"
        if is_module(dotted) and unit_of(dotted) != own:
            modules[found.name] = dotted
    if not modules:
        return  # no other unit's module bound to a name: no attribute to read through
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in modules
            and node.attr.startswith("_")
            and not node.attr.startswith("__")
        ):
            yield f"{where}:{node.lineno}: {modules[node.value.id]}.{node.attr}"


def sources(*folders: Path) -> list[Path]:
    return sorted(
        path
        for folder in folders
        for path in folder.rglob("*.py")
        if "migrations" not in path.relative_to(ROOT).parts
    )


@functools.cache
def unit_graph() -> dict[str, dict[str, str]]:
    """unit -> {unit it imports: the first place it does}. Read once a process (two tests ask);
    callers do not change it."""
    graph: dict[str, dict[str, str]] = {}
    for path in sources(PACKAGE):
        module = module_name(path)
        source_unit = unit_of(module)
        edges = graph.setdefault(source_unit, {})
        where = str(path.relative_to(ROOT))
        for found in imports_in(
            path.read_text(), module=module, is_package=path.name == "__init__.py", where=where
        ):
            dotted = found.module
            if found.name is not None and is_module(f"{dotted}.{found.name}"):
                dotted = f"{dotted}.{found.name}"
            target = unit_of(dotted)
            if target not in (source_unit, "playground"):
                edges.setdefault(target, found.where)
    return graph


def find_cycle(graph: dict[str, dict[str, str]]) -> list[str] | None:
    """One cycle of units (first unit repeated at the end), or None."""
    done: set[str] = set()

    def visit(unit: str, path: list[str]) -> list[str] | None:
        if unit in path:
            return [*path[path.index(unit) :], unit]
        if unit in done:
            return None
        for target in sorted(graph.get(unit, {})):
            cycle = visit(target, [*path, unit])
            if cycle:
                return cycle
        done.add(unit)
        return None

    for unit in sorted(graph):
        cycle = visit(unit, [])
        if cycle:
            return cycle
    return None


def test_the_units_are_read() -> None:
    graph = unit_graph()

    assert {"protocol", "upstream", "sharing", "attachments", "models"} <= set(graph)
    assert "protocol" in graph["upstream"]


def test_the_sub_packages_import_each_other_without_a_cycle() -> None:
    graph = unit_graph()

    cycle = find_cycle(graph)

    assert cycle is None, " -> ".join(
        f"{a} ({graph[a][b]})" for a, b in zip(cycle, cycle[1:], strict=False)
    )


def test_no_private_name_is_taken_from_another_package() -> None:
    # One test over every file, naming each that reaches: a test a file was about 7 ms of
    # pytest's own CPU for a check of a fraction of that, and there are some 600 files.
    found = {
        str(path.relative_to(ROOT)): reaches
        for path in sources(PACKAGE, ROOT / "tests")
        if (reaches := list(private_reaches(path.read_text(), module=module_name(path))))
    }

    assert found == {}


# --- The checkers see what they must --------------------------------------------------------


def test_a_cycle_is_found_and_named() -> None:
    graph = {"a": {"b": "a.py:1"}, "b": {"c": "b.py:1"}, "c": {"a": "c.py:1"}, "d": {"a": "d.py:1"}}

    assert find_cycle(graph) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b": "a.py:1"}, "b": {}}) is None


PRIVATE_FROM_ELSEWHERE = [
    ("from playground.sharing.views import _not_found", "from-import"),
    ("from ..sharing.views import _not_found", "relative"),
    ("from playground.sharing import views\nviews._not_found()", "attribute"),
    ("def f():\n    from playground.apps import _check\n", "in-a-function"),
]
ALLOWED = [
    ("from playground.attachments.store import _kept", "same-package"),
    ("from .store import _kept", "same-package-relative"),
    ("from playground.sharing.views import protect", "public-name"),
    ("from playground.sharing import views\nviews.__name__", "dunder"),
]


@pytest.mark.parametrize(
    ("source", "flagged"),
    [pytest.param(source, True, id=name) for source, name in PRIVATE_FROM_ELSEWHERE]
    + [pytest.param(source, False, id=name) for source, name in ALLOWED],
)
def test_the_checker_flags_only_private_names_from_elsewhere(source: str, flagged: bool) -> None:
    found = list(private_reaches(source, module="playground.attachments.views"))

    assert bool(found) is flagged, found
