"""The vendored JSON Schema validator as one module: ``python -m tools.vendor_bundle``.

Rule: the page loads ``static/vendor/cfworker-json-schema/bundle.js``, made here from the nine
modules beside it as published (``index.js`` and what it re-exports), never edited by hand:
``tests/test_vendor_bundle.py`` fails when the committed file is not what this makes from them.
Why: a page at open fetches each ES module in its own request, six at a time over HTTP/1.1,
and every round costs a few scheduler wake-ups in the browser and the server; these nine were
a sixth of the page's modules (docs/benchmarks.md, "Long conversations").

The transform is the smallest that keeps the module's meaning: each module's text in import
order (a module after those it imports), with its imports of its siblings removed; their
``export`` declarations stay, so the bundle exports what ``index.js`` re-exports (``export *``
of every sibling). It refuses modules it cannot join safely: an import it does not recognise,
or two modules declaring the same top-level name.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

FOLDER = Path(__file__).resolve().parent.parent / "static" / "vendor" / "cfworker-json-schema"
BUNDLE = "bundle.js"
ENTRY = "index.js"
_SIBLING_IMPORT = re.compile(r"^import \{[^}\n]*\} from '\./([\w-]+\.js)';\n", re.MULTILINE)
_REEXPORT = re.compile(r"^export \* from '\./([\w-]+\.js)';\n", re.MULTILINE)
_DECLARED = re.compile(r"^(?:export )?(?:const|let|var|function\*?|class) ([\w$]+)", re.MULTILINE)


class BundleError(Exception):
    """The vendored modules cannot be joined by this transform (see the module's rule)."""


def _ordered(folder: Path) -> list[str]:
    """Every module ``index.js`` re-exports, each after the siblings it imports."""
    order: list[str] = []

    def visit(name: str, path: tuple[str, ...]) -> None:
        if name in order:
            return
        if name in path:
            raise BundleError(f"import cycle through {name}")
        for imported in _SIBLING_IMPORT.findall((folder / name).read_text(encoding="utf-8")):
            visit(imported, (*path, name))
        order.append(name)

    for name in _REEXPORT.findall((folder / ENTRY).read_text(encoding="utf-8")):
        visit(name, ())
    return order


def bundle(folder: Path = FOLDER) -> str:
    """The text of ``bundle.js`` for the modules in ``folder``."""
    version = (folder / "VERSION").read_text(encoding="utf-8").strip()
    parts = [
        f"// @cfworker/json-schema {version} (MIT: LICENSE, THIRD_PARTY_NOTICES.md), the modules\n"
        "// beside this file joined by `python -m tools.vendor_bundle`. Do not edit.\n"
    ]
    declared: dict[str, str] = {}
    for name in _ordered(folder):
        text = _SIBLING_IMPORT.sub("", (folder / name).read_text(encoding="utf-8"))
        if re.search(r"^\s*(import|export .* from)\b", text, re.MULTILINE):
            raise BundleError(f"{name}: an import this transform does not join")
        for top in _DECLARED.findall(text):
            if top in declared:
                raise BundleError(f"{top} is declared in {declared[top]} and {name}")
            declared[top] = name
        parts.append(f"\n// {name}\n{text.rstrip()}\n")
    return "".join(parts)


def main() -> int:
    (FOLDER / BUNDLE).write_text(bundle(), encoding="utf-8")
    print(f"wrote {FOLDER / BUNDLE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
