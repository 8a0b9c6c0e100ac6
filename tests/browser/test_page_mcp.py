"""The done-means walk of issue 28 on the simulator: a three-call loop where two calls run on
real MCP servers not written here (``mcp-server-time`` from PyPI, server-everything from npm),
one of them edited before it is sent, and one is answered by hand; then replayed on another
model, which answers from the recorded results. The exchanges outlive a reload, the tools'
server marks are stored, and the replay marks how each call was answered."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Locator, Page, expect

from tests.browser.mcp_app import write_config
from tests.browser.page_support import (
    PHONE,
    AppPages,
    own_server_pages,
    send,
    wait_finished,
    watched_app,
)
from tests.browser.test_page_mocks import card
from tests.browser.test_page_tools import WEATHER
from tests.conftest import LiveServer, start_daphne


@pytest.fixture
def mcp_app(chromium_browser: Browser, tmp_path: Path) -> Iterator[AppPages]:
    """The app with two real MCP servers configured, and one the tests' page must show failed,
    on a server of the test's own: it has started no MCP server yet."""
    server = start_daphne(tmp_path, PLAYGROUND_MCP_CONFIG=str(write_config(tmp_path)))
    yield from own_server_pages(chromium_browser, server)


#: The tests that connect the servers themselves (Connect / refresh) run on the worker's shared
#: app server (tests/browser/mcp_app.py): a server of their own each cost about 5 s of CPU more.


@pytest.fixture
def shared_mcp_app(
    chromium_browser: Browser, shared_mcp_server: LiveServer, request: pytest.FixtureRequest
) -> Iterator[AppPages]:
    """:func:`mcp_app`'s configuration on the worker's shared server, pages of the test's
    own: for tests that connect the servers themselves and need no fresh server."""
    yield from watched_app(chromium_browser, shared_mcp_server, request)


def _add_tools(page: Page, server: str, *, only: str | None = None) -> None:
    item = page.locator(f".mcp-server[data-server='{server}']")
    if only is not None:
        for box in item.locator("[data-mcp-tool]").all():
            box.set_checked(box.get_attribute("data-mcp-tool") == only)
    item.locator("[data-action='mcp-add-tools']").click()


def connect_servers(page: Page) -> None:
    """Connect / refresh: every configured server started and listed. A page starts only the
    servers its conversation's tools come from (none in a new conversation)."""
    panel = page.locator("[data-mcp-panel]")
    expect(panel).to_have_attribute("data-loaded", "true", timeout=60_000)
    panel.locator("[data-action='mcp-connect']").click()
    expect(panel).to_have_attribute("data-loaded", "true", timeout=60_000)


def asked_for(page: Page, server: str, tool: str) -> Locator:
    """The card of a call of ``tool`` the model made, once the tool was added from ``server``
    (the only one of its tools) and saved."""
    connect_servers(page)
    _add_tools(page, server, only=tool)
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    wait_finished(page, after=send(page, f"Use {tool} for Paris"))
    return card(page, tool)


def run_two_mcp_calls(page: Page) -> tuple[Locator, Locator]:
    """From a new conversation with get_weather: the servers' panel checked, two MCP tools
    added and saved, a three-call step asked for, and both MCP calls run from their cards."""
    panel = page.locator("[data-mcp-panel]")
    expect(panel).to_have_attribute("data-loaded", "true", timeout=60_000)
    # Opening a conversation with no MCP tools started no server: each says how to start it.
    time_server = page.locator(".mcp-server[data-server='time']")
    expect(time_server).to_have_attribute("data-state", "stopped")
    expect(time_server).to_contain_text("not started — Connect / refresh starts it")
    connect_servers(page)
    expect(time_server).to_have_attribute("data-state", "connected")
    broken = page.locator(".mcp-server[data-server='broken']")
    expect(broken).to_have_attribute("data-state", "failed")
    expect(broken).to_contain_text("not found")
    assert "env-secret-2" not in page.content()

    _add_tools(page, "time", only="time__get_current_time")
    _add_tools(page, "everything", only="everything__echo")
    expect(page.locator("[data-tools-status]")).to_contain_text(
        "get_weather, time__get_current_time, everything__echo"
    )
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    expect(panel).to_have_attribute("data-marks", "saved")
    assert _marks(page) == {
        "time__get_current_time": {"server": "time", "mcp_name": "get_current_time"},
        "everything__echo": {"server": "everything", "mcp_name": "echo"},
    }

    prompt = "Use time__get_current_time, everything__echo and get_weather for Paris"
    wait_finished(page, after=send(page, prompt))
    expect(page.locator(".tool-card")).to_have_count(3)
    echo = card(page, "everything__echo")
    time = card(page, "time__get_current_time")
    expect(card(page, "get_weather").locator(".tool-card-mcp")).to_have_count(0)

    echo.locator("[data-action='mcp-run']").click()
    expect(echo).to_have_attribute("data-mcp", "done")
    expect(echo.locator("textarea")).to_have_value(
        json.dumps([{"type": "text", "text": f"Echo: {_input(echo)['message']}"}], indent=2)
    )
    time.locator("[data-action='mcp-run']").click()
    expect(time).to_have_attribute("data-mcp", "done")
    return echo, time


def _marks(page: Page) -> dict:
    """The conversation's stored server marks, read as the page's own user."""
    found = re.search(r"[0-9a-f]{8}-[0-9a-f-]{27}", page.url)
    assert found, page.url
    base = page.url.split("/", 3)[:3]
    answer = page.request.get(f"{'/'.join(base)}/api/conversations/{found.group(0)}/mcp-tools/")
    return answer.json()["mcp_tools"]


def _open_mcp_tab(page: Page) -> Locator:
    page.click("[data-action='toggle-inspector']")
    page.click("[data-tab='mcp']")
    return page.locator("[data-mcp-exchanges] li")


def test_three_call_loop_with_two_mcp_calls_then_replayed(mcp_app: AppPages) -> None:
    page = mcp_app.conversation(tools=[WEATHER])
    _echo, time = run_two_mcp_calls(page)
    # Edited before it is sent: the model sees the person's text, not the server's.
    time.locator("textarea").fill("It is 09:30 in Paris (edited)")
    card(page, "get_weather").locator("textarea").fill("18 °C by hand")

    # The inspector's MCP tab: each call's request and answer, +ms from its start.
    exchanges = _open_mcp_tab(page)
    expect(exchanges.filter(has_text="everything/echo → tools/call")).to_have_count(1)
    expect(exchanges.filter(has_text="time/get_current_time ← result")).to_have_count(1)
    page.click("[data-action='toggle-inspector']")

    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    results = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(results).to_have_count(1)
    expect(results.first).to_contain_text("It is 09:30 in Paris (edited)")
    expect(results.first).to_contain_text("Echo: ")
    expect(results.first).to_contain_text("18 °C by hand")

    # After a reload the tab shows the calls' exchanges again, as the server stored them.
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    exchanges = _open_mcp_tab(page)
    expect(page.locator("[data-mcp-inspector]")).to_have_attribute("data-stored", "true")
    expect(exchanges.filter(has_text="everything/echo → tools/call")).to_have_count(1)
    expect(exchanges.filter(has_text="time/get_current_time ← result")).to_have_count(1)
    page.click("[data-action='toggle-inspector']")

    page.click("[data-action='open-replay']")
    page.fill("[data-replay-model]", "simulator-1-thinking")
    page.click("[data-action='start-replay']")
    page.wait_for_url("**?replay_of=*")
    page.wait_for_selector("#app[data-ready='true']")
    view = page.locator("[data-replay-view]")
    expect(view).to_be_visible()
    replayed = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(replayed).to_have_count(1, timeout=60_000)
    expect(replayed.first).to_contain_text("It is 09:30 in Paris (edited)")
    # Every call of the step was answered from the recording; none ran again.
    step = view.locator(".replay-step").first
    expect(step).to_have_attribute("data-answers", "recorded recorded recorded")
    expect(step).to_contain_text("from the recording")


def _input(tool_card) -> dict:
    return json.loads(tool_card.locator(".tool-card-input").inner_text())


def test_step_mode_runs_a_call_on_auto_without_a_click(shared_mcp_app: AppPages) -> None:
    page = shared_mcp_app.conversation(tools=[WEATHER])
    connect_servers(page)
    everything = page.locator(".mcp-server[data-server='everything']")
    everything.locator("select[data-mcp-approval='']").select_option("auto")
    _add_tools(page, "everything", only="everything__echo")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.check("[data-step-enabled]")

    before = send(page, "Use everything__echo for Paris")
    # The call ran on the server by itself and its result went back: two runs, no click.
    page.wait_for_function(
        "(n) => Number(document.querySelector('#app').dataset.finishedRuns ?? 0) >= n",
        arg=before + 2,
    )
    expect(page.locator("[data-step-mode]")).to_have_attribute("data-step-state", "done")
    results = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(results).to_have_count(1)
    expect(results.first).to_contain_text("Echo: Paris")


def test_a_crash_mid_call_is_named_on_the_card_which_is_then_answered_by_hand(
    shared_mcp_app: AppPages,
) -> None:
    page = shared_mcp_app.conversation(tools=[WEATHER])
    crash = asked_for(page, "fault", "fault__crash")
    crash.locator("[data-action='mcp-run']").click()
    expect(crash).to_have_attribute("data-mcp", "failed")
    expect(crash).to_have_attribute("data-mcp-error", "mcp_crashed")
    expect(crash.locator("[data-mcp-status]")).to_contain_text("fault/crash: the server exited")
    crash.locator("textarea").fill("the tool crashed; answered by hand")
    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    results = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(results.first).to_contain_text("the tool crashed; answered by hand")


def test_a_replay_can_run_the_mcp_tools_again(mcp_app: AppPages) -> None:
    page = mcp_app.conversation(tools=[WEATHER])
    _echo, time = run_two_mcp_calls(page)
    time.locator("textarea").fill("It is 09:30 in Paris (edited)")
    card(page, "get_weather").locator("textarea").fill("18 °C by hand")
    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)

    page.click("[data-action='open-replay']")
    page.fill("[data-replay-model]", "simulator-1-thinking")
    page.check("[data-replay-rerun]")
    page.click("[data-action='start-replay']")
    page.wait_for_url("**?replay_of=*")
    page.wait_for_selector("#app[data-ready='true']")
    replayed = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(replayed).to_have_count(1, timeout=60_000)
    # The MCP calls ran on their servers again (the edit was not replayed); the hand answer
    # came from the recorded results.
    expect(replayed.first).to_contain_text("Echo: ")
    expect(replayed.first).not_to_contain_text("(edited)")
    expect(replayed.first).to_contain_text("18 °C by hand")
    # The divergence view says which: the two MCP calls ran again, the hand answer was recorded.
    step = page.locator("[data-replay-view] .replay-step").first
    expect(step).to_have_attribute("data-answers", re.compile(r"^(?=(.*rerun){2})(?=.*recorded)"))
    expect(step).to_contain_text("run again on its MCP server")


GONE = {
    "name": "gone__lookup",
    "description": "A tool of a server since removed from the configuration",
    "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
}


def test_an_image_result_is_replayed_and_a_removed_servers_call_is_named(
    shared_mcp_app: AppPages,
) -> None:
    """Issue 43, items 12 and 14: a loop whose MCP result is an image replays (its stored
    reference is a fixture like any result), a try that failed leaves no conversation behind;
    a call of a server no longer configured says so on its card."""
    page = shared_mcp_app.conversation(tools=[WEATHER, GONE])
    base = shared_mcp_app.server.url
    conversation_id = re.search(r"[0-9a-f]{8}-[0-9a-f-]{27}", page.url).group(0)  # type: ignore[union-attr]
    token = next(c["value"] for c in page.context.cookies() if c["name"] == "csrftoken")
    marks = {"mcp_tools": {"gone__lookup": {"server": "gone", "mcp_name": "lookup"}}}
    page.request.post(
        f"{base}/api/conversations/{conversation_id}/mcp-tools/",
        data=marks,
        headers={"X-CSRFToken": token},
    )
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    connect_servers(page)
    _add_tools(page, "everything", only="everything__get-tiny-image")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    wait_finished(
        page, after=send(page, "Use everything__get-tiny-image and gone__lookup for Paris")
    )

    gone = card(page, "gone__lookup")
    expect(gone).to_have_attribute("data-mcp", "unavailable")
    expect(gone).to_contain_text(
        "“gone” is not configured any more: answer it by hand or by a mock"
    )
    gone.locator("textarea").fill("nothing found (by hand)")
    image = card(page, "everything__get-tiny-image")
    image.locator("[data-action='mcp-run']").click()
    expect(image).to_have_attribute("data-mcp", "done")
    # Issue 48, item 7: a picture labelled with its server, the card's text a stored reference.
    expect(image.locator(".mcp-figure")).to_contain_text("image from MCP server everything")
    expect(image.locator("textarea").first).to_have_value(re.compile("everything-image-1.png"))
    assert "base64" not in image.locator("textarea").first.input_value()
    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    # By the mouse: what it aims at in the tool results stays under it while the cards change
    # (test_send_results_stays_under_the_mouse_while_a_card_above_it_grows).
    # By the keyboard: the transcript's own scroll (the inspector's reload) can still move the
    # button between a mouse's aim and its click under load (a CI run at load 10); the page's
    # keep-in-place for a growing card has its own mouse test below.
    page.locator("[data-action='send-tool-results']").press("Enter")
    wait_finished(page, after=before)

    def conversations() -> int:
        listed = page.request.get(f"{base}/api/conversations/?limit=500").json()
        return len(listed["conversations"])

    count = conversations()
    # A try that fails (its fixtures refused) deletes the conversation it made.
    page.route(
        "**/mocks/",
        lambda route: route.fulfill(
            status=400,
            content_type="application/json",
            body='{"error": {"code": "invalid_request", "message": "refused for the test"}}',
        ),
    )
    shared_mcp_app.allowed.append(re.compile("400"))
    page.click("[data-action='open-replay']")  # on the same model: the same calls again
    page.click("[data-action='start-replay']")
    expect(page.locator("[data-replay-error]")).to_contain_text("refused for the test")
    assert conversations() == count
    page.unroute("**/mocks/")
    page.click("[data-action='start-replay']")
    page.wait_for_url("**?replay_of=*")
    page.wait_for_selector("#app[data-ready='true']")
    replayed = page.locator(".msg[data-role='user']:has(.pg-tool-result)")
    expect(replayed).to_have_count(1, timeout=60_000)
    step = page.locator("[data-replay-view] .replay-step").first
    expect(step).to_have_attribute("data-answers", "recorded recorded")


def test_a_servers_sampling_and_elicitation_are_answered_at_the_card_on_a_phone(
    shared_mcp_app: AppPages,
) -> None:
    """Issue 48, items 1 and 2, at 390 px: server-everything's sampling request shows on the
    card, the person picks the profile and model and approves (the answer streams in and goes
    back to the server); its elicitation is a form, accepted."""
    page = shared_mcp_app.conversation(tools=[WEATHER], viewport=PHONE)
    page.locator("[data-action='toggle-menu']").click()  # a phone's settings: from the menu
    page.locator("[data-topbar-menu] [data-action='toggle-settings']").click()
    connect_servers(page)
    item = page.locator(".mcp-server[data-server='everything']")
    for box in item.locator("[data-mcp-tool]").all():
        box.set_checked(
            box.get_attribute("data-mcp-tool")
            in ("everything__trigger-sampling-request", "everything__trigger-elicitation-request")
        )
    item.locator("[data-action='mcp-add-tools']").click()
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    page.keyboard.press("Escape")  # the panel closed: the conversation again
    prompt = "Use everything__trigger-sampling-request and everything__trigger-elicitation-request"
    wait_finished(page, after=send(page, prompt))

    sampling = card(page, "everything__trigger-sampling-request")
    sampling.locator("[data-action='mcp-run']").click()
    expect(sampling).to_have_attribute("data-mcp-question", "sampling")
    question = sampling.locator(".mcp-question")
    expect(question).to_contain_text("user: Resource trigger-sampling-request context:")
    expect(question.locator("[data-sampling-system]")).to_have_value(
        "You are a helpful test server."
    )
    question.locator("[data-sampling-profile]").select_option("simulator")
    question.locator("[data-action='mcp-sampling-approve']").click()
    expect(sampling).to_have_attribute("data-mcp", "done")
    expect(question.locator("[data-question-status]")).to_contain_text("answered by simulator")
    expect(sampling.locator("textarea").first).to_have_value(re.compile("simulator-1"))
    # The answer was a run of its own, opened from the card in the inspector.
    question.locator("[data-action='mcp-sampling-inspect']").click()
    inspector = page.locator("[data-inspector-panel]")
    expect(inspector.locator("[data-inspector-summary]")).to_contain_text(
        "an MCP server's sampling request"
    )
    expect(inspector.locator("[data-inspector-run] option")).to_contain_text(
        ["Sampling for everything · simulator-1 on simulator"]
    )
    page.locator("[data-inspector-panel] [data-action='toggle-inspector']").first.click()

    elicit = card(page, "everything__trigger-elicitation-request")
    elicit.locator("[data-action='mcp-run']").click()
    expect(elicit).to_have_attribute("data-mcp-question", "elicitation")
    form = elicit.locator(".mcp-question")
    form.locator("[data-action='mcp-elicit-accept']").click()
    expect(form.locator("[data-question-status]")).to_contain_text("String is required")
    form.locator("[data-elicit-field='name']").fill("Ada Lovelace")
    form.locator("[data-action='mcp-elicit-accept']").click()
    expect(elicit).to_have_attribute("data-mcp", "done")
    expect(elicit.locator("textarea").first).to_have_value(re.compile("Name: Ada Lovelace"))


def test_send_results_stays_under_the_mouse_while_a_card_above_it_grows(
    shared_mcp_app: AppPages,
) -> None:
    """A mouse aimed at Send results, then a picture landing in the card above it: the click
    at the same place still sends (the card's growth once moved the button from under it)."""
    page = shared_mcp_app.conversation(tools=[WEATHER])
    connect_servers(page)
    _add_tools(page, "everything", only="everything__get-tiny-image")
    page.click("[data-action='save-settings']")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")
    wait_finished(
        page, after=send(page, "Use everything__get-tiny-image and get_weather for Paris")
    )
    card(page, "get_weather").locator("textarea").fill("18 °C, clear (by hand)")
    image = card(page, "everything__get-tiny-image")
    button = page.locator("[data-action='send-tool-results']")
    # Scrolled to its very end, the hardest case: when the results' row shrinks (the hint
    # empties, the label unwraps), there is nothing further down to scroll to.
    page.locator("[data-transcript]").evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    box = button.bounding_box()
    assert box is not None
    aim = (box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.move(*aim)
    expect(page.locator("[data-transcript]")).to_have_attribute("data-holding", "true")
    # Run by an event, so neither the mouse nor a focus moves; the picture lands above.
    image.locator("[data-action='mcp-run']").dispatch_event("click")
    expect(image).to_have_attribute("data-mcp", "done")
    figure = image.locator(".mcp-figure img")
    expect(figure).to_be_visible()
    page.wait_for_function(
        "(img) => img.complete && img.naturalHeight > 0", arg=figure.element_handle()
    )
    expect(button).to_be_enabled()
    # Measured once the frame that lays the picture out has run (its size is known when it
    # is decoded; the page keeps the button in place in that frame, before a click could land).
    page.evaluate(
        "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"
    )
    moved = button.bounding_box()
    assert moved is not None
    # Its top kept where it was (the hold keeps the aim's top to half a pixel), so still under
    # the mouse, though its label unwrapped once every result was in (it changes shape).
    assert abs(moved["y"] - box["y"]) < 1, (aim, box, moved)
    assert moved["y"] <= aim[1] <= moved["y"] + moved["height"], (aim, box, moved)
    assert moved["x"] <= aim[0] <= moved["x"] + moved["width"], (aim, box, moved)
    before = int(page.locator("#app").get_attribute("data-finished-runs") or 0)
    page.mouse.down()
    page.mouse.up()  # the click where the mouse aimed before the card grew
    wait_finished(page, after=before)
