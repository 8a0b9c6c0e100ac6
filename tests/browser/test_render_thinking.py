"""Thinking blocks: open while streaming, "Thought for N s" when done, the person's choice kept."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.drive import Stream, apply, finish, new_turn, render_message, turn_selector

pytestmark = pytest.mark.browser


def _thinking_stream(message_id: str = "msg_think") -> Stream:
    return (
        Stream()
        .message_start(message_id)
        .start(0, {"type": "thinking", "thinking": "", "signature": ""})
        .thinking(0, "Let me think ")
    )


def test_thinking_is_open_while_streaming(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    apply(harness_page, handle, _thinking_stream().take())

    thinking = harness_page.locator(turn_selector(handle)).locator(".pg-thinking")
    expect(thinking).to_have_attribute("data-thinking", "open")
    expect(thinking.locator("summary")).to_have_text("Thinking…")
    expect(thinking.locator(".pg-thinking-body")).to_have_text("Let me think ")
    expect(thinking.locator(".pg-live")).to_have_count(1)


def test_thinking_collapses_to_its_duration(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _thinking_stream().thinking(0, "about it.", dt=2500)
    stream.delta(0, {"type": "signature_delta", "signature": "sig"}).stop(0, dt=500)
    apply(harness_page, handle, stream.take())

    thinking = harness_page.locator(turn_selector(handle)).locator(".pg-thinking")
    expect(thinking).to_have_attribute("data-thinking", "closed")
    expect(thinking.locator("summary")).to_have_text("Thought for 3 s")
    expect(thinking.locator(".pg-live")).to_have_count(0)
    assert thinking.evaluate("(node) => node.open") is False


def test_thinking_kept_open_when_the_person_opened_it(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _thinking_stream()
    apply(harness_page, handle, stream.take())
    thinking = harness_page.locator(turn_selector(handle)).locator(".pg-thinking")
    summary = thinking.locator("summary")
    summary.click()  # closes it
    expect(thinking).to_have_attribute("data-thinking", "closed")
    summary.click()  # and opens it again: a choice made while it streamed
    expect(thinking).to_have_attribute("data-thinking", "open")

    apply(harness_page, handle, stream.thinking(0, "done").stop(0).end().take())
    finish(harness_page, handle)

    expect(thinking.locator("summary")).to_contain_text("Thought for")
    expect(thinking).to_have_attribute("data-thinking", "open")


def test_choice_survives_rendering_the_stored_turn(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _thinking_stream("msg_kept").thinking(0, "done").stop(0, dt=1200).end()
    apply(harness_page, handle, stream.take())
    finish(harness_page, handle)
    live = harness_page.locator(turn_selector(handle)).locator(".pg-thinking")
    expect(live).to_have_attribute("data-thinking", "closed")
    live.locator("summary").click()
    expect(live).to_have_attribute("data-thinking", "open")

    message = harness_page.evaluate(
        "(handle) => window.__pgHarness.turns[handle].turn.message", handle
    )
    stored = harness_page.locator(render_message(harness_page, message)).locator(".pg-thinking")

    expect(stored).to_have_attribute("data-thinking", "open")
    expect(stored.locator("summary")).to_have_text("Thought for 1 s")


def test_thinking_cut_off_is_collapsed_at_finish(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    apply(harness_page, handle, _thinking_stream().take())
    finish(harness_page, handle, status="stopped", stop_reason="")

    thinking = harness_page.locator(turn_selector(handle)).locator(".pg-thinking")
    expect(thinking).to_have_attribute("data-state", "incomplete")
    expect(thinking).to_have_attribute("data-thinking", "closed")


def test_redacted_thinking_shows_no_content(harness_page: Page) -> None:
    message = {
        "role": "assistant",
        "content": [{"type": "redacted_thinking", "data": "SECRET-OPAQUE-DATA"}],
    }
    turn = harness_page.locator(render_message(harness_page, message))

    redacted = turn.locator("[data-block-type='redacted_thinking']")
    expect(redacted.locator("summary")).to_have_text("Thinking redacted")
    expect(redacted).not_to_have_attribute("open", "")
    expect(turn).not_to_contain_text("SECRET-OPAQUE-DATA")
