"""Issue 48, item 9 over Streamable HTTP in the browser: server-everything reached by URL (its
own HTTP transport, a process of its own), its tools called from their cards (one asking a
form on the way, one a sampling answer run on the simulator), run by hand, its resources
attached and its prompts inserted, as over stdio."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, expect

from tests.browser.page_support import (
    PHONE,
    AppPages,
    finished_runs,
    send,
    wait_finished,
    watched_app,
)
from tests.browser.test_page_mcp import _add_tools, connect_servers
from tests.browser.test_page_mocks import card
from tests.browser.test_page_tools import WEATHER
from tests.conftest import CACHED_STATIC, LiveServer, daphne_running
from tests.mcp_support import everything_over_http


@pytest.fixture(scope="module")
def http_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One app server and one server-everything over HTTP for the module: each test connects
    itself (Connect / refresh) and reads only its own conversation, and a pair of its own each
    cost a Daphne start and a Node server's start more a test."""
    folder = tmp_path_factory.mktemp("mcp-http")
    with everything_over_http() as url:
        config = folder / "mcp.json"
        config.write_text(json.dumps({"mcpServers": {"remote": {"url": url}}}))
        with daphne_running(folder, PLAYGROUND_MCP_CONFIG=str(config), **CACHED_STATIC) as server:
            yield server


@pytest.fixture
def http_app(
    chromium_browser: Browser, http_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, http_server, request)


def test_server_everything_over_streamable_http(http_app: AppPages) -> None:
    page = http_app.conversation(tools=[WEATHER])
    connect_servers(page)
    remote = page.locator(".mcp-server[data-server='remote']")
    expect(remote).to_have_attribute("data-state", "connected")
    expect(remote).to_contain_text("http")
    _add_tools(page, "remote", only="remote__echo")
    _add_tools(page, "remote", only="remote__trigger-elicitation-request")
    _add_tools(page, "remote", only="remote__trigger-sampling-request")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")

    tool = remote.locator(".mcp-tool[data-tool-name='remote__get-sum']")
    tool.locator("[data-action='mcp-by-hand']").click()
    tool.locator("[data-by-hand-field='a']").fill("4")
    tool.locator("[data-by-hand-field='b']").fill("5")
    tool.locator("[data-action='mcp-by-hand-run']").click()
    expect(tool.locator("[data-by-hand-result]")).to_contain_text("The sum of 4 and 5 is 9")

    resources = remote.locator("[data-mcp-catalog='resources']")
    resources.locator("summary").click()
    expect(resources).to_have_attribute("data-state", "ready", timeout=30_000)
    resources.locator(".mcp-resource[data-uri$='features.md'] [data-action='mcp-attach']").click()
    expect(page.locator("[data-attachments]")).to_contain_text("features.md")
    prompts = remote.locator("[data-mcp-catalog='prompts']")
    prompts.locator("summary").click()
    expect(prompts).to_have_attribute("data-state", "ready", timeout=30_000)
    prompts.locator("[data-prompt='simple-prompt'] [data-action='mcp-insert-prompt']").click()
    expect(page.locator("[data-composer-input]")).to_have_value(
        "This is a simple prompt without arguments."
    )
    page.locator("[data-attachments] [aria-label^='Remove']").click()  # not for this turn

    prompt = (
        "Use remote__echo, remote__trigger-elicitation-request and "
        "remote__trigger-sampling-request for Paris"
    )
    wait_finished(page, after=send(page, prompt))
    echo = card(page, "remote__echo")
    echo.locator("[data-action='mcp-run']").click()
    expect(echo).to_have_attribute("data-mcp", "done")
    expect(echo.locator("textarea").first).to_have_value(re.compile("Echo: "))
    elicit = card(page, "remote__trigger-elicitation-request")
    elicit.locator("[data-action='mcp-run']").click()
    expect(elicit).to_have_attribute("data-mcp-question", "elicitation")
    form = elicit.locator(".mcp-question")
    form.locator("[data-elicit-field='name']").fill("Grace Hopper")
    form.locator("[data-action='mcp-elicit-accept']").click()
    expect(elicit).to_have_attribute("data-mcp", "done")
    expect(elicit.locator("textarea").first).to_have_value(re.compile("Name: Grace Hopper"))
    sampling = card(page, "remote__trigger-sampling-request")
    sampling.locator("[data-action='mcp-run']").click()
    expect(sampling).to_have_attribute("data-mcp-question", "sampling")
    question = sampling.locator(".mcp-question")
    question.locator("[data-sampling-profile]").select_option("simulator")
    question.locator("[data-action='mcp-sampling-approve']").click()
    expect(sampling).to_have_attribute("data-mcp", "done")
    expect(sampling.locator("textarea").first).to_have_value(re.compile("simulator-1"))
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)


def test_a_task_tool_runs_as_a_task_over_http_on_a_phone(http_app: AppPages) -> None:
    """Issue 48, item 3 in the browser: server-everything's simulate-research-query (a tool it
    runs only as a task) run from its card at 390 px, its status changes on the card as the
    server reports them, its result fetched when it is done."""
    page = http_app.conversation(tools=[WEATHER], viewport=PHONE)
    page.locator("[data-action='toggle-menu']").click()
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    connect_servers(page)
    _add_tools(page, "remote", only="remote__simulate-research-query")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.keyboard.press("Escape")
    wait_finished(page, after=send(page, "Use remote__simulate-research-query for tides"))
    research = card(page, "remote__simulate-research-query")
    research.locator("[data-action='mcp-run']").click()
    expect(research.locator("[data-mcp-notices]")).to_contain_text("task working", timeout=30_000)
    expect(research).to_have_attribute("data-mcp", "done", timeout=60_000)
    expect(research.locator("textarea").first).to_have_value(re.compile("Research"))
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
