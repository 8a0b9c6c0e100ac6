"""Side requests go over the profile's wire as a stream does: the adapter's URL for each side
door (the model list, count_tokens, the chat render), its auth headers with the profile's
credential (a token from a command, read again before it expires), and a door the wire does
not have refused in words the page shows, never tried. A 401 to a token from a command has it
read again and is asked once more, not twice. Each upstream is a real loopback server; each
token command a real process.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from playground.conversations.token_count import GATE, count_for_profile
from playground.protocol.errors import Conflict, UpstreamStatusError
from playground.upstream.client import UpstreamClient
from playground.upstream.model_list import ModelListCache, ModelListLimits
from playground.upstream.profiles import Profile, profiles_from_environ
from playground.upstream.render import fetch_rendered_prompt
from playground.upstream.token_count import fetch_count_tokens
from tests.loopback_http import serve_http
from tests.token_commands import token_command
from tests.wire_replay import Answer, replay

TIMEOUTS = {"connect": 3.0, "read": 7.0, "write": 4.0, "pool": 5.0}
BODY = {"model": "tiny", "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]}
SIMULATOR = "http://127.0.0.1:9/simulator"


def custom(environ: dict[str, str], name: str = "gate") -> Profile:
    prefix = f"PLAYGROUND_UPSTREAM_{name.upper()}_"
    keys = {f"{prefix}{key}": value for key, value in environ.items()}
    return profiles_from_environ(keys, simulator_url=SIMULATOR)[name]


@dataclass
class Listing:
    """A loopback upstream answering ``GET`` with ``answers`` in turn (status, JSON)."""

    answers: list[tuple[int, Any]] = field(default_factory=list)
    requests: list[dict[str, Any]] = field(default_factory=list)
    url: str = ""


@pytest.fixture
def listing() -> Iterator[Listing]:
    state = Listing()

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            state.requests.append({"path": self.path, "headers": self.headers})
            status, value = state.answers[min(len(state.requests), len(state.answers)) - 1]
            raw = json.dumps(value).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(raw)))
            self.end_headers()
            self.wfile.write(raw)

        def log_message(self, *args: Any) -> None:
            pass

    with serve_http(Handler) as url:
        state.url = url
        yield state


def cache() -> ModelListCache:
    return ModelListCache(ttl=60, failure_ttl=60, limits=ModelListLimits(timeout=5.0))


# -- the model list ---------------------------------------------------------------------------


def test_an_openai_chat_profile_lists_its_models_with_the_commands_token(
    listing: Listing, tmp_path: Path
) -> None:
    listing.answers = [(200, {"object": "list", "data": [{"id": "qwen3-8b", "object": "model"}]})]
    profile = custom(
        {
            "WIRE": "openai-chat",
            "BASE_URL": listing.url,
            "AUTH": "bearer",
            "TOKEN_COMMAND": token_command(tmp_path),
            "MODELS": "mine",
        }
    )

    listed = cache().get(profile)

    assert (listed.models, listed.source, listed.note) == (("mine", "qwen3-8b"), "upstream", "")
    assert listing.requests[0]["path"].startswith("/v1/models?")
    assert listing.requests[0]["headers"]["authorization"] == "Bearer tok-1"
    assert "anthropic-version" not in listing.requests[0]["headers"]


def test_a_refused_model_list_says_why_for_the_page(listing: Listing) -> None:
    listing.answers = [(401, {"error": {"message": "no"}})]
    profile = custom({"WIRE": "openai-chat", "BASE_URL": listing.url, "API_KEY": "sk-x"})

    listed = cache().get(profile)

    assert listed.source == "configured"
    assert listed.note == "the upstream's model list could not be had: HTTP 401"
    assert len(listing.requests) == 1  # a static key is not read again


def test_a_model_list_401_reads_the_token_again_once(listing: Listing, tmp_path: Path) -> None:
    listing.answers = [(401, {"error": {"message": "expired"}}), (200, {"data": [{"id": "m"}]})]
    profile = custom(
        {
            "WIRE": "openai-chat",
            "BASE_URL": listing.url,
            "AUTH": "bearer",
            "TOKEN_COMMAND": token_command(tmp_path),
        }
    )

    listed = cache().get(profile)

    assert (listed.models, listed.source) == (("m",), "upstream")
    sent = [request["headers"]["authorization"] for request in listing.requests]
    assert sent == ["Bearer tok-1", "Bearer tok-2"]


def test_a_second_model_list_401_is_the_note(listing: Listing, tmp_path: Path) -> None:
    listing.answers = [(401, {"error": {"message": "expired"}})]
    profile = custom(
        {
            "WIRE": "openai-chat",
            "BASE_URL": listing.url,
            "AUTH": "bearer",
            "TOKEN_COMMAND": token_command(tmp_path),
        }
    )

    listed = cache().get(profile)

    assert listed.note == "the upstream's model list could not be had: HTTP 401"
    assert len(listing.requests) == 2


def test_a_vertex_profile_has_no_model_list_and_says_so_without_asking() -> None:
    profile = custom(
        {
            "WIRE": "vertex",
            "REGION": "us-east5",
            "PROJECT": "p",
            "API_KEY": "ya29.x",
            "MODELS": "claude-sonnet-4@20250514",
        }
    )

    listed = cache().get(profile)

    assert listed.models == ("claude-sonnet-4@20250514",)
    assert listed.source == "configured"
    assert listed.note.startswith("the vertex wire has no model list: Vertex AI lists no")


def test_the_model_list_view_hands_the_note_to_the_page(
    client: Any, settings: Any, django_user_model: Any
) -> None:
    settings.PLAYGROUND_PROFILES = {
        "vx": custom({"WIRE": "vertex", "REGION": "global", "PROJECT": "p", "API_KEY": "k"}, "vx")
    }
    client.force_login(django_user_model.objects.create_user("ann", password="pw"))

    answer = client.get("/api/profiles/vx/models/").json()

    assert answer["source"] == "configured"
    assert "vertex wire has no model list" in answer["note"]


# -- count_tokens -----------------------------------------------------------------------------


async def test_count_tokens_goes_with_the_commands_token(tmp_path: Path) -> None:
    with replay(Answer([b'{"input_tokens": 7}'], content_type="application/json")) as upstream:
        profile = custom(
            {"BASE_URL": upstream.url, "AUTH": "bearer", "TOKEN_COMMAND": token_command(tmp_path)}
        )
        tokens = await fetch_count_tokens(profile, BODY, timeout=5.0)

    assert tokens == 7
    assert upstream.requests[0]["path"] == "/v1/messages/count_tokens"
    assert upstream.requests[0]["headers"]["authorization"] == "Bearer tok-1"


async def test_a_wire_with_no_count_door_refuses_it_unasked() -> None:
    profile = custom({"WIRE": "openai-chat", "BASE_URL": "http://127.0.0.1:9", "API_KEY": "k"})

    with pytest.raises(Conflict) as refused:
        await fetch_count_tokens(profile, BODY, timeout=5.0)

    assert refused.value.message.startswith("the openai-chat wire has no token count")


async def test_a_vertex_count_is_the_estimate_saying_why() -> None:
    profile = custom({"WIRE": "vertex", "REGION": "global", "PROJECT": "p", "API_KEY": "k"})

    counted = await count_for_profile(profile, BODY, timeout=5.0, gate=GATE)

    assert counted.method == "estimate"
    assert counted.note.startswith("the vertex wire has no token count (count_tokens)")


# -- a 401 to a token from a command ----------------------------------------------------------

REFUSED = Answer(
    [b'{"type":"error","error":{"type":"authentication_error","message":"old"}}'],
    status=401,
    content_type="application/json",
)
STREAM = Answer(
    [
        b'event: message_start\ndata: {"type":"message_start","message":{"id":"m","type":"message",'
        b'"role":"assistant","content":[],"model":"tiny","usage":{"input_tokens":1,"output_tokens":0}}}\n\n'
        b'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},'
        b'"usage":{"output_tokens":1}}\n\n'
        b'event: message_stop\ndata: {"type":"message_stop"}\n\n'
    ]
)


async def _run(profile: Profile) -> None:
    client = UpstreamClient(profile, timeouts=TIMEOUTS, max_retries=2)
    try:
        async with client.stream(BODY) as stream:
            [event async for event in stream]
    finally:
        await client.aclose()


async def test_a_401_reads_the_token_again_and_asks_once_more(tmp_path: Path) -> None:
    with replay(REFUSED, STREAM) as upstream:
        profile = custom(
            {"BASE_URL": upstream.url, "AUTH": "bearer", "TOKEN_COMMAND": token_command(tmp_path)}
        )
        await _run(profile)

    sent = [request["headers"]["authorization"] for request in upstream.requests]
    assert sent == ["Bearer tok-1", "Bearer tok-2"]


async def test_a_second_401_is_reported_not_asked_again(tmp_path: Path) -> None:
    with replay(REFUSED) as upstream:
        profile = custom(
            {"BASE_URL": upstream.url, "AUTH": "bearer", "TOKEN_COMMAND": token_command(tmp_path)}
        )
        with pytest.raises(UpstreamStatusError) as failed:
            await _run(profile)

    assert failed.value.status == 401
    assert len(upstream.requests) == 2


async def test_a_401_to_a_static_key_is_reported_at_once() -> None:
    with replay(REFUSED) as upstream:
        profile = custom({"BASE_URL": upstream.url, "API_KEY": "sk-static"})
        with pytest.raises(UpstreamStatusError):
            await _run(profile)

    assert len(upstream.requests) == 1


async def test_a_side_request_401_reads_the_token_again_once(tmp_path: Path) -> None:
    counted = Answer([b'{"input_tokens": 3}'], content_type="application/json")
    with replay(REFUSED, counted) as upstream:
        profile = custom(
            {"BASE_URL": upstream.url, "AUTH": "bearer", "TOKEN_COMMAND": token_command(tmp_path)}
        )
        tokens = await fetch_count_tokens(profile, BODY, timeout=5.0)

    assert tokens == 3
    sent = [request["headers"]["authorization"] for request in upstream.requests]
    assert sent == ["Bearer tok-1", "Bearer tok-2"]


async def test_a_wire_with_no_chat_render_refuses_it_unasked() -> None:
    profile = custom(
        {"WIRE": "vertex", "REGION": "global", "PROJECT": "p", "API_KEY": "k", "RENDER": "1"}
    )

    with pytest.raises(Conflict) as refused:
        await fetch_rendered_prompt(profile, {"model": "m", "messages": []}, timeout=5.0)

    assert refused.value.message.startswith("the vertex wire has no chat render")
