"""The page pool's promise (``PagePool``): a page given back starts the next test as a new
context's would, with no cookie, storage, route or size left from the test before."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser

from tests.browser.conftest import BLANK_PATH, PagePool
from tests.conftest import LiveServer

pytestmark = pytest.mark.browser


def test_a_page_given_back_keeps_nothing_of_its_test(
    chromium_browser: Browser, live_server_proc: LiveServer
) -> None:
    pool = PagePool(chromium_browser)
    url = live_server_proc.url + "/static/playground/favicon.svg"
    page = pool.take(viewport=(390, 844), color_scheme="dark")
    page.goto(url)
    assert page.viewport_size == {"width": 390, "height": 844}
    assert page.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") is True
    page.evaluate("() => { localStorage.setItem('draft', 'left'); sessionStorage.setItem('s', 1) }")
    page.context.add_cookies([{"name": "left", "value": "1", "url": live_server_proc.url}])
    page.context.route("**/favicon.svg", lambda route: route.fulfill(status=204))
    pool.give_back(page)

    again = pool.take()
    assert again is page  # the same page, reused
    assert again.url == live_server_proc.url + BLANK_PATH  # no script; the same renderer
    again.goto(url)
    assert again.evaluate("() => [localStorage.length, sessionStorage.length]") == [0, 0]
    assert again.context.cookies() == []
    assert again.evaluate("() => document.contentType") == "image/svg+xml"  # not the route's 204
    assert again.viewport_size == {"width": 1280, "height": 720}
    assert again.evaluate("() => matchMedia('(prefers-color-scheme: dark)').matches") is False
    again.context.close()  # this pool is the test's own


def test_a_page_its_test_closed_is_not_given_out_again(chromium_browser: Browser) -> None:
    pool = PagePool(chromium_browser)
    page = pool.take()
    page.close()
    pool.give_back(page)
    fresh = pool.take()
    assert fresh is not page and not fresh.is_closed()
    fresh.context.close()


def test_a_page_left_with_a_websocket_route_or_a_listener_is_not_given_out_again(
    chromium_browser: Browser,
) -> None:
    # Playwright's unroute_all keeps WebSocket routes: reused, the page would carry the next
    # test's sockets through this test's relay (a held or silent one stalls every later test).
    pool = PagePool(chromium_browser)
    routed = pool.take()
    routed.route_web_socket("**/ws/**", lambda route: route.connect_to_server())
    listening = pool.take()
    listening.on("websocket", lambda ws: None)
    for page in (routed, listening):
        pool.give_back(page)
        assert page.is_closed()
    fresh = pool.take()
    assert fresh not in (routed, listening)
    fresh.context.close()
