"""Make sure Debian's Chromium is installed before the browser tests run.

Run as ``python -m tests.browser.ensure_chromium`` (the README's test line does). The browser
tests drive ``/usr/bin/chromium`` with Playwright and are never skipped, so a machine without it
gets it installed here (as root, or through passwordless sudo) or a clear instruction.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

from tests.browser.conftest import CHROMIUM


def main() -> int:
    if CHROMIUM.exists():
        return 0
    if shutil.which("apt-get") is None:
        print(
            f"{CHROMIUM} is missing and this is not a Debian-like system: install Chromium there."
        )
        return 1
    prefix: list[str] = []
    if os.geteuid() != 0:
        if shutil.which("sudo") is None:
            print(
                f"{CHROMIUM} is missing: run `sudo apt-get install chromium` as an administrator."
            )
            return 1
        prefix = ["sudo", "-n"]
    print("Installing Debian's chromium for the browser tests (apt-get)…", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for command in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "chromium"]):
        if subprocess.run([*prefix, *command], env=env, stdout=subprocess.DEVNULL).returncode:
            print(f"`{' '.join(command)}` failed: install chromium with apt-get and run again.")
            return 1
    return 0 if CHROMIUM.exists() else 1


if __name__ == "__main__":
    sys.exit(main())
