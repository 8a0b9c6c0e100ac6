"""Take the README's screenshot of a grid's experiment beside its baseline, on the simulator.

Run: ``.venv/bin/python -m tests.browser.screenshot_experiments`` (writes
docs/img/grid-experiments.png at 1440x900). It starts its own server, makes a grid of three
test cases and two columns with a scorer through the API, runs it (experiment 1), changes the
scorers (a judge on the second column) so that some answers fail, runs it again (experiment
2, confirmed on the page), and
shoots the page with the Experiments panel open: the chart of each column's pass rate, #2
against #1 with its flips and each column's deltas.
"""

from __future__ import annotations

from typing import Any

from tests.browser.page_support import POST_JSON
from tests.browser.screenshot import simulator_browser
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "grid-experiments.png"
TIMEOUT_MS = 60_000
PATCH_JSON = POST_JSON.replace('method: "POST"', 'method: "PATCH"')
PROMPT = "[[sim: rate=400]] Explain {{topic}} to a child in two sentences."
COLUMNS = [
    {"label": "plain", "changes": {}},
    {"label": "terse", "changes": {"system": "Answer in one line.", "max_tokens": 200}},
]
ROWS = [{"topic": "tides"}, {"topic": "owls"}, {"topic": "volcanoes"}]


def main() -> None:
    with simulator_browser() as (server, browser):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/")

        def call(path: str, body: dict[str, Any], script: str = POST_JSON) -> Any:
            return page.evaluate(script, [server.url + path, body])

        request = {"model": "simulator-1", "max_tokens": 300}
        made = call("/api/import/", {"request": {**request, "messages": [
            {"role": "user", "content": PROMPT}]}})  # fmt: skip
        scorers = [{"kind": "not_contains", "value": "zebra", "name": "No zebras"}]
        grid = call(
            f"/api/conversations/{made['id']}/grids/",
            {"title": "Explain to a child", "columns": COLUMNS, "rows": ROWS, "scorers": scorers},
        )
        call(f"/api/grids/{grid['id']}/run/", {})
        page.goto(f"{server.url}/grids/{grid['id']}/")
        page.wait_for_selector("#grid[data-state='ready']")
        page.wait_for_selector("[data-experiments-panel][data-state='ready']")
        # A judge on the terse column (the simulator's: the quoted word in the answer, or not):
        # the terse answers that passed before and do not mention tides fail now.
        judge = {"kind": "judge", "rubric": "Mentions 'tides'", "column": 1, "name": "Judge"}
        stricter = [*scorers, judge]
        call(f"/api/grids/{grid['id']}/", {"scorers": stricter}, PATCH_JSON)
        page.reload()
        page.wait_for_selector("#grid[data-state='ready']")
        page.click("[data-run-all]")
        page.click("[data-confirm-yes]")
        page.wait_for_selector("[data-experiment] option:nth-child(2)", state="attached")
        page.wait_for_selector("[data-experiments-panel][data-state='compared']")
        page.click("[data-experiments-panel] summary")
        page.locator("[data-experiments-panel]").scroll_into_view_if_needed()
        page.screenshot(path=str(OUTPUT))
        print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
