"""The connection: a dropped socket is shown, retried with backoff, and the page carries on."""

from __future__ import annotations

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
