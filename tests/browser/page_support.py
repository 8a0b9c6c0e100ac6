"""Fixtures and helpers for the playground page's browser tests (``test_page_*.py``).

Rule: every page is watched like the render harness's (no dialog, no page error, no console
error, no CSP violation, a screenshot when the test fails); a test that expects a console
error (a 400 the page shows on purpose) says so with ``allow_console`` and the pattern of
exactly that message. Tests synchronise on the page's ``data-*`` state, never on time.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import closing
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from django.contrib.auth.hashers import make_password
from playwright.sync_api import Browser, Page

from tests.browser.conftest import PageWatch, page_pool, screenshot_if_failed
from tests.conftest import LiveServer, stop

# Runs before any page script and outside the page's CSP: records violations where the
# shared fixtures look for them (window.__pgHarness.violations).
RECORD_CSP = """
window.__pgHarness = { violations: [] };
document.addEventListener("securitypolicyviolation", (event) => {
  window.__pgHarness.violations.push({
    directive: event.violatedDirective, blocked: event.blockedURI, sample: event.sample,
  });
});
"""

#: POST a JSON body with the page's CSRF token; the answer's JSON (throws on an error status).
POST_JSON = """
async ([url, body]) => {
  const token = document.cookie.split("; ").find((c) => c.startsWith("csrftoken="))?.split("=")[1];
  const response = await fetch(url, {
    method: "POST",
    headers: {"Content-Type": "application/json", "X-CSRFToken": token},
    body: JSON.stringify(body),
  });
  const json = await response.json();
  if (!response.ok) throw new Error(JSON.stringify(json));
  return json;
}
"""
#: The same, answering the new conversation's (or import's) page URL.
CREATE_CONVERSATION = POST_JSON.replace("return json;", "return json.url;")


#: The viewports the page is tried at: a desktop, and a phone (an iPhone 12-15's CSS pixels).
DESKTOP = (1440, 900)
PHONE = (390, 844)


@dataclass
class AppPages:
    """Opens watched pages of the live app; checked and closed at teardown."""

    browser: Browser
    server: LiveServer
    opened: list[tuple[Page, PageWatch]] = field(default_factory=list)
    allowed: list[re.Pattern[str]] = field(default_factory=list)

    def open(
        self, path: str = "/", *, viewport: tuple[int, int] = DESKTOP, color_scheme: Any = None
    ) -> Page:
        page = self.open_plain(path, viewport=viewport, color_scheme=color_scheme)
        page.wait_for_selector("#app[data-ready='true']")
        return page

    def open_plain(
        self, url: str, *, viewport: tuple[int, int] = DESKTOP, color_scheme: Any = None
    ) -> Page:
        """A watched page at ``url`` (absolute, or a path); :meth:`open` waits for the app
        page to be ready, a caller of this for its own page's state (a grid, a share)."""
        page = self._watched(viewport, color_scheme)
        page.goto(url if url.startswith("http") else self.server.url + url)
        return page

    def unopened(self, *, viewport: tuple[int, int] = DESKTOP) -> Page:
        """A watched page not yet at the app: for a test that routes it before it loads."""
        return self._watched(viewport, None)

    def _watched(self, viewport: tuple[int, int], color_scheme: Any) -> Page:
        page = page_pool(self.browser, RECORD_CSP).take(viewport, color_scheme)
        watch = PageWatch()
        watch.attach(page)
        self.opened.append((page, watch))
        return page

    def close(self) -> None:
        """Give every page back to the pool (blanked for the next test)."""
        pool = page_pool(self.browser, RECORD_CSP)
        for page, watch in self.opened:
            watch.detach(page)
            pool.give_back(page)

    def allow_console(self, pattern: str) -> None:
        """Expect console errors matching ``pattern`` (and only those) in this test."""
        self.allowed.append(re.compile(pattern))

    def conversation(
        self, *, viewport: tuple[int, int] = DESKTOP, color_scheme: Any = None, **settings: Any
    ) -> Page:
        """A new conversation with ``settings`` (API fields), opened and connected."""
        return self._created("/api/conversations/", settings, viewport, color_scheme)

    def made(self, **settings: Any) -> str:
        """A new conversation with ``settings`` (API fields), made with no page: its page's URL.

        For a conversation a test needs in the list but never looks at: a page opened only to
        make it was a page load (the browser tests' main cost) and a browser context for nothing.
        Made over loopback with a client of its own, as a second page would be another person's.
        """
        with httpx.Client(base_url=self.server.url, timeout=30) as client:
            client.get("/").raise_for_status()  # sets the csrftoken cookie
            token = client.cookies["csrftoken"]
            response = client.post(
                "/api/conversations/", json=settings, headers={"X-CSRFToken": token}
            )
        response.raise_for_status()
        return self.server.url + response.json()["url"]

    def imported(self, request: dict[str, Any], *, viewport: tuple[int, int] = DESKTOP) -> Page:
        """A conversation imported from a Messages request body, opened and connected."""
        return self._created("/api/import/", {"request": request}, viewport, None)

    def _created(
        self, api_path: str, body: dict[str, Any], viewport: tuple[int, int], color_scheme: Any
    ) -> Page:
        """POST ``body`` to ``api_path`` as the page's own browser context would (its cookies,
        its CSRF token), then open the page it answers. Through the context's request client,
        not a page load of the home page first: a page load is the browser tests' main cost."""
        page = self._watched(viewport, color_scheme)
        request = page.context.request
        request.get(self.server.url + "/").dispose()  # sets the csrftoken cookie
        token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
        response = request.post(
            self.server.url + api_path, data=body, headers={"X-CSRFToken": token}
        )
        if not response.ok:
            raise AssertionError(f"POST {api_path} answered {response.status}: {response.text()}")
        page.goto(self.server.url + response.json()["url"])
        page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
        return page

    def problems(self, page: Page, watch: PageWatch) -> list[str]:
        watch.console_errors = [
            text
            for text in watch.console_errors
            if not any(pattern.search(text) for pattern in self.allowed)
        ]
        try:
            violations = page.evaluate("() => window.__pgHarness?.violations ?? []")
        except Exception:  # the page may be gone: its console still caught violations
            violations = []
        return watch.problems(violations)


@pytest.fixture
def app(
    chromium_browser: Browser, live_server_proc: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, live_server_proc, request)


def own_server_pages(
    browser: Browser, server: LiveServer, *, ready: str = "/"
) -> Iterator[AppPages]:
    """Watched pages on a test's own server (one with its own environment), stopped after;
    ``ready`` is a page it answers 200 once up (login mode redirects "/")."""
    pages = AppPages(browser=browser, server=server)
    try:
        # The socket listens before Daphne runs: this first request waits in the backlog until
        # the server answers (its start-up can outlast a page's 10 s on a busy machine).
        httpx.get(server.url + ready, timeout=120).raise_for_status()
        yield pages
        problems = [
            problem for page, watch in pages.opened for problem in pages.problems(page, watch)
        ]
        if problems:
            pytest.fail("the page misbehaved:\n" + "\n".join(problems))
    finally:
        pages.close()
        stop(server)


def watched_app(
    browser: Browser, server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    """The body of an ``app`` fixture for any server (a test module's own, with its profiles)."""
    pages = AppPages(browser=browser, server=server)
    yield pages
    screenshot_if_failed(request, [page for page, _ in pages.opened])
    problems = [problem for page, watch in pages.opened for problem in pages.problems(page, watch)]
    pages.close()
    if problems:
        pytest.fail("the page misbehaved:\n" + "\n".join(problems))


def add_superuser(database: Path, *, username: str, password: str, email: str) -> None:
    """Add to a test server's SQLite ``database`` the superuser ``manage.py createsuperuser
    --noinput`` would, without its process.

    Why: the command is a Python and Django start-up plus a password hashed at the default
    million rounds, about 2.5 s of CPU a test server. The hash here is this process's (the
    test hasher's 1,000 rounds, tests/conftest.py): the server checks it as its own and, as
    Django does for any hash not at its preferred rounds, rehashes it at the first sign-in.
    """
    now = datetime.now(UTC).replace(tzinfo=None).isoformat(sep=" ")  # Django's SQLite form
    with closing(sqlite3.connect(database, timeout=30)) as db, db:
        db.execute(
            "INSERT INTO auth_user (username, email, password, first_name, last_name,"
            " is_superuser, is_staff, is_active, date_joined) VALUES (?, ?, ?, '', '', 1, 1, 1, ?)",
            (username, email, make_password(password), now),
        )


# --- helpers the tests share ------------------------------------------------------------------


def finished_runs(page: Page) -> int:
    """How many runs the page has seen end (``data-finished-runs``)."""
    return int(page.get_attribute("#app", "data-finished-runs") or 0)


def send(page: Page, text: str) -> int:
    """Type ``text`` in the composer and press Enter; return the finished-run count before."""
    before = finished_runs(page)
    page.fill("[data-composer-input]", text)
    page.press("[data-composer-input]", "Enter")
    return before


def wait_finished(page: Page, status: str = "complete", *, after: int) -> None:
    """Wait until a run ends after the ``after``-th one, with ``status``.

    A counter, not data-run-state: at full speed a run can start and end between two polls.
    """
    page.wait_for_function(
        "(n) => Number(document.querySelector('#app').dataset.finishedRuns ?? 0) > n", arg=after
    )
    page.wait_for_selector(f"#app[data-run-state='idle'][data-last-status='{status}']")


def last_assistant(page: Page) -> Any:
    return page.locator(".msg[data-role='assistant']").last


Opener = Callable[..., Page]
