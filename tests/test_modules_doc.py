"""docs/modules.md names every module: each Python module under ``playground/`` and each page
module under ``static/playground/`` (the bundle aside), so the map a newcomer reads is whole.

A Python module counts as named when the page gives its path (``runs/relay``, ``runs/relay.py``,
``playground.runs.relay``), or its bare name where its package is the subject: in the package's
entry of the tree of ``playground/``, or in a table row or paragraph after the package's name
(``upstream/``, ``playground/upstream/``) with no other package named between them. A module of
``playground/`` itself is named by its file name (``apps.py``) or its dotted path. A page module
is named by its file name, a development tool by its path (``tools/page_bundle.py``).
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs/modules.md"
PACKAGE = ROOT / "playground"
PAGES = ROOT / "static/playground"


def python_modules() -> list[Path]:
    return sorted(
        path.relative_to(PACKAGE)
        for path in PACKAGE.rglob("*.py")
        if "migrations" not in path.parts and path.name != "__init__.py"
    )


def page_modules() -> list[str]:
    return sorted(
        str(path.relative_to(PAGES))
        for path in PAGES.rglob("*.js")
        if not path.is_relative_to(PAGES / "dist")
    )


def _tree_entries(text: str) -> dict[str, str]:
    """The tree of ``playground/``: each package's entry (its line and the deeper ones after)."""
    entries: dict[str, str] = {}
    tree = text.split("```\nplayground/\n", 1)[1].split("```", 1)[0]
    current = None
    for line in tree.splitlines():
        match = re.match(r"^  ([a-z_]+)/\s", line)
        if match:
            current = match.group(1)
            entries[current] = line
        elif current and line.startswith("    "):
            entries[current] += "\n" + line
        else:
            current = None
    return entries


def _blocks(text: str) -> list[str]:
    """Table rows, and the paragraphs between blank lines (each row of a table on its own)."""
    blocks: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text):
        rows = [line for line in paragraph.splitlines() if line.startswith("|")]
        blocks += rows or [paragraph]
    return blocks


def _word(name: str, text: str) -> bool:
    return re.search(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", text) is not None


def is_named(module: Path, text: str) -> bool:
    parts = module.with_suffix("").parts
    dotted = ".".join(("playground", *parts))
    if dotted in text or any(
        f"{'/'.join(parts[i:])}{suffix}" in text
        for i in range(len(parts) - 1)
        for suffix in (".py", "")
        if len(parts[i:]) > 1
    ):
        return True
    if len(parts) == 1:
        return _word(module.name, text)
    package, name = parts[0], parts[-1]
    entry = _tree_entries(text).get(package, "")
    if _word(name, entry):
        return True
    return any(_after_its_package(name, package, block) for block in _blocks(text))


def _after_its_package(name: str, package: str, block: str) -> bool:
    """``name`` occurs in ``block`` after a mention of ``package/`` with no other package's
    mention between them (a row that lists ``runs/`` then ``web/`` names web's modules after
    ``web/``)."""
    for found in re.finditer(rf"(?<![\w/.-]){re.escape(name)}(?![\w-])", block):
        mentions = re.findall(r"(?<![\w-])([a-z_]+)/", block[: found.start()])
        if mentions and mentions[-1] == package:
            return True
    return False


# One test a kind of module, each naming every module docs/modules.md misses (a test a module
# was about 6 ms of pytest's own CPU, for some 370 modules).


def test_every_python_module_is_named() -> None:
    doc = DOC.read_text()
    missing = [f"playground/{module}" for module in python_modules() if not is_named(module, doc)]
    assert missing == [], "docs/modules.md does not name these"


def test_every_development_tool_is_named() -> None:
    doc = DOC.read_text()
    tools = sorted((ROOT / "tools").glob("[!_]*.py"))
    missing = [f"tools/{module.name}" for module in tools if f"tools/{module.name}" not in doc]
    assert missing == [], "docs/modules.md does not name these"


def test_every_page_module_is_named() -> None:
    doc = DOC.read_text()
    missing = [module for module in page_modules() if not _word(Path(module).name, doc)]
    assert missing == [], "docs/modules.md does not name these"
