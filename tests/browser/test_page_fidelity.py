"""After a reload, the page shows what the stream said: flagged tool calls, stop details, errors.

The app runs under its own Daphne, with a ``replay`` upstream profile pointing at a loopback
HTTP server (a thread of this process) that answers each request with the next recorded
stream, byte for byte. Each test draws a run live, reloads, and reads the stored turn.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.browser.page_support import (
    CREATE_CONVERSATION,
    AppPages,
    app,
    last_assistant,
    send,
    wait_finished,
)
from tests.browser.test_page_share_export import create_link, open_share
from tests.conftest import CACHED_STATIC, LiveServer, start_daphne, stop

__all__ = ["app"]

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
INVALID = FIXTURES / "anthropic_sdk" / "tool_use_invalid_json_response.txt"
RAW_INVALID = '{"location": "Paris", "unit": celsius}'


class _Replies(ThreadingHTTPServer):
    """Answers each POST with the next queued recording."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.replies: deque[bytes] = deque()


class _Handler(BaseHTTPRequestHandler):
    server: _Replies

    def do_POST(self) -> None:  # noqa: N802 - the http.server hook's name
        self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.path.endswith("/count_tokens"):
            # The page counts the next request's tokens whenever it has one, which a slow
            # machine may reach before a test ends: a server with no such door, as many have.
            self.send_error(404)
            return
        body = self.server.replies.popleft()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("request-id", "req_header_page")
        self.send_header("connection", "close")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def upstream() -> Iterator[_Replies]:
    server = _Replies()
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="module")
def live_server_proc(
    tmp_path_factory: pytest.TempPathFactory, upstream: _Replies
) -> Iterator[LiveServer]:
    """This module's app (the shared ``app`` fixture uses it): a Daphne with a replay profile."""
    host, port = upstream.server_address[:2]
    server = start_daphne(
        tmp_path_factory.mktemp("replay-page"),
        PLAYGROUND_UPSTREAM_REPLAY_BASE_URL=f"http://{host}:{port}",
        PLAYGROUND_UPSTREAM_REPLAY_AUTH="none",
        **CACHED_STATIC,
    )
    try:
        yield server
    finally:
        stop(server)


def _answered(app: AppPages, upstream: _Replies, recording: Path) -> Page:
    page = app.conversation(profile="replay", model="recorded-model")
    upstream.replies.append(recording.read_bytes())
    before = send(page, "Hi")
    wait_finished(page, after=before)
    return page


def test_an_invalid_tool_call_is_flagged_after_a_reload_and_previewed_as_sent_back(
    app: AppPages, upstream: _Replies
) -> None:
    page = _answered(app, upstream, INVALID)
    expect(last_assistant(page).locator(".pg-tool")).to_have_attribute("data-tool-json", "invalid")

    page.reload()
    page.wait_for_selector("#app[data-ready='true']")

    turn = last_assistant(page)
    tool = turn.locator(".pg-tool")
    expect(turn.locator(".pg-turn")).to_have_attribute("data-flagged", "true")
    expect(tool).to_have_attribute("data-tool-json", "invalid")
    expect(tool.locator(".pg-tool-invalid-title")).to_have_text("Invalid JSON")
    expect(tool.locator(".pg-tool-raw")).to_have_text(RAW_INVALID)
    expect(turn.locator("[data-meta='flagged'] .meta-value")).to_have_text("block 1 invalid JSON")

    # Answer the call (saved, not sent): the next request's preview shows what goes back.
    conversation = page.get_attribute("#app", "data-conversation-id")
    tool_id = tool.locator(".pg-tool-id").inner_text()
    results = {"results": [{"tool_use_id": tool_id, "content": "bad input", "is_error": True}]}
    page.evaluate(
        CREATE_CONVERSATION, [f"/api/conversations/{conversation}/tool-results/", results]
    )
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    page.get_by_role("button", name="Export").click()
    page.get_by_role("menuitem", name="View request JSON…").click()
    shown = json.loads(page.locator("[data-export-request-text][data-loaded='true']").inner_text())
    assert shown["messages"][1]["content"][1]["input"] == {"INVALID_JSON": RAW_INVALID}


@pytest.mark.parametrize(
    ("recording", "meta", "shown"),
    [
        ("refusal_stop_details.sse", "stop-details", "refusal (cyber): The request asked for"),
        ("stop_sequence_container.sse", "stop-sequence", '"\\nFour"'),
        ("stop_sequence_container.sse", "container", "container_011CStop"),
        ("early_events.sse", "note", "before message_start kept but not folded"),
    ],
    ids=["stop-details", "stop-sequence", "container", "early-events"],
)
def test_the_footer_shows_how_the_message_ended_after_a_reload(
    app: AppPages, upstream: _Replies, recording: str, meta: str, shown: str
) -> None:
    page = _answered(app, upstream, FIXTURES / recording)
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")

    expect(last_assistant(page).locator(f"[data-meta='{meta}']")).to_contain_text(shown)


def test_an_error_event_shows_its_type_and_own_request_id_after_a_reload(
    app: AppPages, upstream: _Replies
) -> None:
    page = app.conversation(profile="replay", model="recorded-model")
    upstream.replies.append((FIXTURES / "error_event_mid_stream.sse").read_bytes())
    before = send(page, "Hi")
    wait_finished(page, "failed", after=before)
    page.reload()
    page.wait_for_selector("#app[data-ready='true']")

    error = last_assistant(page).locator(".turn-error")
    expect(error.locator("[data-error-type]")).to_have_text(" (overloaded_error)")
    expect(error.locator("[data-request-id]")).to_have_attribute(
        "data-request-id", "req_011CEventOwnId"
    )


# --- issue 43: what the API left out, who made a call, errors a server answered with 200 -------

OMITTED = FIXTURES / "anthropic_omitted_thinking_programmatic_call.sse"


def _expect_turn_read_alike(turn: Any) -> None:
    """Thinking left out is said (not an empty box); the client call made from code execution
    names its caller; the server's own search call is noted, not red, and not ticked."""
    thinking = turn.locator(".pg-thinking")
    expect(thinking).to_have_attribute("data-thinking-text", "omitted")
    expect(thinking.locator(".pg-thinking-body")).to_contain_text("signature is kept")
    caller = turn.locator(".pg-tool[data-block-type='tool_use'] .pg-tool-caller")
    expect(caller).to_have_text("called from code execution srvtoolu_01PtcCode4x")
    search = turn.locator(".pg-tool[data-block-type='server_tool_use']")
    expect(search).to_have_attribute("data-tool-valid", "noted")
    expect(search.locator(".pg-tool-notes")).to_contain_text("the server ran a tool")
    expect(turn.locator(".pg-tool[data-tool-valid='false']")).to_have_count(0)


def test_what_the_api_left_out_and_who_called_read_alike_live_reloaded_and_shared(
    app: AppPages, upstream: _Replies, new_page: Callable[[str], Page]
) -> None:
    # The client tool is offered (programmatic calls allowed); no server tool is declared.
    weather = {
        "name": "get_weather",
        "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        "allowed_callers": ["code_execution_20250825"],
    }
    page = app.conversation(profile="replay", model="recorded-model", tools=[weather])
    upstream.replies.append(OMITTED.read_bytes())
    before = send(page, "Tides in Brest, and the weather?")
    wait_finished(page, after=before)
    _expect_turn_read_alike(last_assistant(page))
    usage = last_assistant(page).locator("[data-meta='usage']")
    expect(usage).to_contain_text("out 212 (thinking 96)")

    page.reload()
    page.wait_for_selector("#app[data-ready='true']")
    _expect_turn_read_alike(last_assistant(page))
    expect(last_assistant(page).locator("[data-meta='usage']")).to_contain_text("(thinking 96)")

    shared = open_share(new_page, create_link(page))
    _expect_turn_read_alike(shared.locator(".share-turn[data-role='assistant'] .pg-turn"))


def test_an_error_relayed_with_http_200_is_named_on_the_turn(
    app: AppPages, upstream: _Replies
) -> None:
    # LiteLLM passes MiniMax's HTTP 200 "login fail" body through under text/event-stream.
    page = app.conversation(profile="replay", model="recorded-model")
    upstream.replies.append((FIXTURES / "wires/minimax_login_fail_relayed.sse").read_bytes())
    before = send(page, "Hi")
    wait_finished(page, "failed", after=before)

    error = last_assistant(page).locator(".turn-error")
    expect(error).to_contain_text("login fail: Please carry the API secret key")
    expect(error.locator("[data-error-type]")).to_have_text(" (authentication_error)")


def test_a_tool_search_result_and_a_container_upload_are_drawn(app: AppPages) -> None:
    # Both were refused on every dialect (issue 43 item 15); now kept, and drawn as what they are.
    call = {"type": "tool_use", "id": "toolu_search", "name": "search_tools", "input": {"q": "x"}}
    reference = {"type": "tool_reference", "tool_name": "get_weather"}
    upload = {"type": "container_upload", "file_id": "file_011CNha8iCJcU1wXNR6q4V8w"}
    request = {
        "model": "simulator-1",
        "max_tokens": 256,
        "messages": [
            {"role": "user", "content": [upload, {"type": "text", "text": "Weather in Lyon?"}]},
            {"role": "assistant", "content": [call]},
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_search", "content": [reference]}
                ],
            },
        ],
    }
    page = app.imported(request)

    drawn = page.locator(".pg-tool-result .pg-tool-reference")
    expect(drawn).to_have_text("Loads the tool get_weather")
    expect(page.locator("[data-block-type='container_upload'] .pg-upload-file")).to_have_text(
        "file_011CNha8iCJcU1wXNR6q4V8w"
    )
    expect(page.locator(".msg[data-role='user'] .pg-unknown")).to_have_count(0)
