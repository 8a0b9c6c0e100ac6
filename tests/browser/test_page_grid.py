"""The evaluation grid in a real browser, on the simulator: made from a conversation with a
variable (typed test cases on a desktop, pasted JSON Lines on a phone), its cells streaming to
complete with their timings, rated, scored (scorers saved on the page, a judge on the
simulator), re-run by column, exported, shared read-only and opened as their own conversation;
on a phone the page never scrolls sideways (the table does); cases
imported from a CSV file over a prompt with an output schema, a cell failed mid-stream re-run
by "Re-run failed", a row re-run, and a cell's conversation opened with its answer checked; a
reload while cells stream loses none of them."""

from __future__ import annotations

import json
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import PHONE, AppPages, app

__all__ = ["app"]

pytestmark = pytest.mark.browser

PROMPT = {"role": "user", "content": "[[sim: rate=400]] Explain {{topic}} to a child."}
DONE = "td[data-cell][data-status='complete']"


def source(app: AppPages, *, viewport: tuple[int, int] = (1440, 900)) -> tuple[Page, str]:
    page = app.imported(
        {"model": "simulator-1", "max_tokens": 256, "messages": [PROMPT]}, viewport=viewport
    )
    link = page.locator("[data-grid-link]")
    href = link.get_attribute("href")
    assert href is not None and href.endswith("/grid/")
    page.goto(app.server.url + href)
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    return page, href


def confirm_run(page: Page) -> None:
    """Yes to the question a run that replaces answers asks first (its upstream calls)."""
    dialog = page.locator("[data-confirm-run]")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("upstream call(s)")
    dialog.locator("[data-confirm-yes]").click()


def wait_all_done(page: Page, cells: int) -> None:
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.locator(DONE)).to_have_count(cells)


def test_a_grid_is_made_run_rated_rerun_exported_and_shared(app: AppPages) -> None:
    page, _ = source(app)
    inputs = page.locator("[data-variable='topic']")
    inputs.nth(0).fill("tides")
    inputs.nth(1).fill("<b>owls</b>")  # text, never markup
    page.click("[data-add-column]")
    second = page.locator("[data-column-form='1']")
    second.locator("[data-field='label']").fill("terse")
    second.locator("[data-field='system']").fill("Answer in one line.")
    page.click("[data-create]")

    page.wait_for_url("**/grids/*/")
    wait_all_done(page, 4)
    assert page.locator(".grid-value b").count() == 2  # the label, not the value's markup
    expect(page.locator("tr[data-row='1'] .grid-case")).to_contain_text("<b>owls</b>")
    first = page.locator("td[data-cell]").first
    expect(first.locator(".grid-metrics")).to_contain_text("TTFT")
    expect(first.locator(".grid-metrics")).to_contain_text("tok/s")
    expect(page.locator("[data-summary='0']")).to_contain_text("2/2 done · pass 100%")

    first.locator("[data-rate='good']").click()
    expect(first.locator("[data-rate='good']")).to_have_attribute("aria-pressed", "true")
    first.locator(".grid-note").fill("clear and short")
    first.locator(".grid-note").press("Tab")
    expect(page.locator("[data-summary='0']")).to_contain_text("good 1 · bad 0")

    # Scorers, saved from the page: every answer scored on the server, a judge (the simulator,
    # deterministic) on the first column only; each cell says each verdict and why.
    page.locator("[data-scorers-panel] summary").click()
    scorers = [
        {"kind": "not_contains", "value": "zebra"},
        {"kind": "judge", "rubric": "Mentions 'zebra'", "column": 0},
    ]
    page.fill("[data-scorers]", json.dumps(scorers))
    page.click("[data-save-scorers]")
    expect(page.locator("[data-scorers-panel]")).to_have_attribute("data-state", "saved")
    expect(page.locator("[data-rates='0']")).to_have_text("Does not contain 100% · Judge 0%")
    expect(page.locator("[data-rates='1']")).to_have_text("Does not contain 100%")
    expect(first.locator(".grid-verdict")).to_have_text("failed")
    expect(first.locator(".grid-scores li").nth(1)).to_have_text(
        "✗ Judge 0: does not mention 'zebra'"
    )
    expect(page.locator("[data-summary='1']")).to_contain_text("pass 100%")

    # Re-run the second column: its cells queue, run again and complete.
    page.click("[data-run-column='1']")
    confirm_run(page)
    # "2 cell(s) queued", then, once they ran (on the simulator, maybe before a look), this:
    expect(page.locator("[data-grid-message]")).to_have_text("2 cell(s) ran")
    wait_all_done(page, 4)

    opened = first.locator(".grid-open").get_attribute("href")
    assert opened is not None and opened.startswith("/c/")

    exports = {
        kind: app.server.url + (page.locator(f"[data-export='{kind}']").get_attribute("href") or "")
        for kind in ("csv", "jsonl")
    }
    csv = page.request.get(exports["csv"])
    assert csv.ok and "topic" in csv.text() and "clear and short" in csv.text()
    jsonl = page.request.get(exports["jsonl"])
    lines = [json.loads(line) for line in jsonl.text().splitlines()]
    assert len(lines) == 4 and lines[0]["rating"] == "good"

    page.click("[data-share]")
    link = page.locator("[data-share-link]")
    expect(link).to_be_visible()
    shared = app.open_plain(link.input_value())
    expect(shared.locator("#grid")).to_have_attribute("data-state", "ready")
    expect(shared.locator(DONE)).to_have_count(4)
    assert shared.locator("[data-rate], .grid-open, [data-run-all]").count() == 0
    expect(shared.locator(".grid-rating").first).to_contain_text("clear and short")


def test_on_a_phone_pasted_cases_run_and_only_the_table_scrolls_sideways(app: AppPages) -> None:
    page, _ = source(app, viewport=PHONE)
    page.fill("[data-paste]", '{"topic": "rain"}\n{"topic": "snow"}\n{"topic": "wind"}\n')
    page.click("[data-add-column]")
    page.locator("[data-column-form='1'] [data-field='temperature']").fill("0.2")
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")
    wait_all_done(page, 6)
    widths: Any = page.evaluate(
        "() => [document.documentElement.scrollWidth, window.innerWidth,"
        " document.querySelector('[data-grid-table]').scrollWidth,"
        " document.querySelector('[data-grid-table]').clientWidth]"
    )
    page_width, viewport, table_width, box_width = widths
    assert page_width <= viewport, widths
    assert table_width > box_width, widths  # two 13rem columns do not fit: the box scrolls
    expect(page.locator("[data-run-failed]")).to_be_visible()


SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}},
    "required": ["city"],
}


def test_cases_from_a_file_a_failed_cell_rerun_and_a_cell_opened_as_a_conversation(
    app: AppPages,
) -> None:
    page = app.imported(
        {
            "model": "simulator-1",
            "max_tokens": 256,
            "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
            "messages": [PROMPT],
        }
    )
    page.goto(app.server.url + (page.locator("[data-grid-link]").get_attribute("href") or ""))
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    # The second case's first answer breaks off with an error event; its re-run is answered.
    cases = 'topic\nowls\n"tides [[sim: error=overloaded_error after=6 times=1]]"\n'
    page.set_input_files(
        "[data-import]",
        files=[{"name": "cases.csv", "mimeType": "text/csv", "buffer": cases.encode()}],
    )
    expect(page.locator("[data-paste]")).to_have_value(cases)
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")

    expect(page.locator("#grid")).to_have_attribute("data-state", "ready", timeout=60_000)
    expect(page.locator("tr[data-row='1'] td[data-status='failed']")).to_have_count(1)
    done = page.locator(f"tr[data-row='0'] {DONE}")
    expect(done.locator(".grid-schema")).to_have_attribute("data-fits", "true")
    expect(page.locator("[data-summary='0']")).to_contain_text("2/2 done · pass 50%")

    page.click("[data-run-failed]")
    confirm_run(page)
    expect(page.locator("[data-grid-message]")).to_have_text("1 cell(s) ran")
    wait_all_done(page, 2)
    expect(page.locator("[data-summary='0']")).to_contain_text("pass 100%")

    page.click("[data-run-row='0']")
    confirm_run(page)
    expect(page.locator("[data-grid-message]")).to_have_text("1 cell(s) ran")
    wait_all_done(page, 2)

    # A cell opens as its own conversation: the case's value set, the answer checked.
    # It opens in a new tab (the grid stays); followed here in the same one.
    href = page.locator("tr[data-row='0'] .grid-open").get_attribute("href") or ""
    page.goto(app.server.url + href, wait_until="domcontentloaded")
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    expect(page.locator(".msg[data-role='assistant'] .output-check").last).to_have_attribute(
        "data-output-check", "fits"
    )
    opened = page.request.get(app.server.url + "/api/conversations/" + href.split("/")[2] + "/")
    assert opened.ok and opened.json()["variables"] == {"topic": "owls"}, opened.text()


def test_a_reload_while_cells_stream_loses_none(app: AppPages) -> None:
    slow = {"role": "user", "content": "[[sim: rate=60]] Explain {{topic}} to a child."}
    page = app.imported({"model": "simulator-1", "max_tokens": 120, "messages": [slow]})
    page.goto(app.server.url + (page.locator("[data-grid-link]").get_attribute("href") or ""))
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    page.fill("[data-paste]", "topic\n" + "".join(f"case {n}\n" for n in range(6)))
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")
    expect(page.locator("td[data-cell][data-status='running']").first).to_be_visible()

    page.reload()

    expect(page.locator("#grid")).to_have_attribute("data-state", "live")
    wait_all_done(page, 6)
    expect(page.locator("[data-summary='0']")).to_contain_text("6/6 done · pass 100%")


def test_a_header_typo_is_said_an_idle_page_follows_runs_from_elsewhere_and_stop_stops(
    app: AppPages,
) -> None:
    # Answers of 13-16 s (up to 160 tokens at 10 a second): the idle tab below sees the cells
    # run only if they still run when its pulse (every 3 s) and its read of the grid come back,
    # and Stop stops them only if they still run when it lands. At 40 a second (4-5 s) the
    # idle tab's reads at load 24 came back less than a second before the cells ended.
    slow = {"role": "user", "content": "[[sim: rate=10]] Explain {{topic}} to a child."}
    page = app.imported({"model": "simulator-1", "max_tokens": 160, "messages": [slow]})
    page.goto(app.server.url + (page.locator("[data-grid-link]").get_attribute("href") or ""))
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    # A typo beside the right column: the prompt names {{topic}}, not {{topik}}.
    page.fill("[data-paste]", "topic,topik\nowls,x\nbats,y\n")
    page.click("[data-create]")
    page.wait_for_url("**/grids/*/")
    warning = page.locator("[data-grid-warnings]")
    expect(warning).to_be_visible()
    expect(warning).to_contain_text("the prompt names no topik")
    wait_all_done(page, 2)
    first = page.locator("td[data-cell]").first
    first.locator("[data-rate='good']").click()
    expect(first.locator("[data-rate='good']")).to_have_attribute("aria-pressed", "true")

    # Another tab on the same grid, idle: a run started elsewhere shows there, and the rating
    # of the answer it replaced is gone with that answer.
    other = app.open_plain(page.url)
    expect(other.locator("#grid")).to_have_attribute("data-state", "ready")
    expect(other.locator("[data-stop]")).to_be_hidden()
    page.click("[data-run-all]")
    confirm_run(page)
    expect(other.locator("#grid")).to_have_attribute("data-state", "live")
    wait_all_done(other, 2)
    expect(other.locator("td[data-cell]").first.locator("[data-rate='good']")).to_have_attribute(
        "aria-pressed", "false"
    )

    # Stop: shown while cells run; the live ones end stopped, and none is left queued.
    page.click("[data-run-all]")
    confirm_run(page)
    stop = page.locator("[data-stop]")
    expect(stop).to_be_visible()
    # Both cells streaming before the click: a cell still queued then leaves the queue unrun and
    # keeps its last answer ("not started"), which is not what this part checks.
    expect(page.locator("td[data-cell][data-status='running']")).to_have_count(2)
    stop.click()
    expect(page.locator("[data-grid-message]")).to_contain_text("stopped: 2 running")
    expect(page.locator("#grid")).to_have_attribute("data-state", "ready")
    expect(stop).to_be_hidden()
    expect(page.locator("td[data-cell][data-status='stopped']")).to_have_count(2)
