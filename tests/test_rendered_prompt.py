"""``POST /api/conversations/<id>/rendered-prompt/``: the next request's prompt text, asked of
the profile's chat render endpoint by the server.

Against the simulator's ``/simulator/v1/chat/render`` over real HTTP (the session's Daphne), and
a loopback stub that refuses, stalls or answers nonsense; plus the doors every conversation
endpoint has (CSRF, ownership) and a profile that offers no render.
"""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground import conversations
from playground.models import Conversation, Message
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.attachment_support import b64, png
from tests.conftest import start_daphne, stop
from tests.live_support import Api, until
from tests.loopback_http import answer_json, read_json_post, serve_http

pytestmark = pytest.mark.django_db

KEY = "flp_secret-0123456789abcdef"
WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}


@dataclass
class Stub:
    """A chat render upstream on loopback: answers ``status`` and ``raw``; with ``hang`` it
    answers only once ``released`` is set (at the latest when the test ends). Records each
    request's path, headers and body."""

    status: int = 200
    raw: bytes = b'{"text": "rendered by the stub"}'
    hang: bool = False
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""
    released: threading.Event = field(default_factory=threading.Event)


@pytest.fixture
def stub() -> Iterator[Stub]:
    state = Stub()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (http.server's name)
            state.requests.append(read_json_post(self))
            if state.hang:
                state.released.wait()
            answer_json(self, state.status, state.raw, x_request_id="req_stub_1")

        def log_message(self, *args: Any) -> None:
            pass

    with serve_http(Handler, before_stop=state.released.set) as url:
        state.url = url + "/dedicated"
        yield state


@pytest.fixture
def profiles(settings: Any, live_server_proc: Any, stub: Stub) -> None:
    """``simulator`` (no render) and ``simulator-render`` at the live server;
    ``friendli-dedicated`` (render on by default) pointed at the stub, with a key."""
    built = profiles_from_environ(
        {
            "PLAYGROUND_SIMULATOR_RENDER": "1",
            "FRIENDLI_TOKEN": KEY,
            "FRIENDLI_DEDICATED_BASE_URL": stub.url,
        },
        simulator_url=live_server_proc.simulator_url,
    )
    settings.PLAYGROUND_PROFILES = {
        "simulator": built["simulator"],
        "simulator-render": built["simulator-render"],
        "friendli-dedicated": built["friendli-dedicated"],
    }
    # Generous: the live server is shared with every other test on a busy two-core box.
    settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS = 30


def conversation(profile: str, *, owner: Any = None, **fields: Any) -> Conversation:
    return conversations.create_conversation(
        owner=owner or local_user(), profile=profile, model="simulator-1", **fields
    )


def render(client: Client, item: Conversation, body: dict[str, Any], **extra: Any) -> Any:
    return client.post(
        f"/api/conversations/{item.id}/rendered-prompt/",
        data=json.dumps(body),
        content_type="application/json",
        **extra,
    )


# --- the simulator, over real HTTP ------------------------------------------------------------


def test_the_next_request_renders_through_the_simulator(client: Client, profiles: None) -> None:
    item = conversation("simulator-render", system="Be brief.", tools=[WEATHER])

    answer = render(client, item, {"content": "Weather in {{city}}?"})

    # A variable with no value is the send's own refusal, in the one error shape.
    assert answer.status_code == 400
    assert answer.json()["error"]["field"] == "variables.city"

    conversations.update_variables(conversation=item, values={"city": "Paris"})
    answer = render(client, item, {"content": "Weather in {{city}}?"})

    assert answer.status_code == 200, answer.content
    payload = answer.json()
    assert payload["profile"]["name"] == "simulator-render"
    assert payload["profile"]["renders_prompt"] is True
    assert payload["notes"] == []
    text = payload["text"]
    assert text.startswith("<|im_start|>system\nBe brief.\n\n# Tools\n")
    assert '"name": "get_weather"' in text
    # The variable is filled in, as the send would fill it; the prompt ends open.
    assert text.endswith("<|im_start|>user\nWeather in Paris?<|im_end|>\n<|im_start|>assistant\n")
    assert not Message.objects.filter(conversation=item).exists()  # a dry run: nothing stored


def test_an_edited_request_is_what_renders(client: Client, profiles: None) -> None:
    item = conversation("simulator-render")
    conversations.append_user_message(conversation=item, content="Hello")
    _, draft = conversations.next_request(conversation=item)
    edit = {**draft, "system": "Answer in French."}

    answer = render(client, item, {"request": edit})

    assert answer.status_code == 200, answer.content
    assert answer.json()["text"].startswith("<|im_start|>system\nAnswer in French.<|im_end|>")

    refused = render(client, item, {"request": {**draft, "temperature": 9}})
    assert (refused.status_code, refused.json()["error"]["field"]) == (400, "temperature")


def test_what_has_no_chat_form_is_said_in_the_notes(client: Client, profiles: None) -> None:
    item = conversation("simulator-render")
    conversations.append_user_message(conversation=item, content="Hi")
    _, draft = conversations.next_request(conversation=item)
    draft["messages"] = [
        {"role": "user", "content": "Hi"},
        {
            "role": "assistant",
            "content": [
                {"type": "redacted_thinking", "data": "opaque"},
                {"type": "text", "text": "Hey"},
            ],
        },
        {"role": "user", "content": "Again"},
    ]

    answer = render(client, item, {"request": draft})

    assert answer.status_code == 200, answer.content
    assert answer.json()["notes"] == [
        "a redacted_thinking block has no chat-completions form and is not in the rendered prompt"
    ]
    assert "<|im_start|>assistant\nHey<|im_end|>" in answer.json()["text"]


# --- a FriendliAI-shaped upstream: the key, refusals, silence ---------------------------------


def test_the_key_goes_upstream_in_friendlis_shape_and_never_back(
    client: Client, profiles: None, stub: Stub
) -> None:
    stub.raw = json.dumps({"text": f"<s>[INST] Hello [/INST] {KEY}"}).encode()
    item = conversation("friendli-dedicated", tools=[WEATHER])

    answer = render(client, item, {"content": "Hello"})

    assert answer.status_code == 200, answer.content
    (sent,) = stub.requests
    assert sent["path"] == "/dedicated/v1/chat/render"
    assert sent["headers"]["authorization"] == f"Bearer {KEY}"
    assert sent["body"] == {
        "model": "simulator-1",
        "messages": [{"role": "user", "content": "Hello"}],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "get_weather",
                    "description": "The weather in a city",
                    "parameters": WEATHER["input_schema"],
                },
            }
        ],
    }
    assert answer.json()["text"] == "<s>[INST] Hello [/INST] [redacted]"
    assert KEY not in answer.content.decode()


def test_a_file_goes_to_the_render_as_its_bytes(client: Client, profiles: None, stub: Stub) -> None:
    stub.raw = json.dumps({"text": "<image>"}).encode()
    item = conversation("friendli-dedicated")
    picture = png()
    uploaded = client.post("/api/attachments/", {"file": SimpleUploadedFile("p.png", picture)})
    # As the page sends it: the file uploaded first, then referred to.
    answer = render(
        client, item, {"content": [uploaded.json()["block"], {"type": "text", "text": "?"}]}
    )

    assert answer.status_code == 200, answer.content
    (sent,) = stub.requests
    # Stored by reference until a request leaves; the render gets the file itself.
    (part, _) = sent["body"]["messages"][0]["content"]
    assert part == {
        "type": "image_url",
        "image_url": {"url": f"data:image/png;base64,{b64(picture)}"},
    }


@pytest.mark.parametrize(
    ("status", "raw", "words"),
    [
        pytest.param(
            422,
            b'{"type":"error","error":{"type":"invalid_request_error","message":"bad role"}}',
            "upstream answered HTTP 422 invalid_request_error: bad role",
            id="422-friendli-shape",
        ),
        pytest.param(
            500,
            f"<html>Internal Server Error for {KEY}</html>".encode(),
            "upstream answered HTTP 500: Internal Server Error for [redacted]",
            id="500-html",
        ),
    ],
)
def test_an_upstream_refusal_is_a_502_with_its_message(
    client: Client, profiles: None, stub: Stub, status: int, raw: bytes, words: str
) -> None:
    stub.status, stub.raw = status, raw
    item = conversation("friendli-dedicated")

    answer = render(client, item, {"content": "Hello"})

    assert answer.status_code == 502
    error = answer.json()["error"]
    assert (error["code"], error["status"], error["request_id"]) == (
        "upstream_http_status",
        status,
        "req_stub_1",
    )
    assert error["message"] == words
    assert KEY not in answer.content.decode()


def test_an_answer_that_is_no_render_is_malformed(
    client: Client, profiles: None, stub: Stub
) -> None:
    stub.raw = b'{"choices": []}'
    item = conversation("friendli-dedicated")

    answer = render(client, item, {"content": "Hello"})

    assert answer.status_code == 502
    assert answer.json()["error"]["code"] == "upstream_malformed"
    assert '{"text": …}' in answer.json()["error"]["message"]


def test_an_upstream_that_never_answers_times_out(
    client: Client, profiles: None, stub: Stub, settings: Any
) -> None:
    stub.hang = True
    settings.PLAYGROUND_RENDER_TIMEOUT_SECONDS = 0.5
    item = conversation("friendli-dedicated")

    answer = render(client, item, {"content": "Hello"})

    assert answer.status_code == 502
    error = answer.json()["error"]
    assert error["code"] == "upstream_read_timeout"
    assert error["message"] == "the upstream sent no response for 0.5 s after the request"
    assert len(stub.requests) == 1  # asked once: a preview is not retried


# --- who may ask, and where it is offered -----------------------------------------------------


def test_a_profile_without_render_is_refused_naming_those_with_it(
    client: Client, profiles: None, stub: Stub
) -> None:
    item = conversation("simulator")

    answer = render(client, item, {"content": "Hello"})

    assert answer.status_code == 409
    error = answer.json()["error"]
    assert error["code"] == "conflict"
    assert "'Built-in simulator' offers no rendered prompt" in error["message"]
    assert "Built-in simulator (renders prompts), FriendliAI Dedicated" in error["message"]
    assert stub.requests == []


def test_the_page_knows_which_profiles_render(client: Client, profiles: None) -> None:
    item = conversation("simulator")

    page = client.get(f"/c/{item.id}/").content.decode()
    data = json.loads(
        page.split('id="page-data" type="application/json">')[1].split("</script>")[0]
    )

    offered = {p["name"]: p["renders_prompt"] for p in data["profiles"]}
    assert offered == {"simulator": False, "simulator-render": True, "friendli-dedicated": True}
    assert KEY not in page


def test_a_post_without_the_csrf_header_is_403(profiles: None, stub: Stub) -> None:
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    item = conversation("friendli-dedicated")

    refused = render(client, item, {"content": "Hello"})
    token = client.cookies["csrftoken"].value
    allowed = render(client, item, {"content": "Hello"}, HTTP_X_CSRFTOKEN=token)

    assert (refused.status_code, refused.json()["error"]["code"]) == (403, "forbidden")
    assert allowed.status_code == 200
    assert len(stub.requests) == 1


def test_another_users_conversation_is_404(profiles: None, stub: Stub, settings: Any) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    users = get_user_model().objects
    alices = conversation("friendli-dedicated", owner=users.create_user("alice"))
    bob = Client()
    bob.force_login(users.create_user("bob"))

    answer = render(bob, alices, {"content": "Hello"})

    assert (answer.status_code, answer.json()["error"]["code"]) == (404, "not_found")
    assert stub.requests == []


def test_only_post_is_allowed(client: Client, profiles: None) -> None:
    item = conversation("simulator-render")

    answer = client.get(f"/api/conversations/{item.id}/rendered-prompt/")

    assert (answer.status_code, answer["Allow"]) == (405, "POST")


async def test_a_render_waiting_on_its_upstream_holds_up_no_write(
    stub: Stub, tmp_path: Path
) -> None:
    # The draft is a transaction (rolled back): the wait on the upstream comes after it, so a
    # slow upstream holds no database lock (SQLite's writers would queue behind it).
    stub.hang = True
    server = start_daphne(tmp_path, FRIENDLI_TOKEN=KEY, FRIENDLI_DEDICATED_BASE_URL=stub.url)
    try:
        async with Api(server.url) as api:
            item = await api.create(profile="friendli-dedicated", model="endpoint-1")
            url = f"/api/conversations/{item['id']}/rendered-prompt/"
            render = asyncio.create_task(api.call("POST", url, {"content": "Hello"}))
            await until(lambda: stub.requests, what="the render to reach the upstream")

            written = await api.call("PATCH", f"/api/conversations/{item['id']}/", {"title": "x"})

            assert written.status_code == 200, written.text
            assert not render.done()
            stub.released.set()
            answered = await render
            assert (answered.status_code, answered.json()["text"]) == (200, "rendered by the stub")
    finally:
        stub.released.set()
        stop(server)
