"""Make sure the programs the tests drive are installed: Chromium, redis-server, nginx, openssl,
faketime (hosts with clocks off), and the pinned esbuild, TypeScript, happy-dom and MCP
server-everything.

Run as ``python -m tests.ensure_tools`` (the README's test line does). The tests that need them
are never skipped (browser tests drive ``/usr/bin/chromium-headless-shell``; the Redis,
multi-process and proxy tests start their own ``redis-server`` and ``nginx``), so a machine
without one gets Debian's package installed here (as root, or through passwordless sudo) or a
clear instruction. esbuild and TypeScript come from the npm registry into a cache folder
(``tools/npm_tools.py``): the test that the committed bundle is current builds it again, and
``tests/test_js_types.py`` runs ``tsc``. happy-dom, the DOM of the component tests under Node
(``tests/js/``, run by ``node --test`` in ``tests/test_js_units.py``), comes the same way, which
is why the README's test line runs this before pytest; so does promptfoo's CLI, which runs a
grid's exported config in ``tests/test_promptfoo_cli.py``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from tests.browser.conftest import HEADLESS_SHELL
from tests.mcp_support import EVERYTHING_VERSION, install_everything
from tests.oidc_support import OIDC_PROVIDER
from tools.npm_tools import HAPPY_DOM, PROMPTFOO, TYPESCRIPT, NpmToolError
from tools.page_bundle import ESBUILD_VERSION, BundleError, install_esbuild


@dataclass(frozen=True)
class Tool:
    program: str  # an absolute path, or a name looked up on PATH and in /usr/sbin
    package: str  # Debian's package that provides it
    used_by: str

    def present(self) -> bool:
        if os.path.isabs(self.program):
            return Path(self.program).exists()
        path = f"{os.environ.get('PATH', '')}:/usr/sbin:/sbin"
        return shutil.which(self.program, path=path) is not None


TOOLS = (
    Tool(
        program=str(HEADLESS_SHELL), package="chromium-headless-shell", used_by="the browser tests"
    ),
    Tool(program="redis-server", package="redis-server", used_by="the Redis tests"),
    Tool(program="nginx", package="nginx", used_by="the proxy test (docs/deploy/nginx.conf)"),
    Tool(program="openssl", package="openssl", used_by="the proxy test's TLS certificate"),
    Tool(program="faketime", package="faketime", used_by="the clock-skew test (hosts' clocks off)"),
)


def main() -> int:
    debian = _debian_tools()
    try:
        install_esbuild()
    except BundleError as exc:
        print(f"esbuild {ESBUILD_VERSION} (the bundle's test): {exc}")
        return 1
    try:
        TYPESCRIPT.install()
    except NpmToolError as exc:
        print(f"typescript {TYPESCRIPT.version} (the JS type check, tests/test_js_types.py): {exc}")
        return 1
    try:
        HAPPY_DOM.install()
    except NpmToolError as exc:
        print(f"happy-dom {HAPPY_DOM.version} (the component tests under Node, tests/js/): {exc}")
        return 1
    try:
        OIDC_PROVIDER.install()
    except NpmToolError as exc:
        print(f"oidc-provider {OIDC_PROVIDER.version} (the sign-in tests): {exc}")
        return 1
    try:
        PROMPTFOO.install()
    except NpmToolError as exc:
        print(f"promptfoo {PROMPTFOO.version} (tests/test_promptfoo_cli.py): {exc}")
        return 1
    try:
        install_everything()
    except NpmToolError as exc:
        print(f"MCP server-everything {EVERYTHING_VERSION} (the MCP tests): {exc}")
        return 1
    return debian


def _debian_tools() -> int:
    missing = [tool for tool in TOOLS if not tool.present()]
    if not missing:
        return 0
    packages = " ".join(tool.package for tool in missing)
    if shutil.which("apt-get") is None:
        for tool in missing:
            print(f"{tool.program} is missing ({tool.used_by}); this is not a Debian-like system")
        print(f"install {packages} there, then run again.")
        return 1
    prefix: list[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            print(f"missing: run `sudo apt-get install {packages}` as an administrator.")
            return 1
        prefix = ["sudo", "-n"]
    print(f"Installing Debian's {packages} for the tests (apt-get)…", flush=True)
    # The tests start their own redis-server and nginx on free loopback ports and never use
    # the services these packages may start.
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    install = ["apt-get", "install", "-y", "-qq", *packages.split()]
    for command in (["apt-get", "update", "-qq"], install):
        if subprocess.run([*prefix, *command], env=env, stdout=subprocess.DEVNULL).returncode:
            print(f"`{' '.join(command)}` failed: install {packages} with apt-get and run again.")
            return 1
    still = [tool.program for tool in TOOLS if not tool.present()]
    if still:
        print(f"still missing after apt-get: {', '.join(still)}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
