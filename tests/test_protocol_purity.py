"""The pure core stays pure: no module under playground/protocol/ imports an I/O framework, nor
does the relay (``playground.runs.relay``), the shared log and slots, nor anything they import."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "playground" / "protocol"
RELAY = ROOT / "playground" / "runs" / "relay.py"
#: The run log shared through Redis: plain asyncio and redis-py, like the relay.
SHARED_LOG = ROOT / "playground" / "runs" / "shared_log.py"
#: The upstream slots shared through Redis (and the process's own keeper it falls back on).
SHARED_SLOTS = ROOT / "playground" / "runs" / "shared_slots.py"
FORBIDDEN = ("django", "channels", "httpx", "httpx_sse", "daphne")


def _module_path(name: str) -> Path | None:
    """The file of a ``playground`` module (a package's ``__init__.py``), or None."""
    base = ROOT.joinpath(*name.split("."))
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _playground_imports(path: Path) -> set[Path]:
    """The ``playground`` files ``path`` imports, with the packages Python runs on the way."""
    found: set[Path] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module, *(f"{node.module}.{alias.name}" for alias in node.names)]
        for name in names:
            if name.split(".")[0] != "playground":
                continue
            parts = name.split(".")
            for end in range(1, len(parts) + 1):
                module = _module_path(".".join(parts[:end]))
                if module is not None:
                    found.add(module)
    return found


def relay_closure() -> set[Path]:
    """The relay and every ``playground`` file importing it runs, transitively."""
    seen: set[Path] = set()
    todo = [RELAY, SHARED_LOG, SHARED_SLOTS]
    while todo:
        path = todo.pop()
        if path not in seen:
            seen.add(path)
            todo.extend(_playground_imports(path))
    return seen


MODULES = sorted(set(PROTOCOL.rglob("*.py")) | relay_closure())


def imported_roots(source: str, *, package: str) -> set[str]:
    """Top-level package of every import in ``source``, wherever it sits (functions included)."""
    roots: set[str] = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            roots.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolves inside the protocol package itself
                roots.add(package.split(".")[0])
            elif node.module:
                roots.add(node.module.split(".")[0])
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name | ast.Attribute)
            and getattr(node.func, "id", getattr(node.func, "attr", None)) == "import_module"
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
        ):
            roots.add(node.args[0].value.split(".")[0])
    return roots


def test_the_protocol_package_has_modules() -> None:
    names = {path.stem for path in MODULES}

    assert {"errors", "events", "accumulate"} <= names


def test_the_relay_and_what_it_imports_are_checked() -> None:
    checked = {str(path.relative_to(ROOT)) for path in relay_closure()}

    assert {
        "playground/runs/relay.py",
        "playground/runs/shared_log.py",
        "playground/runs/shared_delivery.py",
        "playground/runs/shared_reader.py",
        "playground/runs/shared_slots.py",
        "playground/runs/upstream_slots.py",
        "playground/runs/owned_tasks.py",
        "playground/runs/__init__.py",
        "playground/protocol/events.py",
    } <= checked


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_protocol_module_imports_no_io_framework(path: Path) -> None:
    roots = imported_roots(path.read_text(), package="playground.protocol")

    assert not roots & set(FORBIDDEN), f"{path.name} imports {sorted(roots & set(FORBIDDEN))}"


@pytest.mark.parametrize(
    "source",
    [
        pytest.param("import django", id="import"),
        pytest.param("import httpx_sse.decoders as d", id="import-submodule"),
        pytest.param("from channels.layers import get_channel_layer", id="from-import"),
        pytest.param("def f():\n    import daphne\n", id="inside-a-function"),
        pytest.param("import importlib\nimportlib.import_module('httpx')", id="import_module"),
    ],
)
def test_the_checker_sees_each_kind_of_import(source: str) -> None:
    assert imported_roots(source, package="playground.protocol") & set(FORBIDDEN)
