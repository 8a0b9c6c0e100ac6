"""Hostile model output renders inert: in text, tool names, tool input and tool results.

Every payload tries to set ``window.__pwned`` or open a dialog. The page fixture fails the
test on any dialog, page error or CSP violation; these tests also read the DOM for anything
that could run (dangerous elements, on* or style attributes, non-http(s)/mailto hrefs).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from tests.browser.drive import Stream, apply, finish, new_turn, render_message, turn_selector

pytestmark = pytest.mark.browser

HTML_PAYLOADS = [
    '<img src=x onerror="window.__pwned=1;alert(1)">',
    '<svg onload="window.__pwned=2;alert(2)"><circle r=1 /></svg>',
    '<iframe srcdoc="<script>parent.__pwned=3;alert(3)</script>"></iframe>',
    "<script>window.__pwned=4;alert(4)</script>",
    '<a href="java&#x09;script:window.__pwned=5">tab entity</a>',
    '<div style="background:url(javascript:alert(5))" onclick="alert(5)">styled</div>',
    '<math><mi xlink:href="javascript:alert(6)">m</mi></math>',
    '<form action="javascript:alert(7)"><input type=submit></form>',
]
LINK_PAYLOADS = [
    "[plain](javascript:window.__pwned=10)",
    "[mixed](JaVaScRiPt:window.__pwned=11)",
    "[entity](&#106;avascript:window.__pwned=12)",
    "[hex entity](&#x6A;avascript:window.__pwned=13)",
    "[tab](java\tscript:window.__pwned=14)",
    "[tab entity](java&#x09;script:window.__pwned=15)",
    "[percent](%6Aavascript:window.__pwned=16)",
    "[space]( javascript:window.__pwned=17)",
    "[vb](vbscript:msgbox(1))",
    "[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
    "<javascript:window.__pwned=18>",
    "![img](javascript:window.__pwned=19)",
    "[ref][evil]\n\n[evil]: javascript:window.__pwned=20",
]
ALL_PAYLOADS = HTML_PAYLOADS + LINK_PAYLOADS

# Anything in the rendered turns that could run script or load from model output.
FIND_UNSAFE = """(root) => {
    const found = [];
    root = root ?? document.getElementById("turns");
    const banned = "script,img,svg,math,iframe,frame,object,embed,form,input,style,link,meta,base";
    for (const node of root.querySelectorAll(banned)) found.push(`element <${node.localName}>`);
    for (const node of root.querySelectorAll("*")) {
        for (const attr of node.attributes) {
            const name = attr.name.toLowerCase();
            if (name.startsWith("on") || name === "style" || name === "srcdoc" ||
                name === "xlink:href" || name === "action" || name === "formaction") {
                found.push(`attribute ${name} on <${node.localName}>`);
            }
        }
    }
    for (const link of root.querySelectorAll("[href], [src]")) {
        const url = link.getAttribute("href") ?? link.getAttribute("src");
        if (!/^(https?:|mailto:)/i.test(url)) found.push(`url ${JSON.stringify(url)}`);
        if (link.localName === "a" && link.getAttribute("rel") !== "noopener noreferrer") {
            found.push(`link without rel: ${url}`);
        }
    }
    if (window.__pwned !== undefined) found.push(`script ran: __pwned=${window.__pwned}`);
    return found;
}"""


def _assert_inert(page: Page) -> None:
    # Clicking every link is what a person might do; none may run anything.
    for link in page.locator("#turns a:not([href])").all():
        link.click()
    assert page.evaluate(FIND_UNSAFE, None) == []


def test_checker_finds_unsafe_dom(harness_page: Page) -> None:
    """The DOM check itself can fail: plant what it looks for and see it reported."""
    # Planted in a document of its own, outside the page: only the checker sees it.
    planted = harness_page.evaluate_handle(
        """() => {
            const doc = document.implementation.createHTMLDocument("");
            const a = doc.createElement("a");
            a.setAttribute("href", "javascript:void 0");
            a.setAttribute("onpwn", "void 0"); // a real on* would trip the CSP watch
            doc.body.append(a, doc.createElement("img"));
            return doc.body;
        }"""
    )

    found = harness_page.evaluate(FIND_UNSAFE, planted)

    assert "element <img>" in found
    assert "attribute onpwn on <a>" in found
    assert 'url "javascript:void 0"' in found


@pytest.mark.parametrize("payload", ALL_PAYLOADS, ids=range(len(ALL_PAYLOADS)))
def test_model_text_streamed_is_inert(harness_page: Page, payload: str) -> None:
    handle = new_turn(harness_page)
    stream = Stream().message_start().start(0, {"type": "text", "text": ""})
    # Split mid-payload: the renderer sees it growing, as it would from a model.
    middle = len(payload) // 2
    apply(harness_page, handle, stream.text(0, "Look: " + payload[:middle]).take())
    apply(harness_page, handle, stream.text(0, payload[middle:] + "\n\nafter").take())
    apply(harness_page, handle, stream.stop(0).end().take())
    finish(harness_page, handle)

    expect(harness_page.locator(turn_selector(handle))).to_contain_text("after")
    _assert_inert(harness_page)


def test_stored_model_text_is_inert(harness_page: Page) -> None:
    text = "\n\n".join(ALL_PAYLOADS)
    selector = render_message(
        harness_page, {"role": "assistant", "content": [{"type": "text", "text": text}]}
    )

    expect(harness_page.locator(selector)).to_contain_text("tab entity")
    _assert_inert(harness_page)


def test_safe_links_survive(harness_page: Page) -> None:
    text = "[site](https://example.com/a) and [mail](mailto:someone@example.com)"
    turn = harness_page.locator(
        render_message(
            harness_page, {"role": "assistant", "content": [{"type": "text", "text": text}]}
        )
    )

    expect(turn.locator("a[href='https://example.com/a']")).to_have_attribute("target", "_blank")
    expect(turn.locator("a[href='mailto:someone@example.com']")).to_have_text("mail")
    _assert_inert(harness_page)


@pytest.mark.parametrize("payload", HTML_PAYLOADS, ids=range(len(HTML_PAYLOADS)))
def test_tool_name_and_input_are_inert(harness_page: Page, payload: str) -> None:
    handle = new_turn(harness_page, tool_schemas={"lookup": {"type": "object"}})
    block = {"type": "tool_use", "id": payload, "name": payload, "input": {}}
    raw = json.dumps({"query": payload, payload: [payload]})
    stream = Stream().message_start().start(0, block).json(0, raw[:20])
    apply(harness_page, handle, stream.take())
    apply(harness_page, handle, stream.json(0, raw[20:]).stop(0).end("tool_use").take())
    finish(harness_page, handle, stop_reason="tool_use")

    tool = harness_page.locator(turn_selector(handle)).locator(".pg-tool")
    expect(tool.locator(".pg-tool-name")).to_have_text(payload)
    expect(tool).to_have_attribute("data-tool-valid", "false")  # an unknown tool, by name
    _assert_inert(harness_page)


def test_invalid_tool_json_raw_text_is_inert(harness_page: Page) -> None:
    handle = new_turn(harness_page)
    block = {"type": "tool_use", "id": "toolu_x", "name": "lookup", "input": {}}
    raw = "{" + "".join(HTML_PAYLOADS)
    apply(
        harness_page, handle, Stream().message_start().start(0, block).json(0, raw).stop(0).take()
    )

    tool = harness_page.locator(turn_selector(handle)).locator(".pg-tool")
    expect(tool.locator(".pg-tool-raw")).to_have_text(raw)
    _assert_inert(harness_page)


def test_tool_results_are_inert(harness_page: Page) -> None:
    content = [
        {"type": "tool_result", "tool_use_id": p, "content": p, "is_error": True}
        for p in HTML_PAYLOADS
    ]
    content.append(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_blocks",
            "content": [{"type": "text", "text": p} for p in ALL_PAYLOADS]
            + [{"type": HTML_PAYLOADS[0], "x": HTML_PAYLOADS[1]}],
        }
    )
    content.append({"type": HTML_PAYLOADS[2], "data": HTML_PAYLOADS[3]})
    selector = render_message(harness_page, {"role": "user", "content": content})

    expect(harness_page.locator(selector).locator(".pg-tool-result")).to_have_count(
        len(HTML_PAYLOADS) + 1
    )
    _assert_inert(harness_page)
