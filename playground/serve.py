"""Serve the playground with Daphne, set up from settings: ``python -m playground.serve``.

Rule: the server's WebSocket message limit follows ``PLAYGROUND_MAX_FRAME_BYTES`` (Daphne's own
default, 1 MiB, would drop bigger frames itself, with no answer, before the consumer could say
``too_large``), and its access log masks share tokens (``log_privacy``). Every argument is
Daphne's (``-b 127.0.0.1 -p 8000``, ``--fd``, ``--proxy-headers`` ...); the application is this
one. ``manage.py runserver`` follows the same settings through ``DAPHNE_WEBSOCKET_MAX_*``.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from daphne.cli import CommandLineInterface
from daphne.server import Server

from playground.web.log_privacy import masking_action_logger

APPLICATION = "playground.asgi:application"


class PlaygroundServer(Server):
    """Daphne's server with a masking access log."""

    def __init__(self, *args: Any, action_logger: Any = None, **kwargs: Any) -> None:
        if action_logger is not None:
            action_logger = masking_action_logger(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)


class PlaygroundCommandLine(CommandLineInterface):
    server_class = PlaygroundServer


def daphne_arguments(argv: list[str]) -> list[str]:
    """Daphne's arguments: the limits from settings first, so one given in ``argv`` wins."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    from django.conf import settings

    limit = str(settings.DAPHNE_WEBSOCKET_MAX_MESSAGE_SIZE)
    frame = str(settings.DAPHNE_WEBSOCKET_MAX_FRAME_SIZE)
    return [
        "--websocket-max-message-size",
        limit,
        "--websocket-max-frame-size",
        frame,
        *argv,
        APPLICATION,
    ]


def main(argv: list[str] | None = None) -> None:
    PlaygroundCommandLine().run(daphne_arguments(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
