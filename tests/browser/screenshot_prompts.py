"""Take the README's prompt library screenshot, on the simulator.

Run: ``.venv/bin/python -m tests.browser.screenshot_prompts`` (writes docs/img/prompts.png at
1440x900). It starts its own server, saves three versions of a travel prompt through the API
(the second a guide's voice with a weather tool and a lower temperature, the third Improve's
revision on the simulator), points production at v1 and staging at v2, and shoots the page
comparing v1 with v2: the system prompt's changed words, the tools and settings' structural
diff, the versions and their labels.
"""

from __future__ import annotations

from typing import Any

from tests.browser.page_support import POST_JSON
from tests.browser.screenshot import simulator_browser
from tests.conftest import ROOT

OUTPUT = ROOT / "docs" / "img" / "prompts.png"
TIMEOUT_MS = 60_000
FIRST = {
    "system": "You help travellers plan a day in {{city}}.\nKeep it friendly.",
    "messages": [{"role": "user", "content": "What should I see in {{city}}?"}],
    "variables": {"city": "Lisbon"},
    "settings": {"temperature": 0.7},
}
SECOND = {
    **FIRST,
    "system": "You are a local guide who helps travellers plan one day in {{city}}.\n"
    "Keep it friendly and short.\nName three places at most, each with why it is worth it.",
    "settings": {"temperature": 0.3, "max_tokens": 600},
    "tools": [
        {
            "name": "get_weather",
            "description": "Today's weather for a city",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
}
PUT_JSON = POST_JSON.replace('method: "POST"', 'method: "PUT"')


def main() -> None:
    with simulator_browser() as (server, browser):
        page = browser.new_page(viewport={"width": 1440, "height": 900})
        page.set_default_timeout(TIMEOUT_MS)
        page.goto(server.url + "/prompts/")
        api = server.url + "/api/prompts/"

        def post(path: str, body: dict[str, Any], script: str = POST_JSON) -> Any:
            return page.evaluate(script, [api + path, body])

        post("", {"name": "travel-guide", "definition": FIRST, "message": "First draft"})
        message = "A guide's voice, three places, the weather tool"
        post("travel-guide/versions/", {"definition": SECOND, "message": message})
        asked = {"version": 2, "profile": "simulator", "model": "simulator-1"}
        improved = post("travel-guide/improve/", asked)
        origin = "improved by simulator-1 from v2"
        post(
            "travel-guide/versions/",
            {"definition": improved["proposal"], "message": origin.capitalize(), "origin": origin},
        )
        for label, number in (("production", 1), ("staging", 2)):
            post(f"travel-guide/labels/{label}/", {"version": number}, PUT_JSON)
        page.goto(server.url + "/prompts/travel-guide/")
        page.wait_for_selector("[data-diff][data-state='ready']")
        page.select_option("[data-compare='b']", "2")
        page.select_option("[data-compare='a']", "1")
        page.wait_for_selector("[data-diff][data-state='ready'] .tdiff-replace")
        page.screenshot(path=str(OUTPUT))
        print(f"wrote {OUTPUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
