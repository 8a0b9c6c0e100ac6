"""The pinned JavaScript tools, installed from the npm registry into a cache folder of their own.

Rule: each tool is one :class:`NpmTool` (package, exact version, program), installed once with
``npm install --prefix`` into :data:`TOOL_CACHE` ``/<package>-<version>`` and run from there;
nothing is installed globally or into the project. esbuild makes the page bundle
(``tools.page_bundle``), TypeScript's ``tsc`` checks the pure modules' JSDoc types
(``tests/test_js_types.py``), happy-dom is the DOM the components are tested in under Node
(``tests/js/dom-support.mjs``), promptfoo's CLI runs an exported grid
(``tests/test_promptfoo_cli.py``, ``benchmarks/grid.py``); ``python -m tests.ensure_tools``
installs them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

#: Where the tools go: the user's cache folder (``$XDG_CACHE_HOME``, else ``~/.cache``).
TOOL_CACHE = (
    Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "messages-playground"
)

__all__ = ["HAPPY_DOM", "PROMPTFOO", "TOOL_CACHE", "TYPESCRIPT", "NpmTool", "NpmToolError"]


class NpmToolError(Exception):
    """npm is missing, or the install failed."""


@dataclass(frozen=True)
class NpmTool:
    package: str
    version: str
    program: str
    #: A library has no program: the file under ``node_modules`` that is imported instead.
    entry: str = ""

    def folder(self) -> Path:
        return TOOL_CACHE / f"{self.package}-{self.version}"

    def path(self) -> Path:
        modules = self.folder() / "node_modules"
        return modules / self.entry if self.entry else modules / ".bin" / self.program

    def install(self) -> Path:
        """The program, installed first if it is not there yet."""
        path = self.path()
        if path.exists():
            return path
        npm = shutil.which("npm")
        if npm is None:
            raise NpmToolError(f"npm not found: {self.package} comes from the npm registry")
        folder = self.folder()
        folder.mkdir(parents=True, exist_ok=True)
        command = [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund"]
        command.append(f"{self.package}@{self.version}")
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode or not path.exists():
            raise NpmToolError(f"`{' '.join(command)}` failed:\n{done.stderr[-2000:]}")
        return path


#: ``tsc``, for the JSDoc types of the pure modules (``tsconfig.json``): the last release of
#: the JavaScript compiler line (5.x; 7 is the native port).
TYPESCRIPT = NpmTool(package="typescript", version="5.9.3", program="tsc")

#: The DOM the components are tested in under Node (``tests/js/dom-support.mjs``, which names
#: the same version): a library, no program.
HAPPY_DOM = NpmTool(
    package="happy-dom", version="21.0.4", program="", entry="happy-dom/lib/index.js"
)

#: promptfoo's CLI, the runner an exported grid is checked against (``tests/test_promptfoo_cli.py``)
#: and measured beside (``benchmarks/grid.py``): 0.121.20 is the newest that runs on Node 20
#: (later releases need Node 22).
PROMPTFOO = NpmTool(package="promptfoo", version="0.121.20", program="promptfoo")
