"""The done-means walk of issue 15: a three-step parallel-call loop in step mode on mocks, then
replayed on a second profile (another server's simulator, another model), with the divergence
of the tool_use decisions shown side by side."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.browser.page_support import AppPages, send, wait_finished, watched_app
from tests.browser.test_page_step_mode import STEP, _mocks, _wait_runs
from tests.browser.test_page_tools import TIME
from tests.conftest import LiveServer

#: A free field (`days`) the simulator fills from its seed, which the model changes: so the
#: replay's inputs differ from the source's where the prompt does not decide them.
FORECAST = {
    "name": "get_weather",
    "description": "Forecast for a city.",
    "input_schema": {
        "type": "object",
        "properties": {
            "location": {"type": "string"},
            "days": {"type": "integer", "minimum": 1, "maximum": 7},
        },
        "required": ["location", "days"],
    },
}


@pytest.fixture
def two_upstreams(
    chromium_browser: Browser, profiles_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    """The profile tests' server (tests/browser/profiles_app.py), whose ``mirror`` profile is a
    second upstream: the session server's simulator, with no model of its own configured."""
    yield from watched_app(chromium_browser, profiles_server, request)


def _three_step_loop(app: AppPages) -> Page:
    page = app.conversation(tools=[FORECAST, TIME])
    _mocks(page, ("get_weather", "sunny; get_time next"), ("get_time", "09:30; get_weather next"))
    page.fill("[data-step-limit]", "3")
    page.locator("[data-step-limit]").dispatch_event("change")
    page.check("[data-step-enabled]")
    wait_finished(page, after=send(page, "Use get_weather and get_time for Paris"))
    _wait_runs(page, 4)
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    expect(page.locator(".msg[data-role='user']:has(.pg-tool-result)")).to_have_count(3)
    return page


def test_a_loop_replayed_on_a_second_profile_shows_where_it_diverges(
    two_upstreams: AppPages,
) -> None:
    page = _three_step_loop(two_upstreams)
    source_url = page.url

    page.click("[data-action='open-replay']")
    page.select_option("[data-replay-profile]", "mirror")
    page.fill("[data-replay-model]", "simulator-1-thinking")
    page.click("[data-action='start-replay']")
    page.wait_for_url("**?replay_of=*")
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator("[data-model-chip]")).to_have_text("mirror · simulator-1-thinking")

    # The user turn went again by itself; step mode answered from the fixtures and the mocks.
    _wait_runs(page, 4)
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    view = page.locator("[data-replay-view]")
    expect(view).to_be_visible()
    expect(view.locator("[data-replay-source-link]")).to_have_attribute(
        "href", source_url.removeprefix(two_upstreams.server.url)
    )
    steps = view.locator("tr.replay-step")
    expect(steps).to_have_count(4)  # three answered steps and the calls waiting at the limit
    expect(view).to_have_attribute("data-diverged", "true")
    # Same tools in the same order, each time: the divergence is in the free input field.
    notes = view.locator("tr.replay-step[data-diverged='true'] .replay-notes")
    expect(notes.first).to_contain_text("get_weather input ~ days:")
    expect(view.locator(".replay-notes", has_text="order:")).to_have_count(0)
    expect(view.locator(".replay-notes", has_text="tools:")).to_have_count(0)
    # A call whose input the source answered got the source's own result (a fixture).
    results = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(results.first).to_contain_text("09:30; get_weather next")
    # Reloaded, the replay stopped at its limit is still stopped there: Continue is shown, and
    # nothing more is sent until it is pressed (issue 48: Continue was hidden after a reload).
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "stopped")
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    expect(page.locator("[data-action='step-continue']")).to_be_visible()
    expect(view).to_have_attribute("data-state", "waiting")
    expect(results).to_have_count(3)
    page.locator("[data-action='step-continue']").click()  # and it resumes for as many more
    # Its end, not a count on the way (4 was seen only when a poll fell between two steps): the
    # reloaded page's counter from 0, three more steps, stopped at the limit again.
    _wait_runs(page, 3)
    expect(page.locator(STEP)).to_have_attribute("data-step-state", "stopped")
    expect(page.locator(STEP)).to_have_attribute("data-step-reason", "limit")
    expect(results).to_have_count(5)
    # On a phone each step is a block of labelled rows: no sideways scroll, no word a line.
    page.set_viewport_size({"width": 390, "height": 844})
    wrap = view.locator(".replay-table-wrap")
    sizes = wrap.evaluate("(node) => [node.scrollWidth, node.clientWidth]")
    assert sizes[0] <= sizes[1] + 1, sizes
    # Continue redraws the table as the resumed step ends: read the label of the row on screen
    # once it has one (read in the middle of a redraw, it was a new row not yet styled: '').
    label = page.wait_for_function(
        """() => {
            const cell = document.querySelector("[data-replay-view] tr.replay-step td");
            const content = cell && getComputedStyle(cell, "::before").content;
            return content && content !== "none" ? content : null;
        }"""
    ).json_value()
    assert "mirror · simulator-1-thinking" in label or "Source:" in label, label
