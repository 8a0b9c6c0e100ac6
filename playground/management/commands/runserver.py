"""``manage.py runserver``: Daphne's, with a graceful stop under the autoreloader too.

Rule: a stop signal (SIGTERM, SIGINT) always becomes ``reactor.stop()`` in the server's
reactor, so the app's "before shutdown" trigger (``playground.runs.lifecycle``) saves every live run
before the process exits. Daphne's own signal handlers do that with ``--noreload``. Under the
autoreloader Django runs the server in a daemon thread without signal handlers, turns SIGTERM
into a bare ``sys.exit`` (the thread dies mid-run) and, in the parent, SIGKILLs the child on
any signal. So here the parent forwards a stop signal to the child and waits for it, and the
child unwinds its reloader loop once, stops the reactor from outside and joins the server
thread (a second signal is ignored: the first one is already being honoured).

Static files are the application's own (``playground.web.static_files``, in every mode), not
Django's ``ASGIStaticFilesHandler`` that Daphne's runserver puts in front in debug: that one
serves each file through Django's request handling, a thread hop and the request signals
(~5 ms a file, and a page fetches ~55 at open), and without the app's security headers.

The built-in simulator is served by this same server, so unless ``PLAYGROUND_SIMULATOR_URL``
names it the relay reaches it where this server listens (``runserver 8080`` would otherwise
send every simulator run to port 8000, the default, and fail it with a connect error): each
process that serves (the autoreloader's child, or this one with ``--noreload``) tells the
settings its address (``settings.serve_simulator_at``), which read and write the environment.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
from types import FrameType
from typing import Any

from daphne.management.commands.runserver import Command as DaphneRunserver
from daphne.management.commands.runserver import get_default_application
from django.conf import settings
from django.utils import autoreload

from playground import settings as project_settings
from playground.serve import simulator_url_at

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)
#: The exit code with which the child asks its parent for a restart (code changed).
RELOAD = 3


class _Stop(Exception):
    """Raised by the child's first stop signal to unwind the reloader loop."""


class Command(DaphneRunserver):
    def get_application(self, options: dict[str, Any]) -> Any:
        return get_default_application()

    def run(self, **options: Any) -> None:
        if not options["use_reloader"]:
            project_settings.serve_simulator_at(simulator_url_at(self.addr, self.port))
            self.inner_run(None, **options)
        elif project_settings.autoreload_child():
            project_settings.serve_simulator_at(simulator_url_at(self.addr, self.port))
            sys.exit(self._child(**options))
        else:
            sys.exit(self._parent())

    def _parent(self) -> int:
        """Start the server process, again after each code change; forward a stop to it."""
        env = project_settings.autoreload_child_environment()
        while True:
            child = subprocess.Popen(autoreload.get_child_arguments(), env=env, close_fds=False)

            def forward(signum: int, frame: FrameType | None, child: Any = child) -> None:
                child.send_signal(signal.SIGTERM)

            previous = {number: signal.signal(number, forward) for number in STOP_SIGNALS}
            try:
                code = child.wait()  # resumed after each handler (PEP 475)
            finally:
                for number, handler in previous.items():
                    signal.signal(number, handler)
            if code != RELOAD:
                return code

    def _child(self, **options: Any) -> int:
        stopping = threading.Event()

        def on_signal(signum: int, frame: FrameType | None) -> None:
            if not stopping.is_set():
                stopping.set()
                raise _Stop

        for number in STOP_SIGNALS:
            signal.signal(number, on_signal)
        autoreload.ensure_echo_on()
        server = threading.Thread(
            target=autoreload.check_errors(self.inner_run),
            args=(None,),
            kwargs=options,
            name="django-main-thread",
            daemon=True,
        )
        reloader = autoreload.get_reloader()
        code = 0
        server.start()
        try:
            while not reloader.should_stop:
                reloader.run(server)
        except _Stop:
            pass
        except SystemExit as exc:  # a code change: the reloader asks for a restart
            code = exc.code if isinstance(exc.code, int) else RELOAD
        stopping.set()
        _stop_reactor(server)
        return code


def _stop_reactor(server: threading.Thread) -> None:
    """Stop the reactor from outside its thread, and wait while it saves the live runs."""
    # Installed by daphne.server, which Daphne's runserver imported before this runs.
    from twisted.internet import reactor

    if not server.is_alive():
        return
    # zope's interface methods are declared without self: mypy reads them one argument off.
    reactor.callFromThread(reactor.stop)  # type: ignore[misc]
    # The drain is bounded (grace, then a few seconds per phase); this only guards a hang.
    server.join(timeout=settings.PLAYGROUND_SHUTDOWN_GRACE_SECONDS + 30)
