"""The connection: a dropped socket is shown, retried with backoff, and the page carries on."""

from __future__ import annotations

import json

from playwright.sync_api import WebSocketRoute, expect

from tests.browser.page_support import AppPages, app, send, wait_finished

__all__ = ["app"]


def test_a_dropped_socket_reconnects_and_the_page_works_again(app: AppPages) -> None:
    routes: list[WebSocketRoute] = []
    page = app.open("/")

    def relay(route: WebSocketRoute) -> None:
        route.connect_to_server()  # a transparent proxy the test can cut
        routes.append(route)

    page.route_web_socket("**/ws/conversations/**", relay)
    page.click("[data-action='new-conversation']")
    page.wait_for_selector("#app[data-connection='open']")
    routes[0].close(code=1011, reason="test drop")
    expect(page.locator("#app")).to_have_attribute("data-connection", "closed")
    expect(page.locator("[data-connection-text]")).to_contain_text("retrying")
    page.wait_for_selector("#app[data-connection='open']")
    assert len(routes) == 2
    before = send(page, "Tell me about bridges")
    wait_finished(page, after=before)


def test_a_send_whose_start_is_lost_with_the_socket_is_cleared_by_the_resumed_start(
    app: AppPages,
) -> None:
    """The socket drops after the send went out and its run started, before run.started
    reached the page: the reconnect resumes the run, and that run.started answers the send as
    the first would have (the person's turn shown, the composer cleared: no second send by
    hand). The first socket is a proxy that cuts itself at the run's start; the next goes
    through. The run stalls after 3 events, so it is live when the page is back."""
    cut: list[WebSocketRoute] = []

    def relay(route: WebSocketRoute) -> None:
        if cut:
            route.connect_to_server()
            return
        cut.append(route)
        server = route.connect_to_server()

        def from_server(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "run.started":
                route.close(code=1011, reason="test: dropped before the run's start came back")
                server.close()
                return
            route.send(message)

        server.on_message(from_server)

    page = app.unopened()
    page.route_web_socket("**/ws/conversations/**", relay)
    page.goto(app.made())
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    text = "Tell me about tides [[sim: stall=60 after=3]]"
    before = send(page, text)
    root = page.locator("#app")
    expect(root).to_have_attribute("data-connection", "closed")  # cut at the run's start
    page.wait_for_selector("#app[data-connection='open'][data-run-state='running']")
    assert len(cut) == 1
    expect(page.locator("[data-composer-input]")).to_have_value("")
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about tides")
    page.click("[data-action='stop']")
    wait_finished(page, "stopped", after=before)
    expect(page.locator("[data-composer-input]")).to_have_value("")
    conversation_id = page.url.rstrip("/").split("/")[-1]
    stored = page.request.get(f"{app.server.url}/api/conversations/{conversation_id}/").json()
    assert [m["content"][0]["text"] for m in stored["messages"] if m["role"] == "user"] == [text]
