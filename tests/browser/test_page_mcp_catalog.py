"""Issue 48, item 4 in the browser at 390 px: server-everything's resources listed, one
attached to the message as a document (sent with it), a template's variable filled and read,
a prompt's argument filled and the prompt put in the composer; a prompt with an example answer
(the tests' own FastMCP server's) inserted as a user and an assistant turn; a hostile server's
markup and secret stay out of the page, which stays as narrow as the phone."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.page_support import (
    PHONE,
    AppPages,
    finished_runs,
    wait_finished,
    watched_app,
)
from tests.browser.test_page_mcp import connect_servers
from tests.conftest import CACHED_STATIC, LiveServer, daphne_running
from tests.mcp_support import FASTMCP_SERVER, HOSTILE_CATALOG, everything_stdio_args

SECRET = "sk-hostile-0123456789"


@pytest.fixture(scope="module")
def catalog_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """One app server (and its MCP servers) for the module: each test connects the servers
    itself (Connect / refresh) and reads only its own conversation, and a server of its own
    each cost a Daphne start and three MCP servers' starts more a test."""
    folder = tmp_path_factory.mktemp("mcp-catalog")
    config = folder / "mcp.json"
    servers = {
        "everything": {
            "command": shutil.which("node") or "node",
            "args": everything_stdio_args(),
        },
        "hostile": {
            "command": sys.executable,
            "args": [str(HOSTILE_CATALOG)],
            "env": {"SERVICE_KEY": SECRET},
        },
        "shapes": {"command": sys.executable, "args": [str(FASTMCP_SERVER)]},
    }
    config.write_text(json.dumps({"mcpServers": servers}))
    with daphne_running(folder, PLAYGROUND_MCP_CONFIG=str(config), **CACHED_STATIC) as server:
        yield server


@pytest.fixture
def catalog_app(
    chromium_browser: Browser, catalog_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, catalog_server, request)


def _settings_on_a_phone(page: Page) -> None:
    page.locator("[data-action='toggle-menu']").click()
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    connect_servers(page)


def _open(page: Page, server: str, kind: str):  # noqa: ANN202 (a Locator)
    listed = page.locator(f".mcp-server[data-server='{server}'] [data-mcp-catalog='{kind}']")
    listed.locator("summary").click()
    expect(listed).to_have_attribute("data-state", "ready", timeout=30_000)
    return listed


def test_resources_and_prompts_reach_the_composer_on_a_phone(catalog_app: AppPages) -> None:
    page = catalog_app.conversation(viewport=PHONE)
    _settings_on_a_phone(page)
    resources = _open(page, "everything", "resources")
    expect(page.locator(".mcp-server[data-server='everything'] .mcp-catalog")).to_have_attribute(
        "data-watch", "on"
    )
    row = resources.locator(".mcp-resource[data-uri$='architecture.md']")
    expect(row).to_contain_text("text/markdown")
    row.locator("[data-action='mcp-attach']").click()
    expect(row).to_contain_text("attached to your message")
    expect(row.locator(".mcp-preview")).to_contain_text("# Everything Server")

    template = resources.locator(".mcp-resource[data-template$='text/{resourceId}']")
    template.locator("[data-template-field='resourceId']").fill("5")
    template.locator("[data-action='mcp-preview']").click()
    expect(template.locator(".mcp-preview")).to_contain_text("Resource 5")

    prompts = _open(page, "everything", "prompts")
    prompt = prompts.locator(".mcp-resource[data-prompt='args-prompt']")
    prompt.locator("[data-action='mcp-insert-prompt']").click()
    expect(prompt).to_contain_text("is required")  # city, before anything is asked
    prompt.locator("[data-prompt-field='city']").fill("Lyon")
    # A prompt's argument is completed as typed (completion/complete), the department given
    # first narrowing the names offered.
    team = prompts.locator(".mcp-resource[data-prompt='completable-prompt']")
    team.locator("[data-prompt-field='department']").fill("S")
    offered = team.locator("datalist[data-completions='department'] option")
    expect(offered).to_have_count(2)
    assert [o.get_attribute("value") for o in offered.all()] == ["Sales", "Support"]
    team.locator("[data-prompt-field='department']").fill("Sales")
    team.locator("[data-prompt-field='name']").fill("E")
    expect(team.locator("datalist[data-completions='name'] option")).to_have_count(1)
    prompt.locator("[data-action='mcp-insert-prompt']").click()
    expect(prompt).to_contain_text("inserted in your message")
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]
    page.keyboard.press("Escape")  # the panel closed: the conversation again

    composer = page.locator("[data-composer-input]")
    expect(composer).to_have_value("What's weather in Lyon?")
    chips = page.locator("[data-attachments]")
    expect(chips).to_have_attribute("data-state", "ready")
    expect(chips).to_contain_text("architecture.md")
    before = finished_runs(page)
    composer.press("Enter")  # the prompt's words and the resource, sent as they are
    wait_finished(page, after=before)
    sent = page.locator(".msg[data-role='user']").last
    expect(sent).to_contain_text("What's weather in Lyon?")
    expect(sent).to_contain_text("architecture.md")


def test_a_hostile_servers_markup_stays_text_and_its_secret_stays_out(
    catalog_app: AppPages,
) -> None:
    page = catalog_app.conversation(viewport=PHONE)
    _settings_on_a_phone(page)
    resources = _open(page, "hostile", "resources")
    row = resources.locator(".mcp-resource[data-uri='hostile://env']")
    expect(row).to_contain_text('env <img src=x onerror="alert(1)">')
    row.locator("[data-action='mcp-preview']").click()
    expect(row.locator(".mcp-preview")).to_contain_text("SERVICE_KEY=[redacted]")
    prompts = _open(page, "hostile", "prompts")
    expect(prompts).to_contain_text("<script>alert(2)</script>")
    assert page.locator("img[src='x'], .mcp-catalog script").count() == 0
    assert SECRET not in page.content()
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE[0]


def test_a_prompts_assistant_turn_goes_in_as_the_assistants(catalog_app: AppPages) -> None:
    page = catalog_app.conversation(viewport=PHONE)
    _settings_on_a_phone(page)
    prompt = _open(page, "shapes", "prompts").locator(".mcp-resource[data-prompt='few-shot']")
    prompt.locator("[data-prompt-field='topic']").fill("fruit")
    prompt.locator("[data-action='mcp-insert-prompt']").click()
    expect(prompt).to_contain_text("2 turns added to the conversation, 1 of them the assistant's")
    page.keyboard.press("Escape")
    turns = page.locator(".msg[data-role]")
    expect(turns).to_have_count(2)
    assert [t.get_attribute("data-role") for t in turns.all()] == ["user", "assistant"]
    expect(turns.nth(0)).to_contain_text("Name a colour.")
    expect(turns.nth(1)).to_contain_text("Teal.")
    composer = page.locator("[data-composer-input]")
    expect(composer).to_have_value("Name a fruit.")  # the question, for the person to send
    before = finished_runs(page)
    composer.press("Enter")
    wait_finished(page, after=before)
    roles = [t.get_attribute("data-role") for t in turns.all()]
    assert roles == ["user", "assistant", "user", "assistant"]
    page.reload()  # stored as turns, not only drawn
    expect(page.locator(".msg[data-role='assistant']").first).to_contain_text("Teal.")
