"""Our decode + fold gives the same final message as the anthropic SDK, on recorded streams.

Both sides read the same bytes over a mock transport: ours through the real path
(``httpx`` streaming response -> ``aiter_events`` -> ``MessageAccumulator``), the SDK's through
``Anthropic().messages.stream()`` -> ``get_final_message()``. Only fields the SDK keeps are
compared; the deliberate differences are each pinned by a test of their own:

- ``stop_details``: the SDK writes ``None`` from every ``message_delta`` that omits it; we keep
  the message as sent, so the key appears only when the upstream sent it.
- usage fields the SDK's fold does not know (``fallback_credit`` on a ``message_delta``): the
  SDK drops them, we keep them, since the turn is sent back and shown as received.
- invalid tool JSON: the SDK raises; we keep the block, flag it and keep the raw text.
- an event before ``message_start``: the SDK passes it through unfolded; we reject it with a
  ProtocolError (a stream that starts mid-message is broken) and fold the rest.
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest
from anthropic import Anthropic

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import ProtocolError
from playground.upstream.sse import aiter_events

FIXTURES = Path(__file__).parent / "fixtures"
SDK_DIR = FIXTURES / "anthropic_sdk"
INVALID_JSON = "tool_use_invalid_json_response"
EARLY_EVENT = "unknown_events_response"
SPECIAL = {INVALID_JSON, EARLY_EVENT}
STREAMS = sorted(
    [p for p in SDK_DIR.glob("*.txt") if p.stem not in SPECIAL]
    + list(FIXTURES.glob("friendli_*.sse"))
)
CHUNK = 61  # small and odd, so events and UTF-8 characters straddle chunks


async def _chunks(body: bytes) -> AsyncIterator[bytes]:
    for start in range(0, len(body), CHUNK):
        yield body[start : start + CHUNK]


async def fold_ours(body: bytes) -> tuple[MessageAccumulator, list[ProtocolError]]:
    """Decode through our real path; keep folding past rejected events, recording them."""

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200, headers={"content-type": "text/event-stream"}, content=_chunks(body)
        )

    acc = MessageAccumulator()
    rejected: list[ProtocolError] = []
    async with (
        httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client,
        client.stream("POST", "http://upstream.test/v1/messages") as response,
    ):
        async for event in aiter_events(response):
            try:
                acc.feed(event)
            except ProtocolError as exc:
                rejected.append(exc)
    return acc, rejected


def fold_sdk(body: bytes) -> dict[str, Any]:
    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    client = Anthropic(
        api_key="test-key",
        base_url="http://upstream.test",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )
    with client.messages.stream(
        model="m", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        for _ in stream:
            pass
        final = stream.get_final_message()
    with warnings.catch_warnings():
        # Block types newer than this SDK's union serialise fine but warn.
        warnings.simplefilter("ignore")
        return final.to_dict(mode="json")


def comparable(ours: dict[str, Any], sdk: dict[str, Any]) -> dict[str, Any]:
    """The SDK's message, less the one field it invents (see the module docstring)."""
    sdk = dict(sdk)
    if sdk.get("stop_details") is None and "stop_details" not in ours:
        sdk.pop("stop_details", None)
    return sdk


def _id(path: Path) -> str:
    return path.stem


@pytest.mark.parametrize("path", STREAMS, ids=_id)
async def test_final_message_matches_the_sdk(path: Path) -> None:
    body = path.read_bytes()
    acc, rejected = await fold_ours(body)
    ours = acc.message
    assert ours is not None
    assert rejected == []
    if path.stem == "fallback_credit_response":
        ours["usage"].pop("fallback_credit")

    assert ours == comparable(ours, fold_sdk(body))


@pytest.mark.parametrize("path", STREAMS, ids=_id)
async def test_recorded_stream_ends_complete(path: Path) -> None:
    acc, _ = await fold_ours(path.read_bytes())

    assert acc.end_of_stream().status == "complete"


async def test_stop_details_are_absent_when_never_sent() -> None:
    body = (SDK_DIR / "basic_response.txt").read_bytes()
    acc, _ = await fold_ours(body)

    assert acc.message is not None
    assert "stop_details" not in acc.message
    assert fold_sdk(body)["stop_details"] is None


async def test_usage_fields_unknown_to_the_sdk_are_kept() -> None:
    body = (SDK_DIR / "fallback_credit_response.txt").read_bytes()
    acc, _ = await fold_ours(body)

    assert acc.message is not None
    assert acc.message["usage"]["fallback_credit"] == {"status": {"type": "redeemed"}}
    assert "fallback_credit" not in fold_sdk(body)["usage"]


async def test_incomplete_tool_block_matches_the_sdk_and_is_flagged() -> None:
    # The SDK keeps the partial input of a block cut off at max_tokens; so do we, and say so.
    acc, _ = await fold_ours((SDK_DIR / "incomplete_partial_json_response.txt").read_bytes())
    acc.end_of_stream()

    assert acc.block_issues == {1: "incomplete"}


async def test_invalid_tool_json_is_flagged_where_the_sdk_raises() -> None:
    body = (SDK_DIR / f"{INVALID_JSON}.txt").read_bytes()
    with pytest.raises(ValueError, match="Unable to parse tool parameter JSON"):
        fold_sdk(body)

    acc, rejected = await fold_ours(body)
    message = acc.message

    # Ours: the turn survives; the block keeps its start input and the raw text is kept.
    assert rejected == []
    assert message is not None
    assert message["content"][1]["input"] == {}
    assert acc.block_issues == {1: "invalid_json"}
    assert acc.raw_input(1) == '{"location": "Paris", "unit": celsius}'


async def test_event_before_message_start_is_rejected_and_the_rest_matches_the_sdk() -> None:
    body = (SDK_DIR / f"{EARLY_EVENT}.txt").read_bytes()
    acc, rejected = await fold_ours(body)

    assert [exc.event_type for exc in rejected] == ["content_block_stop"]
    assert acc.message is not None
    assert acc.message == comparable(acc.message, fold_sdk(body))
    assert [event.type for event in acc.unknown] == ["future_event"] * 3
