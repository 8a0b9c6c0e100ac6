"""The rough edges a person hits, and the way on from each: an unanswered turn has Run, typed
settings apply on Send, a dead socket and a silent upstream are named, retries are counted, a
failure says only what is true and lets the person go on.
"""

from __future__ import annotations

import json
import uuid
from typing import Any

from playwright.sync_api import Page, WebSocketRoute, expect

from tests.browser.page_support import (
    AppPages,
    app,
    finished_runs,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_tools import WEATHER

__all__ = ["app"]

ASK = {"role": "user", "content": "Tell me about tides"}
CALL = {
    "role": "assistant",
    "content": [
        {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"location": "Brest"}}
    ],
}
RESULT = {
    "role": "user",
    "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "12 °C, rain"}],
}


def _body(*messages: dict[str, Any], **extra: Any) -> dict[str, Any]:
    return {"model": "simulator-1", "max_tokens": 1024, "messages": list(messages), **extra}


# --- item 3: an imported request (or any unanswered last turn) can be run --------------------


def test_an_imported_request_ending_with_a_user_turn_has_run(app: AppPages) -> None:
    page = app.imported(_body(ASK))
    run = page.locator("[data-action='run']")
    expect(run).to_be_visible()
    expect(page.locator("[data-composer-why]")).to_contain_text("Run it")
    before = finished_runs(page)
    run.click()
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("tides")
    expect(run).to_be_hidden()


def test_an_imported_request_ending_with_tool_results_has_run(app: AppPages) -> None:
    page = app.imported(_body(ASK, CALL, RESULT, tools=[WEATHER]))
    # The result names the tool it answers, not only the call's id.
    expect(page.locator(".pg-tool-result [data-tool-name]")).to_have_text("get_weather")
    before = finished_runs(page)
    page.click("[data-action='run']")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator(".pg-text")).to_contain_text("12 °C, rain")


# --- item 4: settings typed but not saved apply on Send --------------------------------------


def test_a_setting_typed_and_not_saved_applies_to_the_next_send(app: AppPages) -> None:
    page = app.conversation()
    page.fill("input[name=max_tokens]", "5")  # no Save: Send must not go out without it
    before = send(page, "Tell me about tides")
    wait_finished(page, after=before)
    expect(last_assistant(page).locator("[data-meta='stop-reason']")).to_contain_text("max_tokens")
    expect(page.locator("[data-settings-panel]")).to_have_attribute("data-settings-state", "saved")


def test_a_typed_setting_the_server_refuses_stops_send_and_says_which(app: AppPages) -> None:
    app.allow_console(r"status of 400 \(Bad Request\)")
    page = app.conversation()
    page.fill("input[name=temperature]", "5")
    page.fill("[data-composer-input]", "Tell me about tides")
    page.press("[data-composer-input]", "Enter")
    error = page.locator("[data-composer-error]")
    expect(error).to_contain_text("Not sent")
    expect(error).to_contain_text("temperature")
    expect(page.locator(".msg[data-role='user']")).to_have_count(0)
    expect(page.locator("[data-composer-input]")).to_have_value("Tell me about tides")


# --- item 5: a dead socket, a silent upstream, retries before the first event ----------------


HELD = {"run.events", "run.saving", "run.finished"}


class Proxy:
    """The page's socket through a relay the test controls: cut it silently, or hold and add
    server frames. Every socket the page opens goes through it."""

    def __init__(self, page: Page) -> None:
        self.routes: list[WebSocketRoute] = []
        self.silent = False  # drop everything both ways, close nothing: a dead network
        self.inject: list[dict[str, Any]] = []  # sent to the page right after run.started
        self.held: list[str] | None = None  # server frames held back while a list
        page.route_web_socket("**/ws/conversations/**", self._route)

    def _route(self, route: WebSocketRoute) -> None:
        server = route.connect_to_server()
        self.routes.append(route)
        live = len(self.routes)
        route.on_message(lambda m: None if self._dead(live) else server.send(m))
        server.on_message(lambda m: self._to_page(route, live, m))

    def _dead(self, index: int) -> bool:
        return self.silent and index == len(self.routes)

    def _to_page(self, route: WebSocketRoute, index: int, message: str | bytes) -> None:
        if self._dead(index):
            return
        frame = json.loads(message)
        if self.held is not None and frame.get("type") in HELD:
            self.held.append(str(message))
            return
        route.send(message)
        if frame.get("type") == "run.started":
            for extra in self.inject:
                route.send(json.dumps({**extra, "run_id": frame["run"]["id"]}))

    def release(self) -> None:
        held, self.held = self.held or [], None
        for message in held:
            self.routes[-1].send(message)


def test_a_dead_socket_is_noticed_by_the_heartbeat_and_replaced(app: AppPages) -> None:
    page = app.open("/")
    proxy = Proxy(page)
    page.click("[data-action='new-conversation']")
    page.wait_for_selector("#app[data-connection='open']")
    proxy.silent = True  # no close, no error: only the missing pong can tell
    # Checked every frame, state and text together: the closed state lasts only until the
    # backoff's reconnect, which a slower check can miss on a loaded machine.
    page.wait_for_function(
        """() => document.querySelector("#app").dataset.connection === "closed"
            && document.querySelector("[data-connection-text]").textContent
                .includes("Connection lost")""",
        polling="raf",
    )
    proxy.silent = False
    page.wait_for_selector("#app[data-connection='open']")
    assert len(proxy.routes) >= 2  # a new socket (the dead one was dropped, not waited for)
    before = send(page, "Tell me about bridges")
    wait_finished(page, after=before)


def test_a_silent_upstream_is_named_on_the_live_run(app: AppPages) -> None:
    page = app.conversation()
    send(page, "Tell me about tides [[sim: stall=60 after=3]]")
    note = page.locator(".msg[data-live='true'] .turn-live-note")
    expect(note).to_contain_text("No data from the upstream for")
    expect(page.locator("#app")).to_have_attribute("data-stalled", "true")
    page.click("[data-action='stop']")
    page.wait_for_selector("#app[data-run-state='idle'][data-last-status='stopped']")
    expect(page.locator(".turn-live-note")).to_have_count(0)
    expect(page.locator("#app")).not_to_have_attribute("data-stalled", "true")


def test_retries_before_the_first_event_are_counted(app: AppPages) -> None:
    page = app.open("/")
    proxy = Proxy(page)
    proxy.inject = [
        {
            "type": "run.retrying",
            "attempt": 2,
            "attempts": 3,
            "retry_in_ms": 2000,
            "reason": "HTTP 529",
        }
    ]
    proxy.held = []  # the first events wait, as a retried upstream's would
    page.click("[data-action='new-conversation']")
    page.wait_for_selector("#app[data-connection='open']")
    # Every text the note shows, kept as it changes: "1 s" shows for a second, which polling
    # at a second's pace on a loaded machine can step over.
    page.evaluate(
        """() => {
            window.__notes = [];
            new MutationObserver(() => {
                const note = document.querySelector(".msg[data-live='true'] .turn-live-note");
                if (note) window.__notes.push(note.textContent);
            }).observe(document.querySelector("#app"), { subtree: true, childList: true });
        }"""
    )
    send(page, "Tell me about tides")
    note = page.locator(".msg[data-live='true'] .turn-live-note")
    expect(note).to_contain_text("retrying in 2 s, attempt 2 of 3")
    expect(note).to_contain_text("HTTP 529")
    expect(page.locator("#app")).to_have_attribute("data-retrying", "2")
    page.wait_for_function(  # counts down
        "() => window.__notes.some((text) => text.includes('retrying in 1 s, attempt 2 of 3'))"
    )
    proxy.release()
    expect(page.locator("#app")).not_to_have_attribute("data-retrying", "2")
    wait_finished(page, after=0)
    expect(page.locator(".turn-live-note")).to_have_count(0)


# --- item 7: what a failure says, and going on after one -------------------------------------


def test_a_failure_before_any_answer_keeps_no_partial_answer_and_the_person_goes_on(
    app: AppPages,
) -> None:
    page = app.conversation()
    # Every attempt (the first and its two retries) is refused with a 429. The counter behind
    # `times` is per body and per server: a text of its own keeps other tests' runs out of it.
    before = send(page, f"Tell me about tides {uuid.uuid4().hex} [[sim: status=429 times=3]]")
    wait_finished(page, "failed", after=before)
    error = last_assistant(page).locator(".turn-error")
    expect(error).to_be_visible()
    expect(error).not_to_contain_text("partial answer")
    # No edit, no regenerate needed: the hint names the ways on, and a new message goes alone
    # (the refused one would refuse it again), the unanswered one kept behind its arrows.
    why = page.locator("[data-composer-why]")
    expect(why).to_contain_text("Run it as it is")
    expect(why).to_contain_text("Send sends your new text alone")
    page.fill("[data-composer-input]", "Tell me about rivers instead")
    expect(page.locator("[data-action='send-join']")).to_be_visible()
    before = send(page, "Tell me about rivers instead")
    wait_finished(page, after=before)
    user = page.locator(".msg[data-role='user']")
    expect(user).to_have_count(1)
    expect(user).to_contain_text("Tell me about rivers instead")
    expect(user).not_to_contain_text("Tell me about tides")
    expect(user).to_have_attribute("data-branch", "2/2")
    expect(last_assistant(page).locator(".pg-text")).not_to_be_empty()
    expect(page.locator(".msg[data-orphan='true']")).to_have_count(0)
    user.locator("[data-action='branch-previous']").click()
    expect(user).to_contain_text("Tell me about tides")


def test_add_to_it_joins_new_text_to_the_unanswered_message(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, f"Tell me about tides {uuid.uuid4().hex} [[sim: status=429 times=3]]")
    wait_finished(page, "failed", after=before)
    # A later key wins, and `times=1` lets the first retry through, as a rate limit that has
    # passed would.
    page.fill("[data-composer-input]", "and rivers [[sim: times=1]]")
    before = finished_runs(page)
    page.click("[data-action='send-join']")
    wait_finished(page, after=before)
    user = page.locator(".msg[data-role='user']")
    expect(user).to_have_count(1)
    expect(user).to_contain_text("Tell me about tides")
    expect(user).to_contain_text("and rivers")
    expect(page.locator("[data-action='send-join']")).to_be_hidden()


def test_a_failed_stream_shows_an_estimate_of_its_output_marked_as_one(app: AppPages) -> None:
    page = app.conversation()
    before = send(page, "Tell me about tides [[sim: error=overloaded_error after=12]]")
    wait_finished(page, "failed", after=before)
    turn = last_assistant(page)
    expect(turn.locator(".pg-text")).not_to_be_empty()
    usage = turn.locator("[data-meta='usage']")
    expect(usage).to_have_attribute("data-estimated", "true")
    expect(usage).to_contain_text("≈")
    expect(usage).not_to_contain_text("out 0")
    expect(turn.locator(".turn-error")).to_contain_text("the partial answer above is kept")
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    expect(last_assistant(page).locator("[data-meta='usage']")).to_have_attribute(
        "data-estimated", "true"
    )


def test_a_message_over_the_frame_limit_is_refused_by_name_and_kept(app: AppPages) -> None:
    page = app.conversation()
    # Past the server's own WebSocket limit (twice the app's): sent, it would only close the
    # socket, and the person would never hear why.
    text = "x" * 2_100_000
    page.fill("[data-composer-input]", text)
    page.press("[data-composer-input]", "Enter")
    expect(page.locator("[data-composer-error]")).to_contain_text(
        "over the limit of 1000000 bytes; nothing was sent"
    )
    assert len(page.input_value("[data-composer-input]")) == len(text)
    expect(page.locator("#app")).to_have_attribute("data-connection", "open")
