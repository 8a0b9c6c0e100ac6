"""The call card's Run goes on the conversation's open socket (an ``mcp_call`` action), not
``POST /api/mcp/call/``, and its Cancel (``mcp_cancel``) ends the call as cancelled."""

from __future__ import annotations

from playwright.sync_api import expect

from tests.browser.page_support import AppPages

# The worker's shared app server: the test connects the servers itself (asked_for).
from tests.browser.test_page_mcp import asked_for, shared_mcp_app  # noqa: F401 (the fixture)
from tests.browser.test_page_tools import WEATHER


def test_a_call_runs_on_the_socket_and_its_cancel_ends_it(shared_mcp_app: AppPages) -> None:  # noqa: F811
    page = shared_mcp_app.conversation(tools=[WEATHER])
    posts: list[str] = []
    page.on(
        "request",
        lambda request: posts.append(request.url) if "/api/mcp/call" in request.url else None,
    )
    sent: list[str] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda payload: sent.append(str(payload))))
    page.reload()  # the socket opened after the listener, so its frames are seen
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    hang = asked_for(page, "fault", "fault__hang")
    hang.locator("[data-action='mcp-run']").click()
    expect(hang).to_have_attribute("data-mcp", "running")
    hang.locator("[data-action='mcp-cancel']").click()
    expect(hang).to_have_attribute("data-mcp", "cancelled")
    expect(hang.locator("[data-mcp-status]")).to_contain_text("cancelled (the server was told)")
    assert any('"action":"mcp_call"' in frame for frame in sent), sent
    assert any('"action":"mcp_cancel"' in frame for frame in sent), sent
    assert posts == []
