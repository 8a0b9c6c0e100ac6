"""Whether the committed page bundle was made from the sources here: a check that needs no
esbuild, for the server's start (``manage.py check``, ``apps.bundle_is_current``).

Rule: the bundle (``static/playground/dist/``) is made by ``python -m tools.page_bundle``, a
development tool outside this package, which records each source's :func:`digest` in
``dist/sources.json``; this module only reads that record and digests the sources again. The
digest is defined here, once, and the tool imports it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DIST = ROOT / "static/playground/dist"
#: In dist/: each source's digest as the bundle was made from it.
SOURCES = "sources.json"


def digest(path: str) -> str:
    """A source's digest (``path`` from the project's root), as ``dist/sources.json`` keeps it."""
    return hashlib.sha256((ROOT / path).read_bytes()).hexdigest()[:16]


def stale_sources() -> list[str]:
    """The sources (paths from the root) that changed, appeared in no build or went away since
    the committed bundle was made, by the digests it was made with."""
    dist = DIST
    try:
        recorded = json.loads((dist / SOURCES).read_text(encoding="utf-8"))["sources"]
    except (OSError, ValueError, KeyError):
        return [str((dist / SOURCES).relative_to(ROOT))]
    changed = []
    for path, made_from in sorted(recorded.items()):
        try:
            if digest(path) == made_from:
                continue
        except OSError:  # gone
            pass
        changed.append(path)
    return changed
