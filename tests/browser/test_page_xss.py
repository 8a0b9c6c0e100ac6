"""Hostile text stays text: in the user's prompt echoed back, tool names, inputs and results.

The page watcher fails the test on any dialog, page error or CSP violation; here we also
check that nothing active (handlers, frames, scripts, javascript: links) reached the DOM.
"""

from __future__ import annotations

import json

from playwright.sync_api import Page, expect

from tests.browser.page_support import AppPages, app, finished_runs, send, wait_finished

__all__ = ["app"]

PAYLOADS = [
    "<img src=x onerror=alert(1)>",
    "<svg onload=alert(2)>",
    '<iframe srcdoc="<script>alert(3)</script>">',
    "[click](javascript:alert(4))",
    "[click](JaVaScRiPt:alert(5))",
    "[click](java&#x73;cript:alert(6))",
    "[click](&#106;avascript:alert(7))",
    '<a href="jav\tascript:alert(8)">x</a>',
    "<script>alert(9)</script>",
]
HOSTILE = " ".join(PAYLOADS)

ACTIVE = """
() => {
  const root = document.querySelector('#app');
  const found = [];
  for (const node of root.querySelectorAll('*')) {
    for (const attr of node.attributes) {
      if (attr.name.startsWith('on')) found.push(`${node.tagName} ${attr.name}`);
      if (/^\\s*javascript:/i.test(attr.value) && ['href', 'src', 'action'].includes(attr.name))
        found.push(`${node.tagName} ${attr.name}=${attr.value}`);
    }
    if (['IFRAME', 'SCRIPT', 'OBJECT', 'EMBED', 'SVG'].includes(node.tagName.toUpperCase()))
      if (node.closest('.msg, .tool-card')) found.push(node.tagName);
  }
  return found;
}
"""

WEATHER = {
    "name": "get_weather",
    "input_schema": {
        "type": "object",
        "properties": {"location": {"type": "string"}},
        "required": ["location"],
    },
}


def _assert_inert(page: Page) -> None:
    assert page.evaluate(ACTIVE) == []


def test_payloads_in_prompt_tool_input_and_results_stay_inert(app: AppPages) -> None:
    page = app.conversation(tools=[WEATHER])
    before = send(page, f"Call get_weather for the weather in {HOSTILE}")
    wait_finished(page, after=before)
    expect(page.locator(".msg[data-role='user']").first).to_contain_text(PAYLOADS[0])
    card = page.locator(".tool-card").first
    card.locator("textarea").fill(HOSTILE)
    before = finished_runs(page)
    page.click("[data-action='send-tool-results']")
    wait_finished(page, after=before)
    # The model quotes the result: the payloads arrive in its markdown, as text.
    answer = page.locator(".msg[data-role='assistant']").last.locator(".pg-text")
    expect(answer).to_contain_text("onerror=alert(1)")
    expect(page.locator(".pg-tool-result").first).to_contain_text("<svg onload=alert(2)>")
    _assert_inert(page)
    page.reload()
    page.wait_for_selector("#app[data-ready='true'][data-connection='open']")
    _assert_inert(page)


def test_payloads_as_tool_names_in_the_editor_stay_inert(app: AppPages) -> None:
    app.allow_console(r"status of 400 \(Bad Request\)")
    page = app.conversation()
    tools = [{"name": payload, "input_schema": {"type": "object"}} for payload in PAYLOADS]
    page.fill("[data-tools-json]", json.dumps(tools))
    status = page.locator("[data-tools-status]")
    expect(status).to_contain_text("<img src=x onerror=alert(1)>")
    page.click("[data-action='save-settings']")
    expect(page.locator(".field-error[data-error-for='tools']")).to_be_visible()
    _assert_inert(page)


def test_page_is_served_with_a_strict_csp(app: AppPages) -> None:
    page = app.open("/")
    response = page.request.get(page.url)
    policy = response.headers["content-security-policy"]
    assert "script-src 'self'" in policy
    assert "unsafe-inline" not in policy
    assert "unsafe-eval" not in policy
