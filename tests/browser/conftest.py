"""Browser fixtures: Debian's Chromium driven by Playwright, pages watched for anything unsafe.

Rule: a browser test fails (never skips) when Chromium (Debian's headless shell) is missing,
and fails when the page opened a dialog, threw, logged a console error or broke the
Content-Security-Policy, whatever its own assertions said. A failing test leaves a screenshot
in ``test-artifacts/``.

Fixtures: ``chromium_browser`` (session), ``new_page`` (a factory of watched pages, for any
URL, e.g. the live server's), ``harness_page`` (the render harness under the strict CSP, one
loaded page a worker whose turns are cleared between tests),
``shared_mcp_server`` (session: the MCP tests' app server, tests/browser/mcp_app.py),
``profiles_server`` (session: the profile tests' app server, tests/browser/profiles_app.py).
"""

from __future__ import annotations

import contextlib
import re
import urllib.parse
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Dialog,
    Error,
    Frame,
    Page,
    expect,
    sync_playwright,
)

from tests.browser.harness.server import serve_harness

# Defined once here so one shared MCP app server, and one with the profile tests' upstreams,
# serves every module's tests in a worker (a fixture imported into each test module would be one
# a module).
from tests.browser.mcp_app import shared_mcp_server
from tests.browser.profiles_app import profiles_server

__all__ = ["profiles_server", "shared_mcp_server"]

CHROMIUM = Path("/usr/bin/chromium")
#: What the tests drive: Debian's build of Chromium's headless shell, the same engine (Blink,
#: V8, the same version) without the full browser's UI layers; what Playwright itself runs
#: headless. The browser tests cost about 30 % less CPU on it (docs/benchmarks.md, The test line).
HEADLESS_SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
#: How long an action (a click, a wait for a selector) or an assertion (``expect``) waits for
#: its condition unless the test says: a bound for giving up, not a measure (a passing test never
#: waits it out). Playwright's own 5 s for assertions failed a condition that was coming (a
#: server's row removed: a POST and a reload of the list took 5.0-8.0 s in 5 of 10 rounds at
#: load 38 on two cores), and actions at 10 s took up to 5.8 s at load 30-40.
TIMEOUT_MS = 20_000
expect.set_options(timeout=TIMEOUT_MS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    # Fixtures read this at teardown to decide whether to keep a screenshot.
    item.stash.setdefault(_FAILED, False)
    if report.failed:
        item.stash[_FAILED] = True
    return report


_FAILED = pytest.StashKey[bool]()


def launch_chromium(playwright: Any, executable: Path = CHROMIUM) -> Browser:
    """Launch Debian's Chromium (never a downloaded build), or fail saying how to get it."""
    if not executable.exists():
        package = "chromium" if executable == CHROMIUM else executable.name
        pytest.fail(f"{executable} not found: install it with `apt-get install {package}`")
    return playwright.chromium.launch(executable_path=str(executable), args=CHROMIUM_ARGS)


@pytest.fixture(scope="session")
def chromium_browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        browser = launch_chromium(playwright, HEADLESS_SHELL)
        try:
            yield browser
        finally:
            _POOLS.clear()
            browser.close()


@dataclass
class PageWatch:
    """What a page did that no test should allow."""

    dialogs: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def attach(self, page: Page) -> None:
        page.on("dialog", self._on_dialog)
        page.on("console", self._on_console)
        page.on("pageerror", self._on_page_error)

    def detach(self, page: Page) -> None:
        page.remove_listener("dialog", self._on_dialog)
        page.remove_listener("console", self._on_console)
        page.remove_listener("pageerror", self._on_page_error)

    def clear(self) -> None:
        self.dialogs.clear()
        self.console_errors.clear()
        self.page_errors.clear()

    def _on_dialog(self, dialog: Dialog) -> None:
        self.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    def _on_page_error(self, error: Error) -> None:
        self.page_errors.append(str(error))

    def _on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            # Chromium's "Failed to load resource" names no address: the location has it.
            where = (message.location or {}).get("url", "")
            self.console_errors.append(f"{message.text} ({where})" if where else message.text)

    def problems(self, csp_violations: list[Any]) -> list[str]:
        found = [f"dialog opened: {d}" for d in self.dialogs]
        found += [f"page error: {e}" for e in self.page_errors]
        found += [f"console error: {e}" for e in self.console_errors]
        found += [f"CSP violation: {v}" for v in csp_violations]
        return found


class PagePool:
    """Browser pages kept from test to test, each in a context of its own.

    Why: a new context starts a new renderer process, and that (not the page's own work) is
    most of a page load's CPU: about 1.5 s of it on a 2-core machine, against 0.4 s for a page
    that navigates again. A page given back is left on a document that runs no script (on its
    server, so its renderer process stays: ``_leave_blank``), its context's cookies, storage (of
    every origin it visited), routes and our listeners cleared, so the next test's page starts
    as a new one would; two pages open in one test are still two contexts (two people). A page
    whose test left what cannot be cleared (a WebSocket route, a listener of its own) is closed
    instead: a route left behind would carry the next test's sockets through a dead test's relay.
    """

    def __init__(self, browser: Browser, init_script: str | None = None) -> None:
        self.browser = browser
        self.init_script = init_script
        self.free: list[Page] = []
        self.origins: dict[Page, set[str]] = {}
        self.listeners: dict[Page, dict[str, int]] = {}  # each page's own, as it was made

    def take(self, viewport: tuple[int, int] = (1280, 720), color_scheme: Any = None) -> Page:
        """A blank page (a new context's defaults: 1280x720, light) at ``viewport``."""
        page = self.free.pop() if self.free else self._new_page()
        page.set_viewport_size({"width": viewport[0], "height": viewport[1]})
        page.emulate_media(color_scheme=color_scheme or "light")  # a new context's default
        page.set_default_timeout(TIMEOUT_MS)
        return page

    def give_back(self, page: Page) -> None:
        """Blank ``page`` and keep it for the next test; a page that cannot be blanked is
        closed with its context instead."""
        origins = self.origins[page]
        try:
            if page.is_closed():
                raise Error("closed by its test")
            if not self._only_undoable_left(page):
                raise Error("its test left a WebSocket route or a listener")
            # Routes first: one could answer the blank document's request.
            page.context.unroute_all(behavior="ignoreErrors")
            page.unroute_all(behavior="ignoreErrors")
            _leave_blank(page)
            session = page.context.new_cdp_session(page)
            for origin in origins:
                session.send(
                    "Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"}
                )
            session.detach()
            page.context.clear_cookies()
        except Error:
            del self.origins[page]
            self.listeners.pop(page, None)
            with contextlib.suppress(Error):
                page.context.close()
            return
        origins.clear()
        self.free.append(page)

    def _only_undoable_left(self, page: Page) -> bool:
        """Whether the test left nothing ``give_back`` cannot clear.

        Playwright has no public way to drop WebSocket routes (``unroute_all`` keeps them) or to
        remove listeners it did not hand out, so this reads its private state; where that is
        not there (another Playwright), no page is reused rather than a dirty one.
        """
        try:
            page_impl, context_impl = page._impl_obj, page.context._impl_obj  # type: ignore[attr-defined]
            return (
                not page_impl._web_socket_routes
                and not context_impl._web_socket_routes
                and _listener_counts(page) == self.listeners[page]
            )
        except (AttributeError, KeyError):
            return False

    def _new_page(self) -> Page:
        context = self.browser.new_context()
        context.grant_permissions(["clipboard-read", "clipboard-write"])
        if self.init_script:
            context.add_init_script(self.init_script)
        page = context.new_page()
        self.origins[page] = set()
        page.on("framenavigated", lambda frame: self._visited(page, frame))
        with contextlib.suppress(AttributeError):
            self.listeners[page] = _listener_counts(page)
        return page

    def _visited(self, page: Page, frame: Frame) -> None:
        origin = urllib.parse.urlsplit(frame.url)
        if frame.parent_frame is None and origin.scheme in ("http", "https"):
            self.origins[page].add(f"{origin.scheme}://{origin.netloc}")


#: A document with no script of the app's, served by every app server.
BLANK_PATH = "/static/playground/favicon.svg"


def _leave_blank(page: Page) -> None:
    """Leave ``page`` on a document that runs nothing of its test's.

    On the origin it is on, where that is an app server (its static SVG): Chromium keeps the
    page's renderer process for a same-origin document, where about:blank swaps it, and the
    next test mostly loads the same server. A conversation page loaded and blanked cost 0.36 s
    of Chromium's CPU that way against 0.50 s through about:blank. Elsewhere, about:blank.
    """
    here = urllib.parse.urlsplit(page.url)
    if here.scheme in ("http", "https"):
        with contextlib.suppress(Error):  # a server its test stopped: about:blank then
            response = page.goto(f"{here.scheme}://{here.netloc}{BLANK_PATH}")
            served = response.headers.get("content-type", "") if response else ""
            if response is not None and response.ok and served.startswith("image/svg+xml"):
                return
    page.goto("about:blank")


def _listener_counts(page: Page) -> dict[str, int]:
    """How many listeners each event of ``page`` and of its context has (Playwright's own
    included)."""
    counts: dict[str, int] = {}
    for name, emitter in (("page", page), ("context", page.context)):
        impl = emitter._impl_obj  # type: ignore[attr-defined]
        for event in impl.event_names():
            if impl.listeners(event):  # an event whose last listener went may stay named
                counts[f"{name}:{event}"] = len(impl.listeners(event))
    return counts


_POOLS: dict[tuple[int, str | None], PagePool] = {}


def page_pool(browser: Browser, init_script: str | None = None) -> PagePool:
    """The session's pool of pages of ``browser`` that run ``init_script`` first."""
    key = (id(browser), init_script)
    if key not in _POOLS:
        _POOLS[key] = PagePool(browser, init_script)
    return _POOLS[key]


def _screenshot_name(nodeid: str) -> str:
    return re.sub(r"[^\w.-]+", "_", nodeid).strip("_")[:150] + ".png"


def screenshot_if_failed(request: pytest.FixtureRequest, pages: list[Page]) -> None:
    """Keep each page's screenshot in ``test-artifacts/`` when the test failed (at teardown,
    before the pages are given back)."""
    if not request.node.stash.get(_FAILED, False):
        return
    ARTIFACTS.mkdir(exist_ok=True)
    for index, page in enumerate(pages):
        name = _screenshot_name(f"{request.node.nodeid}-{index}")
        page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _csp_violations(page: Page) -> list[Any]:
    try:
        return page.evaluate("() => window.__pgHarness ? window.__pgHarness.violations : []")
    except Exception:  # the page may be gone or mid-navigation: the console still caught them
        return []


@pytest.fixture
def new_page(
    chromium_browser: Browser, request: pytest.FixtureRequest
) -> Iterator[Callable[[str], Page]]:
    """Open watched pages: ``page = new_page(url)``; checked and closed at teardown."""
    opened: list[tuple[Page, PageWatch]] = []

    pool = page_pool(chromium_browser)

    def open_page(url: str) -> Page:
        page = pool.take()
        watch = PageWatch()
        watch.attach(page)
        opened.append((page, watch))
        page.goto(url)
        return page

    yield open_page

    screenshot_if_failed(request, [page for page, _ in opened])
    problems: list[str] = []
    for page, watch in opened:
        problems += watch.problems(_csp_violations(page))
        watch.detach(page)
        pool.give_back(page)
    if problems:
        pytest.fail("the page misbehaved:\n" + "\n".join(problems))


@pytest.fixture(scope="session")
def harness_url() -> Iterator[str]:
    with serve_harness() as url:
        yield url


@dataclass
class SharedHarness:
    """The worker's loaded render harness page and the watch that never leaves it."""

    page: Page | None = None
    watch: PageWatch = field(default_factory=PageWatch)


#: Clears what a test put in the harness (its turns, its CSP violations, focus, scroll) and
#: answers what arrived since the last test's check: a payload that ran (``__pwned``) or a
#: violation after that test's end.
_RESET_HARNESS = """() => {
  const h = window.__pgHarness;
  const late = [...h.violations.map((v) => `CSP violation: ${JSON.stringify(v)}`)];
  if (window.__pwned !== undefined) late.push(`script ran: __pwned=${window.__pwned}`);
  delete window.__pwned;
  h.violations.length = 0;
  h.turns.length = 0;
  document.getElementById("turns").replaceChildren();
  document.activeElement?.blur?.();
  window.scrollTo(0, 0);
  return late;
}"""


@pytest.fixture(scope="session")
def shared_harness(chromium_browser: Browser) -> Iterator[SharedHarness]:
    shared = SharedHarness()
    yield shared
    if shared.page is not None:
        shared.watch.detach(shared.page)
        page_pool(chromium_browser).give_back(shared.page)


@pytest.fixture
def harness_page(
    shared_harness: SharedHarness,
    chromium_browser: Browser,
    harness_url: str,
    request: pytest.FixtureRequest,
) -> Iterator[Page]:
    """The render harness, loaded and ready (its modules imported under the strict CSP).

    One page a worker, not one a test: a render test's own work is a few milliseconds, a page
    load and its blanking most of its CPU. Between tests the harness is emptied through its
    own state (``_RESET_HARNESS``), the watch stays on, and what reached the page between two
    tests fails the next one; a test that failed or misbehaved leaves its page to the pool,
    and the next test loads a fresh one.
    """
    pool = page_pool(chromium_browser)
    page, watch = shared_harness.page, shared_harness.watch
    if page is None or page.is_closed():
        page = pool.take()
        watch = shared_harness.watch = PageWatch()
        watch.attach(page)
        page.goto(harness_url)
        page.wait_for_selector("html[data-ready='true']")
        shared_harness.page = page
    if page.viewport_size != {"width": 1280, "height": 720}:  # a new context's, as take() sets
        page.set_viewport_size({"width": 1280, "height": 720})
    late = page.evaluate(_RESET_HARNESS) + watch.problems([])
    watch.clear()
    if late:
        pytest.fail("the harness misbehaved after the previous test:\n" + "\n".join(late))

    yield page

    screenshot_if_failed(request, [page])
    problems = watch.problems(_csp_violations(page))
    if problems or request.node.stash.get(_FAILED, False):
        watch.detach(page)
        shared_harness.page = None
        pool.give_back(page)
    if problems:
        pytest.fail("the page misbehaved:\n" + "\n".join(problems))
