"""Streaming markdown: incremental rendering, frozen blocks, code blocks, GFM."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser.drive import Stream, apply, finish, new_turn, render_message, turn_selector

pytestmark = pytest.mark.browser


def _text_stream() -> Stream:
    return Stream().message_start().start(0, {"type": "text", "text": ""})


def test_text_renders_while_streaming(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _text_stream().text(0, "Hello **wor").text(0, "ld**")
    apply(harness_page, handle, stream.take())

    turn = harness_page.locator(turn_selector(handle))
    expect(turn.locator("strong")).to_have_text("world")
    expect(turn).to_have_attribute("data-state", "streaming")


def test_frozen_block_is_never_rendered_again(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _text_stream().text(0, "First paragraph.\n\nSecond par")
    apply(harness_page, handle, stream.take())
    turn = harness_page.locator(turn_selector(handle))
    frozen = turn.locator(".pg-md-frozen p")
    expect(frozen).to_have_text("First paragraph.")
    # Tag the frozen node itself: a re-render would replace it with an untagged copy.
    frozen.evaluate("(node) => { node.pgTag = 'kept'; }")

    apply(harness_page, handle, stream.text(0, "agraph.\n\nThird").take())
    expect(turn.locator(".pg-md-tail p")).to_have_text("Third")

    first = turn.locator(".pg-md-frozen p").first
    assert first.evaluate("(node) => node.pgTag") == "kept"


def test_tail_inside_open_code_fence_is_not_frozen(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _text_stream().text(0, "```python\ndef f():\n\n    return 1\n")
    apply(harness_page, handle, stream.take())
    turn = harness_page.locator(turn_selector(handle))
    expect(turn.locator(".pg-md-tail code")).to_contain_text("return 1")

    assert turn.locator(".pg-md-frozen").count() == 0


def test_code_block_is_highlighted_with_a_copy_button(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    code = 'def greet(name):\n    return f"hi {name}"\n'
    stream = _text_stream().text(0, f"Code:\n\n```python\n{code}```\n").stop(0).end()
    apply(harness_page, handle, stream.take())
    turn = harness_page.locator(turn_selector(handle))

    expect(turn.locator(".pg-code code.language-python .hljs-keyword").first).to_have_text("def")
    button = turn.locator(".pg-code button.pg-copy")
    button.click()
    expect(button).to_have_attribute("data-copied", "true")
    assert harness_page.evaluate("() => navigator.clipboard.readText()") == code.rstrip("\n")


@pytest.mark.parametrize(
    ("markdown", "selector", "text"),
    [
        ("| a | b |\n|---|---|\n| 1 | 2 |\n", "table td", "1"),
        ("~~gone~~ here\n", "del", "gone"),
        ("- one\n- two\n", "ul li", "one"),
    ],
    ids=["table", "strikethrough", "list"],
)
def test_github_flavoured_markdown(
    harness_page: Page, markdown: str, selector: str, text: str
) -> None:
    handle = new_turn(harness_page)
    apply(harness_page, handle, _text_stream().text(0, markdown).stop(0).end().take())
    finish(harness_page, handle)

    turn = harness_page.locator(turn_selector(handle))
    expect(turn).to_have_attribute("data-state", "done")
    expect(turn.locator(selector).first).to_have_text(text)


def test_replayed_events_are_folded_once(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    stream = _text_stream().text(0, "once")
    events = stream.take()
    apply(harness_page, handle, events)
    apply(harness_page, handle, events)  # a resume replays what was already seen
    apply(harness_page, handle, stream.stop(0).end().take())
    finish(harness_page, handle)

    expect(harness_page.locator(turn_selector(handle)).locator("p")).to_have_text("once")


def test_user_text_is_shown_as_typed(harness_page: Page) -> None:
    selector = render_message(harness_page, {"role": "user", "content": "**not bold**"})

    turn = harness_page.locator(selector)
    expect(turn.locator(".pg-text")).to_have_text("**not bold**")
    assert turn.locator("strong").count() == 0
