"""A message sent before the conversation's socket has opened (the page just loaded, or it
reconnects after a drop) waits for it and goes once; an attempt that never opens refuses it,
its text kept.

Every other page test waits for ``data-connection='open'`` before it sends, so none sends in
that moment. Here the page's WebSocket is held at its handshake by a Playwright route until the
test lets it through (or, for the failure, closes it): no sleep decides when the socket opens.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_step_mode import STEP, _mocks, _wait_runs
from tests.browser.test_page_tools import PROMPT, TIME, WEATHER

__all__ = ["app"]

SOCKETS = "**/ws/conversations/**"
TEXT = "Tell me about bridges"


#: Each held socket's verdict, set on the page by the test: its handler waits for it there.
VERDICT = "(n) => window.__pgTestSockets?.[n]"
SET_VERDICT = "([n, verdict]) => { (window.__pgTestSockets ??= {})[n] = verdict; }"


@dataclass
class HeldSockets:
    """The page's first ``held`` conversation sockets, each held at its handshake until the
    test lets it through (:meth:`let_through`) or fails it (:meth:`fail`); later ones go at once.

    The route's handler runs in a greenlet of its own, where it may block in a sync call: it
    waits on the page for the test's verdict (no time decides), and until then the page's
    WebSocket stays CONNECTING. Let through, it opens once the route reaches the server.
    """

    page: Page
    held: int = 1
    seen: int = 0
    decided: int = 0

    def __call__(self, route: WebSocketRoute) -> None:
        self.seen += 1
        index = self.seen
        if index <= self.held:
            waited = self.page.wait_for_function(VERDICT, arg=index, timeout=0)
            if waited.json_value() == "fail":
                route.close(code=1011, reason="test: the server never answered")
                return
        route.connect_to_server()

    def let_through(self) -> None:
        self._decide("open")

    def fail(self) -> None:
        self._decide("fail")

    def _decide(self, verdict: str) -> None:
        self.decided += 1
        self.page.evaluate(SET_VERDICT, [self.decided, verdict])


def held_page(
    app: AppPages, *, relay_first: list[WebSocketRoute] | None = None
) -> tuple[Page, HeldSockets]:
    """A new conversation's page, loaded and ready, its socket held (:class:`HeldSockets`).
    With ``relay_first``, its first socket goes through at once (put there, for the test to
    cut) and the next one is held."""
    page = app.unopened()
    sockets = HeldSockets(page)

    def route(socket: WebSocketRoute) -> None:
        if relay_first is not None and not relay_first:
            relay_first.append(socket)
            socket.connect_to_server()  # a transparent proxy the test can cut
            return
        sockets(socket)

    page.route_web_socket(SOCKETS, route)
    page.goto(app.made())
    page.wait_for_selector("#app[data-ready='true']")
    return page, sockets


def user_messages(page: Page, app: AppPages) -> list[Any]:
    conversation_id = urlsplit(page.url).path.rstrip("/").split("/")[-1]  # a replay's has a query
    stored = page.request.get(f"{app.server.url}/api/conversations/{conversation_id}/").json()
    return [message for message in stored["messages"] if message["role"] == "user"]


def send_held(page: Page) -> None:
    """Type and press Enter while the socket is still connecting; the send is shown waiting."""
    expect(page.locator("#app")).to_have_attribute("data-connection", "connecting")
    page.fill("[data-composer-input]", TEXT)
    page.press("[data-composer-input]", "Enter")
    expect(page.locator("#app")).to_have_attribute("data-send-held", "send")
    expect(page.locator("[data-action='send']")).to_have_text("Connecting…")
    expect(page.locator("[data-action='send']")).to_be_disabled()
    expect(page.locator("[data-composer-input]")).to_have_value(TEXT)
    expect(page.locator("[data-composer-why]")).to_contain_text("sent once the connection opens")
    expect(page.locator("[data-composer-error]")).to_be_hidden()


def test_a_send_before_the_socket_opens_waits_for_it_and_goes_once(app: AppPages) -> None:
    page, sockets = held_page(app)
    before = finished_runs(page)
    send_held(page)
    assert user_messages(page, app) == []  # nothing went while the socket was held
    sockets.let_through()
    wait_finished(page, after=before)
    expect(last_assistant(page)).not_to_be_empty()
    expect(page.locator("#app")).not_to_have_attribute("data-send-held", "send")
    expect(page.locator("[data-action='send']")).to_have_text("Send")
    expect(page.locator("[data-composer-input]")).to_have_value("")
    assert [m["content"][0]["text"] for m in user_messages(page, app)] == [TEXT]
    assert sockets.seen == 1


def test_a_send_while_the_page_reconnects_waits_for_the_new_socket(app: AppPages) -> None:
    relayed: list[WebSocketRoute] = []
    page, sockets = held_page(app, relay_first=relayed)
    expect(page.locator("#app")).to_have_attribute("data-connection", "open")
    relayed[0].close(code=1011, reason="test drop")
    before = finished_runs(page)
    send_held(page)  # the retry's socket is held at its handshake: "Reconnecting…"
    sockets.let_through()
    wait_finished(page, after=before)
    assert [m["content"][0]["text"] for m in user_messages(page, app)] == [TEXT]


def test_a_send_whose_socket_never_opens_is_refused_with_its_text_kept(app: AppPages) -> None:
    page, sockets = held_page(app)
    send_held(page)
    sockets.fail()
    expect(page.locator("[data-composer-error]")).to_contain_text("Not sent")
    expect(page.locator("[data-composer-error]")).to_contain_text("did not open")
    expect(page.locator("#app")).to_have_attribute("data-last-error", "not_connected")
    expect(page.locator("#app")).not_to_have_attribute("data-send-held", "send")
    expect(page.locator("[data-composer-input]")).to_have_value(TEXT)
    expect(page.locator("[data-composer-input]")).to_be_editable()
    # The page reconnects by itself (the next socket goes through): what was refused is not
    # sent then, and goes once sent again, alone.
    expect(page.locator("#app")).to_have_attribute("data-connection", "open")
    before = finished_runs(page)
    page.click("[data-action='send']")
    wait_finished(page, after=before)
    assert [m["content"][0]["text"] for m in user_messages(page, app)] == [TEXT]


# Replay and step mode send by themselves once the page is idle: while the socket (re)connects
# their turn is held like a typed send (held-send.js's canAct), not kept back until "open".


def test_step_mode_holds_its_results_until_the_socket_opens(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER, TIME])
    _mocks(page, ("get_weather", "18 °C; get_time next"), ("get_time", "09:30; get_weather next"))
    wait_finished(page, after=send(page, PROMPT))
    expect(page.locator(".tool-card")).to_have_count(2)
    conversation_id = page.url.rstrip("/").split("/")[-1]
    page.evaluate(
        "(key) => localStorage.setItem(key, JSON.stringify({enabled: true, limit: 1, sent: 0}))",
        f"pg:step-mode:{conversation_id}",
    )
    sockets = HeldSockets(page)
    page.route_web_socket(SOCKETS, sockets)
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("#app")).to_have_attribute("data-send-held", "tool_results")
    expect(page.locator("#app")).to_have_attribute("data-connection", "connecting")
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "sending")
    expect(page.locator("[data-composer-why]")).to_contain_text("sent once the connection opens")
    sockets.let_through()
    _wait_runs(page, 1)  # the reloaded page's count: the step's run
    expect(page.locator("#app")).not_to_have_attribute("data-send-held", "tool_results")
    expect(page.locator(".msg[data-role='user']:has(.pg-tool-result)")).to_have_count(1)
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    assert sockets.seen == 1


def test_a_replay_holds_its_first_turn_until_the_socket_opens(app: AppPages) -> None:
    source = app.conversation()
    wait_finished(source, after=send(source, TEXT))
    source_id = source.url.rstrip("/").split("/")[-1]
    page = app.unopened()
    sockets = HeldSockets(page)
    page.route_web_socket(SOCKETS, sockets)
    page.goto(f"{app.made()}?replay_of={source_id}")
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("#app")).to_have_attribute("data-send-held", "send")
    expect(page.locator("#app")).to_have_attribute("data-connection", "connecting")
    expect(page.locator("[data-action='send']")).to_have_text("Connecting…")
    expect(page.locator("[data-replay-view]")).to_have_attribute("data-state", "running")
    assert user_messages(page, app) == []
    sockets.let_through()
    expect(page.locator("[data-replay-view]")).to_have_attribute("data-state", "done")
    expect(page.locator("#app")).not_to_have_attribute("data-send-held", "send")
    assert [m["content"][0]["text"] for m in user_messages(page, app)] == [TEXT]
    assert sockets.seen == 1
