"""What a run costs and what a budget has left, where people spend, and the usage and token
pages, in Chromium at a desktop and at a 390 px phone, on a server with a price table: a limit
set on /usage/, a turn's cost chip and the conversation's total, the budget chip before and
after the run (asked again as it ends), the run counted on /usage/ by its kind, a token made on
/tokens/ and shown once; on the phone the same chips in the top bar's menu, and neither page
wider than the screen."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.page_support import (
    PHONE,
    AppPages,
    send,
    wait_finished,
    watched_app,
)
from tests.conftest import CACHED_STATIC, LiveServer, start_daphne, stop

#: Dear enough that a short simulated run has a cost of a few cents, in USD.
PRICES = '[simulator."simulator-*"]\ninput = 100\noutput = 200\n'
MONEY = re.compile(r"^\$0\.\d+$")


@pytest.fixture(scope="module")
def priced_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    folder = tmp_path_factory.mktemp("priced")
    prices = folder / "prices.toml"
    prices.write_text(PRICES)
    server = start_daphne(
        folder, PLAYGROUND_PRICES=str(prices), PLAYGROUND_SIMULATOR_RATE="0", **CACHED_STATIC
    )
    try:
        yield server
    finally:
        stop(server)


@pytest.fixture
def app(
    chromium_browser: Browser, priced_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    yield from watched_app(chromium_browser, priced_server, request)


def fits_the_screen(page: Page) -> bool:
    return bool(page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"))


def test_costs_budget_usage_and_tokens_on_a_desktop_and_a_phone(app: AppPages) -> None:
    # Local mode: the one person is staff, and sets their own limit on /usage/.
    usage = app.open_plain("/usage/")
    form = usage.locator("#set-limit")
    form.locator("[name=person]").fill("local")
    form.locator("[name=limit]").fill("100000")
    form.locator("button[type=submit]").click()
    expect(usage.locator("[data-limits] [data-left]")).to_have_text("100000")

    page = app.conversation()
    budget = page.locator("[data-budget-left]")
    expect(budget).to_have_text("100,000 tokens left today")
    expect(budget).to_be_visible()
    expect(budget).to_have_attribute("title", re.compile(r"your daily limit of 100,000 tokens"))
    total = page.locator("[data-conversation-cost]")
    expect(total).to_be_hidden()  # no run has ended yet
    wait_finished(page, after=send(page, "Tell me about lighthouses"))
    turn_cost = page.locator(".msg[data-role='assistant'] [data-meta='cost'] .meta-value")
    expect(turn_cost).to_have_text(MONEY)
    # The conversation's total is the one run's cost; the budget chip was asked again.
    expect(total).to_have_text(f"cost {turn_cost.inner_text()}")
    expect(total).to_be_visible()
    expect(budget).not_to_have_text("100,000 tokens left today")
    left = int(budget.inner_text().split(" ")[0].replace(",", ""))
    assert 90_000 < left < 100_000

    usage.goto(app.server.url + "/usage/")
    assert fits_the_screen(usage)
    today = usage.locator("[data-span='today']")
    expect(today.locator("td").first).to_have_text("1")
    expect(today.locator("td").nth(2)).to_have_text(turn_cost.inner_text().removeprefix("$"))
    expect(usage.locator("[data-usage-by-kind] [data-kind='interactive'] th")).to_have_text(
        "interactive"
    )

    tokens = app.open_plain("/tokens/")
    tokens.locator("#create-token [name=name]").fill("CI gate")
    tokens.locator("#create-token button[type=submit]").click()
    expect(tokens.locator("[data-new-token]")).to_have_text(re.compile(r"^mpg_\S{20,}$"))
    tokens.goto(app.server.url + "/tokens/")  # shown once: gone on the next look, only its name
    expect(tokens.locator("[data-new-token]")).to_have_count(0)
    expect(tokens.locator("main")).to_contain_text("CI gate")

    # A phone: the chips are in the top bar's menu; the pages stay within the screen.
    phone = app.open(page.url.removeprefix(app.server.url), viewport=PHONE)
    phone.click("[data-action='toggle-menu']")
    for chip, text in (
        ("[data-conversation-cost]", f"cost {turn_cost.inner_text()}"),
        ("[data-budget-left]", budget.inner_text()),
    ):
        expect(phone.locator(chip)).to_have_text(text)
        expect(phone.locator(chip)).to_be_visible()
    narrow_tokens = app.open_plain("/tokens/", viewport=PHONE)
    expect(narrow_tokens.locator("main")).to_contain_text("CI gate")
    assert fits_the_screen(narrow_tokens)
    narrow_usage = app.open_plain("/usage/", viewport=PHONE)
    # Stacked on a phone (no head row), each figure says what it is.
    tokens_cell = narrow_usage.locator("[data-span='today'] td[data-label='Tokens']")
    expect(tokens_cell).to_be_visible()
    assert (
        narrow_usage.evaluate(
            "(cell) => getComputedStyle(cell, '::before').content", tokens_cell.element_handle()
        )
        == '"Tokens: "'
    )
    assert fits_the_screen(narrow_usage)
