"""ASGI entry point: static files first (``playground.web.static_files``), other HTTP through
Django (the simulator's event streams sent past it: ``playground.simulator.streaming``);
WebSockets behind an Origin check (scheme, host and port, as Django's CSRF check:
``playground.web.origin``) and auth."""

from __future__ import annotations

import gc
import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")

# Django must be set up before anything imports models (the consumers do).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from playground.routing import websocket_urlpatterns  # noqa: E402
from playground.runs.lifecycle import Lifecycle  # noqa: E402
from playground.simulator.streaming import StreamHandoff  # noqa: E402
from playground.web.origin import SameOriginValidator  # noqa: E402
from playground.web.socket_auth import socket_auth_stack  # noqa: E402
from playground.web.static_files import StaticFiles  # noqa: E402

# Everything loaded so far (Django, the app, their modules and caches) lives as long as the
# process: move it out of the collector's generations, so a full collection no longer walks
# those hundreds of thousands of objects. Under 100 live streams full collections paused the
# loop for 15-55 ms each and made the tail of the relay's delay (docs/benchmarks.md, Relay).
# A larger first generation (10,000 allocations, not 700) collects less often: each event
# allocates short-lived objects that reference counting frees anyway.
gc.freeze()
gc.set_threshold(10_000, 10, 10)

application = ProtocolTypeRouter(
    {
        "http": StaticFiles(StreamHandoff(django_asgi_app)),
        "websocket": SameOriginValidator(socket_auth_stack(URLRouter(websocket_urlpatterns))),
    }
)
# Outermost: recovery before the first request, and a graceful stop under Daphne.
application = Lifecycle(application)
