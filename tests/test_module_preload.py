"""The pages preload every chunk they evaluate at open, so the browser fetches them at once.

Rule: an ES module graph is fetched one import level at a time (app.js, then what it imports,
then what those import…); a long chain costs a round trip per level before the page can draw.
The pages load the bundle (``static/playground/dist/``, ``tools/page_bundle.py``), and
``templates/playground/_modulepreload.html`` lists its graph at open; this test walks the
bundle's files and fails when a chunk is missing from the list or listed but no longer imported,
or listed out of the order the parts are evaluated in (a part's chunks before the next part's,
so the first parts can be evaluated while the last are still arriving). The entry's own script
tag is there too, first: fetched before the chunks, not after the page data. The graph's entries
are what the bundle's app.js imports, each with ``import()`` so that each part is evaluated in a
task of its own (the sources' app.js is written that way, and the bundle keeps it); from them
only static imports are walked: a chunk imported with ``import()`` is loaded on first use, after
the open, and preloading it would fetch and compile what the open does not need.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "static"
IMPORT = re.compile(
    r"""(?:import|export)[^'"]*?from\s*["']([^"']+)["']"""  # import … from "x", export … from "x"
    r"""|import\s*["']([^"']+)["']"""  # import "x"
)
DYNAMIC = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")
PRELOAD = re.compile(r"""modulepreload" href="\{% static '([^']+)' %\}\"""")
ENTRY = "playground/dist/playground/app.js"
ENTRY_TAG = f"""<script type="module" src="{{% static '{ENTRY}' %}}"></script>"""
INCLUDE = ROOT / "templates/playground/_modulepreload.html"


def _graph(entries: list[Path]) -> set[str]:
    seen: set[Path] = set()
    todo = list(entries)
    while todo:
        path = todo.pop()
        if path in seen:
            continue
        seen.add(path)
        for match in IMPORT.finditer(path.read_text(encoding="utf-8")):
            spec = match.group(1) or match.group(2)
            if spec.startswith("."):
                todo.append((path.parent / spec).resolve())
    return {str(path.relative_to(STATIC.resolve())) for path in seen}


def _entries(app: str = ENTRY) -> list[Path]:
    entry = (STATIC / app).resolve()
    return [(entry.parent / spec).resolve() for spec in DYNAMIC.findall(entry.read_text())]


def test_every_imported_module_is_preloaded_and_nothing_else() -> None:
    listed = set(PRELOAD.findall(INCLUDE.read_text()))
    assert listed == _graph(_entries())


def test_the_preloads_come_in_the_order_the_parts_are_evaluated() -> None:
    graphs = [_graph([entry]) for entry in _entries()]
    # The first part (in app.js's order) that needs each listed module: never decreasing.
    parts = [
        next(index for index, graph in enumerate(graphs) if module in graph)
        for module in PRELOAD.findall(INCLUDE.read_text())
    ]
    assert parts == sorted(parts)


def test_the_entry_is_fetched_first_and_only_from_the_include() -> None:
    text = INCLUDE.read_text()
    assert text.count(ENTRY_TAG) == 1
    assert text.index(ENTRY_TAG) < text.index("modulepreload")
    for page in ("conversation.html", "conversation_list.html"):
        assert "app.js" not in (ROOT / "templates/playground" / page).read_text(), page


def test_the_entry_imports_the_page_in_parts() -> None:
    assert len(_entries()) == 4  # the bundle's entry: one chunk per part
    assert [path.name for path in _entries("playground/app.js")] == [
        "marked.esm.js",
        "purify.es.mjs",
        "index.js",
        "page.js",
    ]


def test_both_app_pages_include_the_preloads() -> None:
    for page in ("conversation.html", "conversation_list.html"):
        text = (ROOT / "templates/playground" / page).read_text()
        assert '{% include "playground/_modulepreload.html" %}' in text, page
