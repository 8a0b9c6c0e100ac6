"""Anthropic's models on Vertex AI, through the adapter seam alone (``WIRE=vertex``).

A real loopback server replays the fixtures of ``tests/fixtures/vertex/`` byte for byte (their
sources are in its README) and records what it was sent: the region/project/model URL, the
body with ``anthropic_version`` and no ``model``, a bearer token from a real command, and
Google's error bodies read (an object, and an array on a streamed call).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from playground.protocol.adapters import ANTHROPIC, VERTEX, Place
from playground.protocol.adapters.vertex import VERTEX_VERSION
from playground.protocol.errors import UpstreamStatusError
from playground.upstream.client import UpstreamClient
from playground.upstream.profiles import Profile, profiles_from_environ
from tests.token_commands import token_command
from tests.wire_replay import Answer, replay

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "vertex"
TIMEOUTS = {"connect": 3.0, "read": 7.0, "write": 4.0, "pool": 5.0}
MODEL = "claude-sonnet-4-5@20250929"
BODY = {
    "model": MODEL,
    "max_tokens": 1024,
    "messages": [{"role": "user", "content": "What's the weather like in San Francisco?"}],
}


def _profile(environ: dict[str, str]) -> Profile:
    return profiles_from_environ(environ, simulator_url="http://sim.test")["claude-vertex"]


def _environ(base_url: str, **more: str) -> dict[str, str]:
    return {
        "PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_WIRE": "vertex",
        "PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_BASE_URL": base_url,
        "PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_REGION": "us-east5",
        "PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_PROJECT": "my-project",
        **{f"PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_{key}": value for key, value in more.items()},
    }


async def test_a_stream_goes_to_the_model_url_with_the_version_in_the_body(tmp_path: Path) -> None:
    recorded = (FIXTURES / "anthropic_docs_tool_use.sse").read_bytes()
    # Cut at awkward places: inside a JSON string, between the two line ends of a blank line.
    cuts = [0, 97, 98, 301, 302, len(recorded) // 2, len(recorded)]
    chunks = [recorded[a:b] for a, b in zip(cuts, cuts[1:], strict=False)]
    sent = dict(BODY)
    with replay(Answer(chunks)) as upstream:
        profile = _profile(_environ(upstream.url, TOKEN_COMMAND=token_command(tmp_path)))
        client = UpstreamClient(profile, timeouts=TIMEOUTS)
        try:
            async with client.stream(sent) as stream:
                [event async for event in stream]
        finally:
            await client.aclose()

    (request,) = upstream.requests
    assert request["path"] == (
        f"/v1/projects/my-project/locations/us-east5/publishers/anthropic/models/{MODEL}"
        ":streamRawPredict"
    )
    assert request["body"] == {
        "anthropic_version": VERTEX_VERSION,
        "max_tokens": 1024,
        "messages": BODY["messages"],
        "stream": True,
    }
    assert request["headers"]["authorization"] == "Bearer tok-1"
    assert "anthropic-version" not in request["headers"]
    assert sent == BODY
    assert stream.accumulator.end_of_stream().status == "complete"
    assert stream.accumulator.message["content"][1] == {
        "type": "tool_use",
        "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        "name": "get_weather",
        "input": {"location": "San Francisco, CA"},
    }


@pytest.mark.parametrize(
    ("region", "host"),
    [
        ("us-east5", "https://us-east5-aiplatform.googleapis.com"),
        ("global", "https://aiplatform.googleapis.com"),
    ],
)
def test_with_no_base_url_the_host_is_the_regions(region: str, host: str) -> None:
    url = VERTEX.url(Place(region=region, project="p"), model="m@1")

    path = f"/v1/projects/p/locations/{region}/publishers/anthropic/models/m@1:streamRawPredict"
    assert url == host + path


def test_a_vertex_profile_needs_no_base_url_but_a_region_and_project() -> None:
    environ = _environ("x", API_KEY="ya29.static")
    del environ["PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_BASE_URL"]
    profile = _profile(environ)

    assert profile.messages_url.startswith("https://us-east5-aiplatform.googleapis.com/v1/")
    assert (profile.dialect, profile.lists_models) == ("vertex", False)

    del environ["PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_PROJECT"]
    with pytest.raises(ValueError) as refused:
        _profile(environ)
    assert str(refused.value) == (
        "PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_PROJECT is required with"
        " PLAYGROUND_UPSTREAM_CLAUDE_VERTEX_WIRE=vertex"
    )


def test_the_rules_are_anthropics() -> None:
    assert [VERTEX.rule(name) for name in ("temperature", "max_tokens", "thinking")] == [
        ANTHROPIC.rule(name) for name in ("temperature", "max_tokens", "thinking")
    ]


@pytest.mark.parametrize(
    ("fixture", "message"),
    [
        ("error_429.json", "Resource has been exhausted (e.g. check quota). (RESOURCE_EXHAUSTED)"),
        (
            "error_429_streaming.json",
            "Resource exhausted. Please try again later. Please refer to"
            " https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more"
            " details. (RESOURCE_EXHAUSTED)",
        ),
    ],
    ids=["object", "array-on-a-stream"],
)
async def test_googles_error_bodies_are_read(fixture: str, message: str) -> None:
    body = (FIXTURES / fixture).read_bytes()
    with replay(Answer([body], status=429, content_type="application/json")) as upstream:
        profile = _profile(_environ(upstream.url, API_KEY="ya29.static"))
        client = UpstreamClient(profile, timeouts=TIMEOUTS, max_retries=0)
        try:
            with pytest.raises(UpstreamStatusError) as failed:
                async with client.stream(BODY):
                    pass
        finally:
            await client.aclose()

    assert (failed.value.status, failed.value.error_type) == (429, "rate_limit_error")
    assert message in failed.value.message
