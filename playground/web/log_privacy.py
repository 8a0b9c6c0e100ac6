"""Keep share tokens out of the logs: an access log line names a share by its hint only.

Rule: a share link's token is a password (``sharing``), and access logs are read by more people
than the owner, so every ``/s/<token>/`` a log line would name is cut to the token's first
``HINT_CHARS`` characters (the hint the shares page shows) and an ellipsis. Two doors write such
lines: the ``django.channels.server`` logger of ``manage.py runserver`` and Django's
``django.request`` warnings (:class:`MaskShareTokens`, set in ``LOGGING``), and the access log
of the Daphne command line, wrapped by ``playground.serve`` (:func:`masking_action_logger`).
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

__all__ = ["MaskShareTokens", "mask_share_tokens", "masking_action_logger"]

#: Keep in step with ``sharing.HINT_CHARS`` (not imported: this module loads before Django).
HINT_CHARS = 6
_SHARE_PATH_RE = re.compile(r"(/s/)([^/\s\"?#]+)")

ActionLogger = Callable[[str, str, dict[str, Any]], None]


def _masked(match: re.Match[str]) -> str:
    token = match.group(2)
    return f"{match.group(1)}{token[:HINT_CHARS] if len(token) > HINT_CHARS else ''}…"


def mask_share_tokens(text: str) -> str:
    """``text`` with every share path's token cut to its hint."""
    return _SHARE_PATH_RE.sub(_masked, text) if "/s/" in text else text


class MaskShareTokens(logging.Filter):
    """A logging filter: rewrites a record whose message names a share path."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        masked = mask_share_tokens(message)
        if masked != message:
            record.msg, record.args = masked, None
        return True


def masking_action_logger(action_logger: ActionLogger) -> ActionLogger:
    """Wrap Daphne's action logger (its access log) so the paths it writes are masked."""

    def log(protocol: str, action: str, details: dict[str, Any]) -> None:
        if isinstance(details.get("path"), str):
            details = {**details, "path": mask_share_tokens(details["path"])}
        action_logger(protocol, action, details)

    return log
