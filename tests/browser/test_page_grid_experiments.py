"""A grid's experiments in a real browser, on the simulator: the first run needs no question;
a re-run says first how many upstream calls it makes (Cancel runs nothing); each run is listed
as an experiment with a chart of the column's pass rate; the newest against the one before
names the cells that flipped; an experiment's export and read-only link; on a phone the panel
never makes the page scroll sideways."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app
from tests.browser.test_page_grid import confirm_run, wait_all_done

__all__ = ["app"]

pytestmark = pytest.mark.browser

PROMPT = {"role": "user", "content": "Explain {{topic}} to a child."}


def grid_of_two(app: AppPages, viewport: tuple[int, int]) -> Page:
    page = app.imported(
        {"model": "simulator-1", "max_tokens": 128, "messages": [PROMPT]}, viewport=viewport
    )
    page.goto(app.server.url + (page.locator("[data-grid-link]").get_attribute("href") or ""))
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    page.fill("[data-paste]", '{"topic": "tides"}\n{"topic": "owls"}\n')
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")
    wait_all_done(page, 2)
    return page


@pytest.mark.parametrize("viewport", [(1440, 900), PHONE], ids=["desktop", "phone"])
def test_a_rerun_asks_first_and_its_experiment_shows_what_flipped(
    app: AppPages, viewport: tuple[int, int]
) -> None:
    page = grid_of_two(app, viewport)
    panel = page.locator("[data-experiments-panel]")
    expect(panel).to_have_attribute("data-state", "ready")
    panel.locator("summary").click()
    expect(panel.locator("[data-experiment] option")).to_have_count(1)

    # Every answer now fails a scorer (scored again on the server, no model called).
    page.locator("[data-scorers-panel] summary").click()
    page.fill("[data-scorers]", json.dumps([{"kind": "contains", "value": "zqxj"}]))
    page.click("[data-save-scorers]")
    expect(page.locator("[data-scorers-panel]")).to_have_attribute("data-state", "saved")

    # A re-run asks first, saying its upstream calls; Cancel runs nothing.
    page.click("[data-run-all]")
    dialog = page.locator("[data-confirm-run]")
    expect(dialog).to_contain_text("This makes 2 upstream call(s) (2 answer(s))")
    dialog.locator("[data-confirm-no]").click()
    expect(page.locator("[data-grid-message]")).to_have_text("not run")
    expect(panel.locator("[data-experiment] option")).to_have_count(1)
    page.click("[data-run-all]")
    confirm_run(page)
    expect(page.locator("[data-grid-message]")).to_have_text("2 cell(s) ran", timeout=60_000)

    # Experiment 2 against experiment 1: both cells passed there and fail now.
    expect(panel.locator("[data-experiment] option")).to_have_count(2)
    expect(panel).to_have_attribute("data-state", "compared")
    expect(panel.locator("[data-compare-summary] li").first).to_have_text(
        "#2 against #1: 2 pass→fail, 0 fail→pass"
    )
    expect(panel.locator("[data-compare-summary] li").nth(1)).to_contain_text(
        "pass 100% → 0% (-100 pts)"
    )
    expect(panel.locator("[data-compare-flips] li[data-flip='pass_to_fail']")).to_have_count(2)
    expect(panel.locator(".experiment-chart circle")).to_have_count(2)
    points = panel.locator(".experiment-chart polyline").get_attribute("points") or ""
    assert len(points.split()) == 2, points

    # No baseline: the experiment alone.
    panel.locator("[data-baseline]").select_option("")
    expect(panel).to_have_attribute("data-state", "ready")
    expect(panel.locator("[data-compare-summary] li")).to_contain_text("pass 0% (0/2)")

    href = panel.locator("[data-experiment-export='json']").get_attribute("href") or ""
    exported = page.request.get(app.server.url + href)
    assert exported.ok and exported.json()["number"] == 2, exported.text()

    widths: Any = page.evaluate("() => [document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], widths

    # Experiment 1, shared read-only: its cells as they were (both passed), nothing to run.
    panel.locator("[data-experiment]").select_option("1")
    panel.locator("[data-experiment-share]").click()
    link = panel.locator("[data-experiment-share-link]")
    expect(link).to_be_visible()
    shared = app.open_plain(link.input_value())
    expect(shared.locator("#grid")).to_have_attribute("data-state", "ready")
    expect(shared.locator(".grid-verdict[data-verdict='passed']")).to_have_count(2)
    assert shared.locator("[data-run-all], [data-rate], .grid-open").count() == 0
