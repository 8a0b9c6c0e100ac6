"""Serve the playground with Daphne, set up from settings: ``python -m playground.serve``.

Rule: the server's WebSocket message limit follows ``PLAYGROUND_MAX_FRAME_BYTES`` (Daphne's own
default, 1 MiB, would drop bigger frames itself, with no answer, before the consumer could say
``too_large``), and its access log masks share tokens (``log_privacy``). Every argument is
Daphne's (``-b 127.0.0.1 -p 8000``, ``--fd``, ``--proxy-headers`` ...); the application is this
one. ``manage.py runserver`` follows the same settings through ``DAPHNE_WEBSOCKET_MAX_*``.
Unless ``PLAYGROUND_SIMULATOR_URL`` is set, the built-in simulator is reached at the address
given with ``-b``/``-p`` (``listening_url``, told to ``settings.serve_simulator_at``), as
``runserver`` does with its own.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib
import logging
import os
import sys
from typing import Any

try:
    import sniffio
except ModuleNotFoundError:  # not a dependency: see name_the_loop
    sniffio = None  # type: ignore[assignment]
from daphne.cli import CommandLineInterface
from daphne.server import Server

from playground.web.log_privacy import masking_action_logger

APPLICATION = "playground.asgi:application"

logger = logging.getLogger(__name__)

#: Start-up recovery that fails (the database not up yet) is tried again, up to this far apart.
RECOVERY_RETRY_MAX_SECONDS = 30.0


class PlaygroundServer(Server):
    """Daphne's server with a masking access log, which stops accepting before it stops.

    On SIGTERM it first closes its listening sockets, then drains (``runs.lifecycle``): a
    proxy's next connection is refused here and goes to another process at once, while the
    requests and sockets already here are answered, each HTTP answer the last on its kept-alive
    connection. Daphne alone kept accepting through the drain and then closed every connection,
    with a request a proxy had just sent on one.
    """

    def __init__(self, *args: Any, action_logger: Any = None, **kwargs: Any) -> None:
        if action_logger is not None:
            action_logger = masking_action_logger(action_logger)
        super().__init__(*args, action_logger=action_logger, **kwargs)
        self.ports: list[Any] = []
        self.stopping = False

    def run(self) -> None:
        from twisted.internet import reactor  # Daphne's asyncio reactor, installed by now

        # Registered before Daphne's own trigger (in ``run``), so it is the first to fire.
        # zope's interface methods are declared without self: mypy reads them one argument off.
        reactor.addSystemEventTrigger(
            "before",
            "shutdown",  # type: ignore[arg-type]
            self.stop_accepting,
        )
        reactor.callWhenRunning(self.recover_now)
        reactor.callWhenRunning(lambda: asyncio.ensure_future(_write_at_once(reactor)))
        reactor.callWhenRunning(name_the_loop)
        try:
            super().run()
        finally:
            if sniffio is not None:
                sniffio.thread_local.name = None

    def recover_now(self) -> None:
        """Recover at start, not at the first request: a process restarted after a crash frees
        its dead predecessor's runs (and starts renewing leases and sweeping) at once, though no
        request may reach it for a while (``runs.lifecycle`` still awaits it before the first)."""
        self.recovery = asyncio.ensure_future(_recover_until_done())

    def listen_success(self, port: Any) -> None:
        self.ports.append(port)
        super().listen_success(port)

    def create_application(self, protocol: Any, scope: dict[str, Any]) -> Any:
        if self.stopping and scope["type"] == "http":
            _last_on_its_connection(protocol)
        return super().create_application(protocol, scope)

    def stop_accepting(self) -> Any:
        from twisted.internet import defer

        self.stopping = True
        for protocol in list(self.connections):
            _last_on_its_connection(protocol)
        return defer.gatherResults([defer.maybeDeferred(port.stopListening) for port in self.ports])


def name_the_loop() -> None:
    """Tell sniffio, once the loop runs, that this thread runs asyncio until the server stops
    (``sniffio.thread_local``: its way for what runs a loop in a thread to say so).

    Why: httpcore enters anyio's ``fail_after`` around every network read of an upstream (even
    with no timeout: ``upstream/idle.py`` keeps it), and anyio asks sniffio for the running
    library there twice, which without this name imports asyncio and looks up the current
    task each time. Only this thread, where Daphne's reactor runs the asyncio loop for the
    process's life; the database threads are asked as before.

    sniffio is not a dependency: anyio uses it when something else installed it (the test
    extras' SDK does) and asks asyncio directly when it is absent, with nothing to name."""
    if sniffio is not None:
        sniffio.thread_local.name = "asyncio"


async def _recover_until_done() -> None:
    from playground.runs.manager import get_manager

    delay = 1.0
    while True:
        try:
            await get_manager().ensure_recovered()
            return
        except Exception as exc:
            logger.warning("start-up recovery failed (%s); trying again in %g s", exc, delay)
            await asyncio.sleep(delay)
            delay = min(2 * delay, RECOVERY_RETRY_MAX_SECONDS)


async def _write_at_once(reactor: Any) -> None:
    """The relay's frames leave in the callback that sent them (``Tick.write_now``), not on
    the reactor's next pass: see :class:`HeldWrites`. In the loop: its manager is the one its
    sockets use."""
    from playground.runs.manager import get_manager

    held = HeldWrites(reactor)
    tick = get_manager().tick
    if tick is not None:
        tick.write_now = held.write_now


class HeldWrites:
    """A transport given data is written by this process's next callback, not registered with
    the loop as a writer for the reactor's next pass over the sockets.

    Why: Twisted writes a transport's data only when the loop next finds its socket writable.
    Per frame that was an ``epoll_ctl`` to register the socket (``addWriter``, when given data),
    a wake-up of the loop, a callback in Twisted's log context, the write, and an ``epoll_ctl``
    to unregister it (``removeWriter``, when its data is out): 0.8 to 3.2 % of the app's CPU an
    event in the team benchmark (docs/benchmarks.md, Relay). Here a connected transport given data
    is held instead, and written (``doWrite``, what that pass would call) by :meth:`write_now`:
    at once after a tick's callbacks (``Tick.write_now``, where every socket's frame of the
    tick was sent) and, for anything else, by a callback of the loop's next turn, so no data
    waits longer than it did. A transport whose write leaves data (a full socket), fails, or
    that closes after its data (``disconnecting``) is registered with the reactor as before,
    which finishes the job its own way.
    """

    def __init__(self, reactor: Any) -> None:
        self._add = reactor.addWriter
        self._remove = reactor.removeWriter
        self._held: dict[Any, None] = {}  # in the order given data
        self._soon = False  # a callback of the loop's next turn is due
        self._writing: Any = None
        self._stopped = False  # the transport being written said its data is out
        reactor.addWriter = self.add_writer
        reactor.removeWriter = self.remove_writer

    def add_writer(self, writer: Any) -> None:
        """``reactor.addWriter``: held, if it is a connected transport and a loop runs."""
        if writer in self._held:
            return
        if not getattr(writer, "connected", False) or getattr(writer, "disconnecting", True):
            self._add(writer)
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._add(writer)
            return
        self._held[writer] = None
        if not self._soon:
            self._soon = True
            loop.call_soon(self._write_soon)

    def remove_writer(self, writer: Any) -> None:
        """``reactor.removeWriter``: its data is out (or it stops): held no more."""
        if writer is self._writing:
            self._stopped = True
        self._held.pop(writer, None)
        self._remove(writer)

    def _write_soon(self) -> None:
        self._soon = False
        self.write_now()

    def write_now(self) -> None:
        """Write every held transport's data now; what is left goes to the reactor."""
        held, self._held = self._held, {}
        for writer in held:
            if not getattr(writer, "connected", False):
                continue  # lost meanwhile: nothing to write
            if getattr(writer, "disconnecting", True):
                self._add(writer)
                continue
            self._writing, self._stopped = writer, False
            try:
                failed = writer.doWrite() is not None
            except Exception:
                logger.warning("writing a socket's frames at once failed", exc_info=True)
                failed = True
            finally:
                self._writing = None
            if failed or not self._stopped:
                self._add(writer)


def _last_on_its_connection(protocol: Any) -> None:
    """After this HTTP answer Twisted closes the kept-alive connection (a WebSocket, which has
    no ``channel``, is left to the drain): a proxy's next request then needs a new connection,
    which a stopping server refuses, so it goes to another process."""
    channel = getattr(protocol, "channel", None)
    if channel is not None:
        channel.persistent = False


class PlaygroundCommandLine(CommandLineInterface):
    server_class = PlaygroundServer


def listening_url(argv: list[str]) -> str | None:
    """The built-in simulator's URL where Daphne is told to listen (``-b``/``-p``; a wildcard
    address read as loopback): the app serves its own simulator, and the default (port 8000)
    would fail every simulator run on another port. A socket handed over (``--fd``, ``-u``, an
    endpoint) says nothing: None, and the default stays."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("-b", "--bind", default="127.0.0.1")
    parser.add_argument("-p", "--port", type=int, default=8000)  # Daphne's defaults
    parser.add_argument("-u", "--unix-socket", default=None)
    parser.add_argument("--fd", default=None)
    parser.add_argument("-e", "--endpoint", action="append", default=None)
    known, _ = parser.parse_known_args(argv)
    if known.unix_socket or known.fd or known.endpoint:
        return None
    return simulator_url_at(known.bind, known.port)


def url_host(bind: str) -> str:
    """The host part of a URL that reaches a server bound to ``bind`` from this machine: a
    wildcard address as loopback, an IPv6 address in brackets."""
    host = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(bind, bind) or "127.0.0.1"
    return f"[{host}]" if ":" in host else host


def simulator_url_at(bind: str, port: int | str) -> str:
    """The built-in simulator's URL on a server bound to ``bind``:``port``."""
    return f"http://{url_host(bind)}:{port}/simulator"


def daphne_arguments(argv: list[str]) -> list[str]:
    """Daphne's arguments: the limits from settings first, so one given in ``argv`` wins."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "playground.settings")
    from django.conf import settings

    from playground import settings as project_settings

    url = listening_url(argv)
    if url is not None:
        # Before Daphne loads the application: every request reads the settings as changed.
        project_settings.serve_simulator_at(url)

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


def plain_frame_log_arguments() -> None:
    """autobahn's WebSocket protocol colours the arguments of its debug lines before the logger
    drops them: three ``click.style`` calls and a qualified name looked up for every frame sent
    (``sendData``), about 2 % of the server's CPU per relayed event (docs/benchmarks.md, Relay).
    Here they are plain text, made only from what is at hand; the lines (and every level above
    debug) are as they were, uncoloured."""
    from autobahn.websocket import protocol

    protocol.hltype = _plain_type
    protocol.hlval = _plain_value


def _plain_type(obj: Any) -> str:
    return f"<{getattr(obj, '__qualname__', type(obj).__qualname__)}>"


def _plain_value(val: Any, color: str = "white", bold: bool = True) -> str:
    return str(val)


#: What a run's upstream read imports at its first use (httpx imports httpcore when it makes a
#: client's transport, httpcore its network backend at its first connection, anyio its asyncio
#: backend at its first primitive): imported when the process starts, not by the first send.
UPSTREAM_MODULES = (
    "httpcore",
    "httpcore._backends.auto",
    "httpcore._backends.anyio",
    "anyio._backends._asyncio",
)


def import_upstream_modules() -> None:
    """Import :data:`UPSTREAM_MODULES` now. Left to the first runs, those imports took about
    100 ms of CPU (compiled from source where no bytecode is cached) on the event loop, in the
    first sends' time to first token and the other sockets' frames of that moment."""
    for name in UPSTREAM_MODULES:
        importlib.import_module(name)


def main(argv: list[str] | None = None) -> None:
    plain_frame_log_arguments()
    import_upstream_modules()
    PlaygroundCommandLine().run(daphne_arguments(sys.argv[1:] if argv is None else argv))


if __name__ == "__main__":
    main()
