"""The validator's bundle is what ``tools/vendor_bundle.py`` makes from the vendored modules.

Rule: ``static/vendor/cfworker-json-schema/bundle.js`` is generated, never edited: it must not
diverge from the package's modules beside it. The transform refuses what it cannot join safely;
the bundle exports what the package's ``index.js`` does (checked in Node, the page's engine).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from tools.vendor_bundle import BUNDLE, FOLDER, BundleError, bundle


def test_the_committed_bundle_is_what_the_vendored_modules_make() -> None:
    assert (FOLDER / BUNDLE).read_text(encoding="utf-8") == bundle(), (
        "run: .venv/bin/python -m tools.vendor_bundle"
    )


def test_the_bundle_exports_what_the_package_index_does() -> None:
    script = (
        "const names = async (f) => Object.keys(await import(f)).sort();"
        f"Promise.all([names({json.dumps(str(FOLDER / 'index.js'))}),"
        f" names({json.dumps(str(FOLDER / BUNDLE))})])"
        ".then((both) => console.log(JSON.stringify(both)));"
    )
    node = shutil.which("node")
    if node is None:
        pytest.fail("node not found: the JS checks need Node 20 (apt-get install nodejs)")
    out = subprocess.run([node, "-e", script], capture_output=True, text=True, check=True)
    index, bundled = json.loads(out.stdout)
    assert bundled == index
    assert "validate" in bundled


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "cfworker-json-schema"
    shutil.copytree(FOLDER, folder)
    return folder


def test_two_modules_declaring_one_name_are_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    with (folder / "pointer.js").open("a", encoding="utf-8") as module:
        module.write("function validate() {}\n")
    with pytest.raises(BundleError, match="validate is declared"):
        bundle(folder)


def test_an_import_it_cannot_join_is_refused(tmp_path: Path) -> None:
    folder = _copy(tmp_path)
    text = (folder / "validator.js").read_text(encoding="utf-8")
    (folder / "validator.js").write_text("import * as all from './pointer.js';\n" + text)
    with pytest.raises(BundleError, match="validator.js"):
        bundle(folder)
