"""Issue 48, items 5 to 7 in the browser: the picker (nothing ticked, a search, each tool's
title, description and annotations, a 390 px phone), a tool run by hand from a form of its
input schema (checked before it is sent, its result kept as a mock), an image result shown as
a picture labelled with its server, and approval as people expect it (Always allow at the card,
auto outside step mode, a server's auto never running a tool that may be destructive)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, send, wait_finished

# The worker's shared app server (its fixture): each test connects the servers itself and
# keeps its tools' approvals on its own conversation, so none needs a server of its own.
from tests.browser.test_page_mcp import _add_tools, connect_servers, shared_mcp_app  # noqa: F401
from tests.browser.test_page_mocks import card
from tests.browser.test_page_tools import WEATHER


def _tool(page: Page, name: str):  # noqa: ANN202 (a Locator)
    return page.locator(f".mcp-tool[data-tool-name='{name}']")


def test_the_picker_and_a_tool_run_by_hand_on_a_phone(shared_mcp_app: AppPages) -> None:  # noqa: F811
    page = shared_mcp_app.conversation(tools=[WEATHER], viewport=PHONE)
    page.locator("[data-action='toggle-menu']").click()
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    connect_servers(page)
    assert page.locator("[data-mcp-tool]:checked").count() == 0  # nothing ticked until chosen
    total = page.locator(".mcp-tool").count()
    page.locator("[data-mcp-search]").fill("sum")
    expect(page.locator(".mcp-tool:visible")).to_have_count(1)
    assert page.locator(".mcp-tool").count() == total  # hidden, not gone
    get_sum = _tool(page, "everything__get-sum")
    expect(get_sum).to_contain_text("Get Sum Tool")
    expect(get_sum).to_contain_text("Returns the sum of two numbers")
    expect(get_sum.locator(".mcp-annotations")).to_have_text("read-only · idempotent")
    get_sum.locator(".mcp-schema summary").click()
    expect(get_sum.locator("[data-mcp-schema]")).to_contain_text('"description": "First number"')

    get_sum.locator("[data-action='mcp-by-hand']").click()
    box = get_sum.locator(".mcp-by-hand")
    box.locator("[data-by-hand-field='a']").fill("2")
    box.locator("[data-action='mcp-by-hand-run']").click()
    expect(box).to_have_attribute("data-state", "invalid")  # b is required: nothing sent
    expect(box.locator("[data-by-hand-status]")).to_contain_text("is required")
    box.locator("[data-by-hand-field='b']").fill("3")
    box.locator("[data-action='mcp-by-hand-run']").click()
    expect(box).to_have_attribute("data-state", "done", timeout=30_000)
    expect(box.locator("[data-by-hand-result]")).to_contain_text("The sum of 2 and 3 is 5")
    box.locator("[data-action='mcp-by-hand-mock']").click()
    expect(box.locator("[data-by-hand-status]")).to_contain_text("kept as a mock")
    expect(page.locator("[data-mock-list]")).to_have_attribute("data-count", "1")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]

    page.locator("[data-mcp-search]").fill("tiny image")
    image = _tool(page, "everything__get-tiny-image")
    image.locator("[data-action='mcp-by-hand']").click()
    image.locator("[data-action='mcp-by-hand-run']").click()
    figure = image.locator(".mcp-figure")
    expect(figure).to_contain_text("image from MCP server everything", timeout=30_000)
    loaded = figure.locator("img").evaluate("(img) => img.decode().then(() => img.naturalWidth)")
    assert loaded > 0
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def test_always_allow_then_auto_outside_step_mode(shared_mcp_app: AppPages) -> None:  # noqa: F811
    page = shared_mcp_app.conversation(tools=[WEATHER])
    connect_servers(page)
    _add_tools(page, "everything", only="everything__echo")
    # The fault server's tools carry no annotations: by MCP's defaults they may be destructive.
    _add_tools(page, "fault", only="fault__echo")
    fault = page.locator(".mcp-server[data-server='fault']")
    fault.locator("select[data-mcp-approval='']").select_option("auto")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")

    wait_finished(page, after=send(page, "Use everything__echo and fault__echo for Paris"))
    destructive = card(page, "fault__echo")
    expect(destructive).to_have_attribute("data-mcp", "ready")  # drawn, and not run by itself
    assert destructive.get_attribute("data-mcp-auto") is None
    expect(destructive.locator(".mcp-annotations")).to_have_text("may be destructive")
    echo = card(page, "everything__echo")
    echo.locator("[data-action='mcp-always']").click()  # this call runs, and the next ones
    expect(echo).to_have_attribute("data-mcp", "done")
    expect(_tool(page, "everything__echo").locator("select")).to_have_value("auto")
    # Kept on the server with the tool's mark too: what a grid's loop reads before it runs one.
    expect(page.locator("[data-mcp-panel]")).to_have_attribute("data-marks", "saved")
    origin, conversation_id = page.url.rstrip("/").rsplit("/c/", 1)
    stored = page.context.request.get(f"{origin}/api/conversations/{conversation_id}/mcp-tools/")
    assert stored.json()["mcp_tools"]["everything__echo"]["approval"] == "auto"
    assert "approval" not in stored.json()["mcp_tools"]["fault__echo"]  # allowed once only
    destructive.locator("[data-action='mcp-run']").click()  # allow once
    expect(destructive).to_have_attribute("data-mcp", "done")
    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)

    wait_finished(page, after=send(page, "Use everything__echo for Lyon"))
    again = card(page, "everything__echo")
    expect(again).to_have_attribute("data-mcp-auto", "true")  # no click: step mode is off
    expect(again).to_have_attribute("data-mcp", "done")
    expect(again.locator("textarea").first).to_have_value(re.compile("Echo: Lyon"))


def test_step_mode_names_a_call_waiting_on_approval(shared_mcp_app: AppPages) -> None:  # noqa: F811
    """Issue 48's "seen": calls waiting on approval were called "no mock"."""
    page = shared_mcp_app.conversation(tools=[WEATHER])
    connect_servers(page)
    _add_tools(page, "everything", only="everything__echo")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.check("[data-step-enabled]")
    wait_finished(page, after=send(page, "Use everything__echo for Paris"))
    step = page.locator("[data-step-mode]")
    expect(step).to_have_attribute("data-step-state", "stopped")
    status = page.locator("[data-step-status]")
    expect(status).to_contain_text("waiting for your approval to run everything__echo")
    expect(status).not_to_contain_text("no mock")
