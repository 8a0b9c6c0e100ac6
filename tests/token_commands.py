"""A real token command for tests: a Python script printing a new token each run."""

from __future__ import annotations

import sys
from pathlib import Path


def token_command(tmp_path: Path, *, expires_in: int = 600) -> str:
    """A command printing ``tok-1``, ``tok-2``… (one more each run) as Google's token endpoint
    writes one: ``{"access_token", "expires_in"}``."""
    script = tmp_path / "token.py"
    script.write_text(
        "import json, pathlib\n"
        f"count = pathlib.Path({str(tmp_path / 'count')!r})\n"
        "n = int(count.read_text()) + 1 if count.exists() else 1\n"
        "count.write_text(str(n))\n"
        f"print(json.dumps({{'access_token': f'tok-{{n}}', 'expires_in': {expires_in}}}))\n"
    )
    return f"{sys.executable} {script}"
