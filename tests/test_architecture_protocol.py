"""Inside ``playground/protocol/`` the modules import each other one way: no cycle.

Every import counts, wherever it sits (a function's body, ``if TYPE_CHECKING``): a cycle hidden
in a function is still two modules that cannot change alone (the settings table once imported
the adapters inside ``markdown()`` while the adapters read their rules from it). A module's own
packages on the way to a sibling are not edges: Python runs a package's ``__init__`` before any
module in it, whatever the import says (unless it imports a name from its own package). Also:
no module outside an adapter names a wire format.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from tests.test_package_imports import imports_in

ROOT = Path(__file__).resolve().parent.parent
PROTOCOL = ROOT / "playground" / "protocol"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def edges(source: str, *, module: str, is_package: bool, known: set[str]) -> set[str]:
    """The ``known`` modules ``source`` imports: the module each import names, and the
    packages Python runs on the way there, less the importer's own packages (already running).
    A name imported from one's own package is an edge: that is a cycle."""
    own = {".".join(module.split(".")[:end]) for end in range(1, module.count(".") + 2)}
    found: set[str] = set()
    for each in imports_in(source, module=module, is_package=is_package):
        named = f"{each.module}.{each.name}" if each.name else each.module
        target = named if named in known else each.module
        parts = target.split(".")
        on_the_way = {".".join(parts[:end]) for end in range(1, len(parts))}
        found.update((on_the_way - own) & known)
        if target in known:
            found.add(target)
    return found - {module}


def cycles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for other in sorted(graph.get(node, ())):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on_stack:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def protocol_graph() -> dict[str, set[str]]:
    paths = {module_name(path): path for path in PROTOCOL.rglob("*.py")}
    known = set(paths)
    return {
        name: edges(
            path.read_text(), module=name, is_package=path.name == "__init__.py", known=known
        )
        for name, path in paths.items()
    }


def test_the_protocol_package_has_no_import_cycle() -> None:
    assert cycles(protocol_graph()) == []


def test_the_graph_holds_the_adapters_imports() -> None:
    graph = protocol_graph()

    assert "playground.protocol.settings_table" in graph["playground.protocol.adapters.base"]
    assert "playground.protocol.adapters" in graph["playground.protocol.settings_markdown"]


@pytest.mark.parametrize(
    ("sources", "expected"),
    [
        pytest.param(
            {
                "playground.a": "from playground.b import x",
                "playground.b": "def f():\n    from playground.a import y",
            },
            [["playground.a", "playground.b"]],
            id="import-in-a-function",
        ),
        pytest.param(
            {
                "playground.a": "if TYPE_CHECKING:\n    from playground.b import x",
                "playground.b": "from . import a",
            },
            [["playground.a", "playground.b"]],
            id="type-checking-import",
        ),
        pytest.param(
            {"playground.a": "from playground.b import x", "playground.b": "import json"},
            [],
            id="one-way",
        ),
        pytest.param(
            {"playground.p": "from playground.p.a import x", "playground.p.a": "import json"},
            [],
            id="own-package-on-the-way",
        ),
        pytest.param(
            {"playground.p": "from playground.p.a import x", "playground.p.a": "from . import y"},
            [["playground.p", "playground.p.a"]],
            id="a-name-from-its-own-package",
        ),
    ],
)
def test_a_cycle_is_found_wherever_its_import_sits(
    sources: dict[str, str], expected: list[list[str]]
) -> None:
    known = set(sources)
    graph = {
        name: edges(source, module=name, is_package=name == "playground.p", known=known)
        for name, source in sources.items()
    }

    assert cycles(graph) == expected


#: How code outside an adapter would name a wire format: a wire's name as a string.
_WIRE_WORDS = re.compile(r"""["'](?:vertex|openai-chat)["']""")


def test_no_module_outside_an_adapter_names_a_wire_format() -> None:
    adapters = PROTOCOL / "adapters"
    named = [
        str(path.relative_to(ROOT))
        for path in (ROOT / "playground").rglob("*.py")
        if adapters not in path.parents and _WIRE_WORDS.search(path.read_text())
    ]

    assert named == []
