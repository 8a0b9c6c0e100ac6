"""The pure core stays pure: no module under playground/protocol/ imports an I/O framework."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PROTOCOL = Path(__file__).resolve().parent.parent / "playground" / "protocol"
FORBIDDEN = ("django", "channels", "httpx", "httpx_sse", "daphne")
MODULES = sorted(PROTOCOL.rglob("*.py"))


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


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PROTOCOL)))
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
