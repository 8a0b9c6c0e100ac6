"""The app pages' modules as a few files: ``python -m tools.page_bundle [--check]``.

Rule: the conversation and home pages load ``static/playground/dist/``, made here by esbuild
(pinned: :data:`ESBUILD_VERSION`) from ``static/playground/app.js`` and what it imports, never
edited by hand; ``templates/playground/_modulepreload.html`` is made with it (the entry's script
tag, then a preload of every chunk the open evaluates, in that order).
``tests/test_page_bundle.py`` fails when either is not what this makes from the sources. The
sources stay the modules the Node tests import; the share page still loads its own.

Why: a page fetches each ES module in its own request, six at a time over HTTP/1.1, and every
request costs the renderer, the browser process and the server a little. The 48 modules of an
open were about 150 ms of a 500-turn conversation's open and 20 % of the main thread's CPU on a
2-core machine (``benchmarks/long_conversation.py``, docs/benchmarks.md); bundled they are 11.

The shape keeps what ``app.js`` is for: each of its ``import()`` stays a chunk of its own
(``--splitting``), evaluated in a task of its own, so the open is never one long evaluation;
code shared by the parts goes to shared chunks; every module imported with ``import()``
(highlight.js and its grammars, the debugger's tools, the diff views) is an entry of its own,
fetched on first use under its own path. Licence comments are kept (``--legal-comments``).
"""

from __future__ import annotations

import argparse
import filecmp
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

# What the server's start checks of the bundle (no esbuild): the digests are defined there.
from playground.bundle_freshness import DIST, ROOT, SOURCES, digest
from tools.npm_tools import NpmTool, NpmToolError

STATIC = ROOT / "static"
ENTRY = "static/playground/app.js"
#: ``import("…")`` with a literal path: each module a page imports that way is an entry point of
#: its own, so it keeps its path under dist/ (a lazy part is fetched under its own name).
_DYNAMIC = re.compile(r"""\bimport\(\s*["']([^"']+)["']\s*\)""")
INCLUDE = ROOT / "templates/playground/_modulepreload.html"
ESBUILD_VERSION = "0.25.12"
#: The entry's file in dist/ (``--outbase=static``).
ENTRY_OUTPUT = "playground/app.js"

#: At the top of every file made: what it is, and the licences of what it holds (not every
#: vendored library marks its header as a licence comment, which esbuild would keep).
BANNER = (
    "// Made by `python -m tools.page_bundle` from static/playground/ (this project's,"
    " MIT) and static/vendor/\n// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js:"
    " BSD-3-Clause; each LICENSE is\n// beside it there). Do not edit."
)

_HEADER = """{% load static %}{% comment %}Made by `python -m tools.page_bundle` with the
bundle in static/playground/dist/: do not edit. The pages' entry first (a module script runs
after the document is parsed wherever it stands, so it is here, in the head, where it is fetched
first), then every chunk the open evaluates, in the order it does (each part app.js imports,
after the chunks it imports), so all are fetched at once instead of one import level at a time.
The lazily imported chunks are not listed: they are not part of the open.{% endcomment %}
"""


class BundleError(Exception):
    """esbuild is missing or failed."""


#: esbuild, unless ``PLAYGROUND_ESBUILD`` names one to use.
ESBUILD = NpmTool(package="esbuild", version=ESBUILD_VERSION, program="esbuild")


def esbuild_path() -> Path:
    """Where the pinned esbuild is: ``$PLAYGROUND_ESBUILD``, or the tool folder npm fills."""
    named = os.environ.get("PLAYGROUND_ESBUILD", "")
    if named:
        return Path(named)
    return ESBUILD.path()


def tool_folder() -> Path:
    return ESBUILD.folder()


def install_esbuild() -> Path:
    """Install the pinned esbuild from the npm registry into the tool folder (once)."""
    path = esbuild_path()
    if path.exists():
        return path
    if os.environ.get("PLAYGROUND_ESBUILD"):
        raise BundleError(f"PLAYGROUND_ESBUILD names {path}, which does not exist")
    try:
        return ESBUILD.install()
    except NpmToolError as exc:
        raise BundleError(f"the bundle is built with esbuild from the npm registry: {exc}") from exc


def entry_points() -> list[str]:
    """app.js and every module a module under static/playground/ imports with ``import()``."""
    found = {ENTRY}
    for source in sorted((STATIC / "playground").rglob("*.js")):
        if DIST in source.parents:
            continue
        for spec in _DYNAMIC.findall(source.read_text(encoding="utf-8")):
            if spec.startswith("."):
                found.add(str((source.parent / spec).resolve().relative_to(ROOT)))
    return sorted(found)


def build(out: Path) -> list[str]:
    """Build the bundle into ``out`` (emptied first); the chunks the open evaluates, in order."""
    esbuild = esbuild_path()
    if not esbuild.exists():
        raise BundleError(f"{esbuild} is missing: run `python -m tools.page_bundle --install`")
    if out.exists():
        shutil.rmtree(out)
    with tempfile.TemporaryDirectory() as scratch:
        meta_file = Path(scratch) / "meta.json"
        command = [
            str(esbuild),
            *entry_points(),
            "--bundle",
            "--splitting",
            "--format=esm",
            "--target=es2022",  # top-level await (app.js), class fields
            f"--outdir={out}",
            "--outbase=static",  # dist/playground/app.js, dist/vendor/highlightjs/core.min.js
            "--entry-names=[dir]/[name]",
            "--chunk-names=chunk-[hash]",
            "--legal-comments=inline",
            f"--banner:js={BANNER}",
            f"--metafile={meta_file}",
            "--log-level=warning",
        ]
        # From the project's root: the paths esbuild writes into the bundle's comments are
        # relative to it, the same on every machine.
        done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
        if done.returncode:
            raise BundleError(f"esbuild failed:\n{done.stderr[-4000:]}")
        meta = json.loads(meta_file.read_text(encoding="utf-8"))
    manifest = {
        "esbuild": ESBUILD_VERSION,
        "sources": {path: digest(path) for path in sorted(meta["inputs"])},
    }
    (out / SOURCES).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
    return _open_order(meta, out)


def _open_order(meta: dict, out: Path) -> list[str]:
    """The entry's dynamic imports in its order, each after the chunks it imports statically
    (paths relative to ``out``)."""

    def key(path: str) -> str:
        return (ROOT / path).resolve().relative_to(out.resolve()).as_posix()

    outputs = {key(name): output for name, output in meta["outputs"].items()}
    order: list[str] = []

    def visit(name: str) -> None:
        if name in order:
            return
        for imported in outputs[name].get("imports", []):
            if imported["kind"] == "import-statement":
                visit(key(imported["path"]))
        order.append(name)

    for imported in outputs[ENTRY_OUTPUT].get("imports", []):
        if imported["kind"] == "dynamic-import":
            visit(key(imported["path"]))
    return order


def include_for(order: list[str]) -> str:
    lines = [_HEADER.rstrip("\n")]
    lines.append(
        f"""<script type="module" src="{{% static 'playground/dist/{ENTRY_OUTPUT}' %}}"></script>"""
    )
    lines += [
        f"""<link rel="modulepreload" href="{{% static 'playground/dist/{name}' %}}">"""
        for name in order
    ]
    return "\n".join(lines) + "\n"


def differences(out: Path, include: str) -> list[str]:
    """What differs between a fresh build (``out``, ``include``) and the committed files."""
    made, committed = _files(out), _files(DIST)
    found = [f"not committed: dist/{name}" for name in sorted(made - committed)]
    found += [f"no longer made: dist/{name}" for name in sorted(committed - made)]
    found += [
        f"differs: dist/{name}"
        for name in sorted(made & committed)
        if not filecmp.cmp(out / name, DIST / name, shallow=False)
    ]
    if not INCLUDE.exists() or INCLUDE.read_text(encoding="utf-8") != include:
        found.append(f"differs: {INCLUDE.relative_to(ROOT)}")
    return found


def _files(folder: Path) -> set[str]:
    if not folder.exists():
        return set()
    return {path.relative_to(folder).as_posix() for path in folder.rglob("*") if path.is_file()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--check", action="store_true", help="only say whether it is current")
    parser.add_argument("--install", action="store_true", help="install the pinned esbuild")
    args = parser.parse_args(argv)
    try:
        if args.install:
            print(f"esbuild {ESBUILD_VERSION}: {install_esbuild()}")
            return 0
        if args.check:
            with tempfile.TemporaryDirectory() as scratch:
                out = Path(scratch) / "dist"
                found = differences(out, include_for(build(out)))
            for line in found:
                print(line)
            print("current" if not found else "stale: run `python -m tools.page_bundle`")
            return 1 if found else 0
        order = build(DIST)
        INCLUDE.write_text(include_for(order), encoding="utf-8")
    except BundleError as exc:
        print(exc, file=sys.stderr)
        return 2
    print(f"wrote {DIST.relative_to(ROOT)} ({len(order)} chunks at open) and {INCLUDE.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
