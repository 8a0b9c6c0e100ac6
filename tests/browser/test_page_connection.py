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


#: The "other tab": a socket of the test's own on the conversation (through the route, not
#: relayed) that says when the next run ends (window.__pgTestOther.finished), open at return.
OTHER_TAB = """async (conversationId) => {
  const origin = location.origin.replace(/^http/, "ws");
  const url = `${origin}/ws/conversations/${conversationId}/?tab=other`;
  const watch = (window.__pgTestOther = { finished: false });
  const socket = new WebSocket(url);
  await new Promise((resolve) => socket.addEventListener("message", (event) => {
    const frame = JSON.parse(event.data);
    if (frame.type === "hello") resolve();
    if (frame.type === "run.finished") {
      watch.finished = true;
      socket.close();
    }
  }));
}"""
OTHER_TAB_DONE = "() => window.__pgTestOther?.finished === true"


def test_a_send_whose_start_is_lost_with_the_socket_is_cleared_by_the_resumed_start(
    app: AppPages,
) -> None:
    """The socket drops after the send went out and its run started, before run.started
    reached the page: the reconnect resumes the run, and that run.started answers the send as
    the first would have (the person's turn shown, the composer cleared: no second send by
    hand). The first socket is a proxy that cuts itself at the run's start; the next goes
    through. The run stalls after 3 events, so it is live when the page is back.

    Then the same loss, with the run ended before the page is back (its next socket held until
    a socket of the test's own has seen it end): the hello's path end is not the page's, so the
    page reads its turns again, shows the run's turns and clears the send they answer."""
    relayed: list[WebSocketRoute] = []
    cut_at = {1: "tides", 2: "waves"}  # each relayed socket cuts at the start of that send's run

    def relay(route: WebSocketRoute) -> None:
        if "tab=other" in route.url:
            route.connect_to_server()
            return
        relayed.append(route)
        number = len(relayed)
        if number == 3:  # back only once the run it missed has ended
            page.wait_for_function(OTHER_TAB_DONE, timeout=0)
        server = route.connect_to_server()
        marker = cut_at.get(number)

        def from_server(message: str | bytes) -> None:
            frame = json.loads(message) if isinstance(message, str) else {}
            text = json.dumps(frame.get("user_message"))
            if frame.get("type") == "run.started" and marker and marker in text:
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
    assert len(relayed) == 2
    expect(page.locator("[data-composer-input]")).to_have_value("")
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about tides")
    page.click("[data-action='stop']")
    wait_finished(page, "stopped", after=before)
    expect(page.locator("[data-composer-input]")).to_have_value("")
    conversation_id = page.url.rstrip("/").split("/")[-1]
    stored = page.request.get(f"{app.server.url}/api/conversations/{conversation_id}/").json()
    assert [m["content"][0]["text"] for m in stored["messages"] if m["role"] == "user"] == [text]

    page.evaluate(OTHER_TAB, conversation_id)
    send(page, "Tell me about waves")
    expect(root).not_to_have_attribute("data-connection", "open")  # cut at the run's start
    page.wait_for_function(OTHER_TAB_DONE)
    page.wait_for_selector("#app[data-connection='open']")
    # The stopped run saved no answer, so the new turn went alone, as that one's alternative:
    # the path is the new turn and its answer.
    expect(page.locator(".msg[data-role='user']")).to_have_count(1)
    expect(page.locator(".msg[data-role='user']")).to_contain_text("Tell me about waves")
    expect(page.locator(".msg[data-role='assistant']")).to_have_count(1)
    expect(page.locator("[data-composer-input]")).to_have_value("")
    expect(root).to_have_attribute("data-run-state", "idle")
    assert len(relayed) == 3
