"""Search on the page: the sidebar finds a conversation by a word in its messages, shows the
snippet with the word marked, and the conversation opens with every occurrence marked."""

from __future__ import annotations

import uuid

from playwright.sync_api import expect

from playground.conversations.paging import PAGE_SIZE
from tests.browser.page_support import PHONE, POST_JSON, AppPages, app

__all__ = ["app"]


def test_a_word_in_a_message_is_found_and_marked_when_the_conversation_opens(
    app: AppPages,
) -> None:
    word = "zq" + uuid.uuid4().hex[:8]  # no other test's conversation holds it
    page = app.open("/")
    request = {
        "model": "simulator-1",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": f"Tell me about the {word} and <b>friends</b>"},
            {"role": "assistant", "content": [{"type": "text", "text": f"The {word.upper()}!"}]},
            {"role": "user", "content": "Thanks"},
        ],
    }
    imported = page.evaluate(
        POST_JSON, [app.server.url + "/api/import/", {"request": request, "title": "Untitled one"}]
    )
    conversation_id = imported["id"]

    page.fill("[data-sidebar-filter]", word[:6])
    result = page.locator(f"[data-conversation-id='{conversation_id}']")
    expect(result.locator("[data-search-snippet] mark")).to_have_text(word)  # the whole word
    expect(page.locator("[data-sidebar-list] li")).to_have_count(1)
    result.locator("a.sidebar-link").click()

    page.wait_for_selector("#app[data-ready='true'][data-search-hits='2']")
    marks = page.locator("[data-turns] mark.search-hit")
    expect(marks).to_have_text([word, word.upper()])
    expect(marks.first).to_be_in_viewport()
    # The text around a mark is still text: the user's markup was never parsed.
    expect(page.locator(".msg[data-role='user']").first).to_contain_text("<b>friends</b>")


def test_an_emoji_and_words_from_two_messages_find_the_conversation(app: AppPages) -> None:
    word = "zq" + uuid.uuid4().hex[:8]
    page = app.open("/")
    request = {
        "model": "simulator-1",
        "max_tokens": 64,
        "messages": [
            {"role": "user", "content": f"Plan the {word} party 🦜"},
            {"role": "assistant", "content": [{"type": "text", "text": "Gladly."}]},
            {"role": "user", "content": "Add lanterns"},
        ],
    }
    imported = page.evaluate(
        POST_JSON, [app.server.url + "/api/import/", {"request": request, "title": "Party"}]
    )
    page.fill("[data-sidebar-filter]", f"{word} lanterns 🦜")
    result = page.locator(f"[data-conversation-id='{imported['id']}']")
    expect(result).to_be_visible()
    expect(page.locator("[data-sidebar-list] li")).to_have_count(1)


def test_a_long_list_comes_a_page_at_a_time_on_a_phone(app: AppPages) -> None:
    word = "zq" + uuid.uuid4().hex[:8]
    page = app.open("/", viewport=PHONE)
    made = [
        page.evaluate(
            POST_JSON, [app.server.url + "/api/conversations/", {"title": f"{word} {i}"}]
        )["id"]
        for i in range(PAGE_SIZE + 1)
    ]
    page.click(".home-head [data-action='toggle-sidebar']")
    page.fill("[data-sidebar-filter]", word)
    items = page.locator("[data-sidebar-list] li")
    expect(items).to_have_count(PAGE_SIZE)
    expect(items.first).to_have_attribute("data-conversation-id", made[-1])  # newest first
    more = page.locator("[data-action='sidebar-more']")
    more.scroll_into_view_if_needed()
    expect(more).to_be_in_viewport()
    more.click()
    expect(items).to_have_count(PAGE_SIZE + 1)
    expect(items.last).to_have_attribute("data-conversation-id", made[0])
    expect(more).to_be_hidden()
