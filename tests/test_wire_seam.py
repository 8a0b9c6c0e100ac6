"""The adapter owns the wire: its URL, its auth headers, the body as sent, and a decoder per
stream that keeps state (one chunk may make several events, or none). A test-only wire, over a
real loopback server, goes through that seam alone; the body we mean is never changed.

Also the credential a wire may need at send time: a token read from a command (a real process)
or a file, refreshed before it expires (the clock is the test's).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.adapters import Adapter, Place, registered
from playground.protocol.adapters.wire import Redact, SseDecoder
from playground.protocol.errors import UpstreamCredentialError
from playground.upstream.client import UpstreamClient
from playground.upstream.credentials import REFRESH_MARGIN, RefreshedToken, read_token
from playground.upstream.profiles import Profile, profiles_from_environ
from tests.token_commands import token_command
from tests.wire_replay import Answer, replay

TIMEOUTS = {"connect": 3.0, "read": 7.0, "write": 4.0, "pool": 5.0}
BODY = {"model": "tiny", "max_tokens": 16, "messages": [{"role": "user", "content": "Hi"}]}


class _LineDecoder(SseDecoder):
    """A made-up wire: ``data: <word>`` lines; the first word also starts the message."""

    def __init__(self, redact: Redact) -> None:
        super().__init__(redact)
        self.started = False

    def block(self, name: str, data: str) -> list[tuple[str, str]]:
        if data == "noise":
            return []
        if data == "end":
            return [
                ("content_block_stop", '{"type":"content_block_stop","index":0}'),
                (
                    "message_delta",
                    '{"type":"message_delta","delta":{"stop_reason":"end_turn"},'
                    '"usage":{"output_tokens":2}}',
                ),
                ("message_stop", '{"type":"message_stop"}'),
            ]
        out = []
        if not self.started:
            self.started = True
            message = {"id": "m1", "type": "message", "role": "assistant", "content": []}
            out += [
                ("message_start", json.dumps({"type": "message_start", "message": message})),
                (
                    "content_block_start",
                    '{"type":"content_block_start","index":0,'
                    '"content_block":{"type":"text","text":""}}',
                ),
            ]
        delta = {"type": "text_delta", "text": data}
        out.append(
            (
                "content_block_delta",
                json.dumps({"type": "content_block_delta", "index": 0, "delta": delta}),
            )
        )
        return out


class LineWire(Adapter):
    name = "line-wire"
    wire = "line-wire"
    drops_headers = frozenset({"anthropic-version"})

    def url(self, place: Place, *, model: str) -> str:
        return f"{place.base_url}/say/{model}"

    def wire_body(self, body: dict[str, Any]) -> dict[str, Any]:
        return {"prompt": body["messages"][-1]["content"], "limit": body["max_tokens"]}

    def decoder(self, redact: Redact) -> _LineDecoder:
        return _LineDecoder(redact)


async def test_a_wire_of_its_own_goes_out_and_comes_back_through_its_adapter() -> None:
    sent = dict(BODY)
    # One chunk makes three events, "noise" makes none, a block cut across chunks waits.
    chunks = [b"data: Hel", b"lo\n\ndata: noise\n\ndata: !\n", b"\ndata: end\n\n"]
    with registered(LineWire()), replay(Answer(chunks)) as upstream:
        environ = {
            "PLAYGROUND_UPSTREAM_LINES_BASE_URL": upstream.url,
            "PLAYGROUND_UPSTREAM_LINES_WIRE": "line-wire",
            "PLAYGROUND_UPSTREAM_LINES_API_KEY": "k-1",
        }
        profile = profiles_from_environ(environ, simulator_url="http://sim.test")["lines"]
        client = UpstreamClient(profile, timeouts=TIMEOUTS)
        try:
            async with client.stream(sent) as stream:
                types = [event.type async for event in stream]
        finally:
            await client.aclose()

    (request,) = upstream.requests
    assert request["path"] == "/say/tiny"
    assert request["body"] == {"prompt": "Hi", "limit": 16}
    assert request["headers"]["authorization"] == "Bearer k-1"
    assert "anthropic-version" not in request["headers"]
    assert sent == BODY  # what we mean is not changed by what went on the wire
    assert profile.dialect == "line-wire"
    assert types == [
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    ]
    assert stream.accumulator.message["content"] == [{"type": "text", "text": "Hello!"}]


def test_a_wire_with_its_own_rules_takes_no_dialect() -> None:
    environ = {
        "PLAYGROUND_UPSTREAM_LINES_BASE_URL": "http://box:1",
        "PLAYGROUND_UPSTREAM_LINES_WIRE": "line-wire",
        "PLAYGROUND_UPSTREAM_LINES_DIALECT": "friendli",
        "PLAYGROUND_UPSTREAM_LINES_AUTH": "none",
    }
    with registered(LineWire()), pytest.raises(ValueError) as refused:
        profiles_from_environ(environ, simulator_url="http://sim.test")

    assert str(refused.value).startswith("PLAYGROUND_UPSTREAM_LINES_DIALECT: the wire 'line-wire'")


def test_an_unknown_wire_is_refused_naming_the_known_ones() -> None:
    environ = {
        "PLAYGROUND_UPSTREAM_BOX_BASE_URL": "http://box:1",
        "PLAYGROUND_UPSTREAM_BOX_WIRE": "grpc",
        "PLAYGROUND_UPSTREAM_BOX_AUTH": "none",
    }
    with pytest.raises(ValueError) as refused:
        profiles_from_environ(environ, simulator_url="http://sim.test")

    assert "PLAYGROUND_UPSTREAM_BOX_WIRE" in str(refused.value)
    assert "messages" in str(refused.value)


# -- a token refreshed before it expires ------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def test_a_command_token_is_kept_until_shortly_before_it_expires(tmp_path: Path) -> None:
    clock = Clock()
    token = RefreshedToken(command=token_command(tmp_path), clock=clock)

    first = await token.get()
    clock.now += 600 - REFRESH_MARGIN - 1
    still = await token.get()
    clock.now += 2
    fresh = await token.get()

    assert (first, still, fresh) == ("tok-1", "tok-1", "tok-2")
    assert token.reads == 2


async def test_the_client_sends_the_token_the_command_gave(tmp_path: Path) -> None:
    chunks = [b"data: Hi\n\ndata: end\n\n"]
    with registered(LineWire()), replay(Answer(chunks)) as upstream:
        profile = Profile(
            name="lines",
            label="Lines",
            kind="custom",
            base_url=upstream.url,
            auth="bearer",
            dialect="line-wire",
            token_command=token_command(tmp_path),
        )
        client = UpstreamClient(profile, timeouts=TIMEOUTS)
        try:
            async with client.stream(BODY) as stream:
                [event async for event in stream]
        finally:
            await client.aclose()

    assert upstream.requests[0]["headers"]["authorization"] == "Bearer tok-1"


async def test_a_token_file_is_read_again_once_it_changes(tmp_path: Path) -> None:
    path = tmp_path / "token"
    path.write_text("ya29.first\n")
    token = RefreshedToken(file=str(path), clock=Clock())

    first = await token.get()
    path.write_text("ya29.second\n")
    os.utime(path, ns=(1, 1))  # a change the mtime shows, however fast the test runs

    assert (first, await token.get()) == ("ya29.first", "ya29.second")


async def test_a_failing_command_names_itself_and_never_the_token(tmp_path: Path) -> None:
    script = tmp_path / "fail.py"
    script.write_text("import sys\nprint('secret-partial')\nsys.exit(3)\n")
    token = RefreshedToken(command=f"{sys.executable} {script}")

    with pytest.raises(UpstreamCredentialError) as failed:
        await token.get()

    assert "exited with 3" in failed.value.message
    assert "secret" not in failed.value.message


class _AnsweredCommand:
    """A token command's process whose output the test hands over: the OS's side of the pipe,
    so the output and a cancel of its reader can come in one loop turn."""

    def __init__(self) -> None:
        self.returncode: int | None = None
        self.read = asyncio.Event()
        self.output: asyncio.Future[bytes] = asyncio.get_running_loop().create_future()

    async def communicate(self) -> tuple[bytes, bytes]:
        self.read.set()
        out = await self.output
        self.returncode = 0
        return out, b""

    def kill(self) -> None:
        self.returncode = -9

    async def wait(self) -> int | None:
        return self.returncode


async def test_a_token_read_cancelled_as_the_command_answers_ends_cancelled(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A run stopped while its token command answers ends stopped: Python 3.11's ``wait_for``
    returned output that came in the cancel's turn and dropped the cancel, so the run went on
    to send its request and stream the whole answer."""
    command = _AnsweredCommand()

    async def started(*argv: str, **options: Any) -> _AnsweredCommand:
        return command

    monkeypatch.setattr(asyncio, "create_subprocess_exec", started)
    token = RefreshedToken(command="print-token")
    reading = asyncio.create_task(token.get())
    await command.read.wait()

    command.output.set_result(b"ya29.fresh\n")
    reading.cancel()  # in the turn the output came

    (outcome,) = await asyncio.gather(reading, return_exceptions=True)
    assert isinstance(outcome, asyncio.CancelledError), outcome
    assert token.reads == 0


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param('{"access_token": "a", "expires_in": 3599}', ("a", 3599.0), id="google"),
        pytest.param(
            '{"token": "b", "expiry": "1970-01-01T01:00:00Z"}', ("b", 3600.0), id="gcloud-json"
        ),
        pytest.param("ya29.c\n", ("ya29.c", 600.0), id="bare"),
    ],
)
def test_a_token_and_its_lifetime_are_read(text: str, expected: tuple[str, float]) -> None:
    assert read_token(text, now=0.0) == expected


@pytest.mark.parametrize("text", ["", "two words", '{"expires_in": 5}'], ids=repr)
def test_a_text_with_no_token_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        read_token(text, now=0.0)
