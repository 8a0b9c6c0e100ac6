"""Our decode + fold gives the same final message as the anthropic SDK, on recorded streams.

Both sides read the same bytes over a mock transport: ours through the real path
(``httpx`` streaming response -> ``aiter_events`` -> ``MessageAccumulator``), the SDK's through
``Anthropic().messages.stream()`` -> ``get_final_message()``. Only fields the SDK keeps are
compared; the deliberate differences are each pinned by a test of their own:

- ``stop_details``: the SDK writes ``None`` from every ``message_delta`` that omits it; we keep
  the message as sent, so the key appears only when the upstream sent it. ``stop_sequence`` too,
  for a server that never sends it (Ollama leaves it out of ``message_start`` and
  ``message_delta`` alike: ``omitempty``).
- usage fields the SDK's fold does not know (``fallback_credit`` on a ``message_delta``): the
  SDK drops them, we keep them, since the turn is sent back and shown as received.
- invalid tool JSON: the SDK raises; we keep the block, flag it and keep the raw text.

Events before ``message_start`` are passed through unfolded by both (we keep them in
``MessageAccumulator.early`` to flag the run).
- compaction: the stable helper leaves a ``compaction`` block as started; we apply
  ``compaction_delta`` as the beta helper does (those streams are compared with it).
- an ``error`` event: the SDK raises; we keep the message folded so far, equal to its snapshot.
- a ``content_block_start`` again for a block still open (llama.cpp's final result): the SDK
  appends a copy of the start at the end; the block goes on in ours (the rest is equal).
"""

from __future__ import annotations

import warnings
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
import httpx2
import pytest

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import ProtocolError
from playground.upstream.sse import aiter_events

FIXTURES = Path(__file__).parent / "fixtures"
SDK_DIR = FIXTURES / "anthropic_sdk"
INVALID_JSON = "tool_use_invalid_json_response"
EARLY_EVENT = "unknown_events_response"
#: Every recorded stream we ship but one: the SDK raises on invalid tool JSON before it has a
#: message to compare (that stream has its own test below).
STREAMS = sorted(
    [p for p in SDK_DIR.glob("*.txt") if p.stem != INVALID_JSON] + list(FIXTURES.glob("*.sse"))
)
#: Folded by the SDK's beta helper, which applies compaction_delta and keeps a message_delta's
#: context_management (the stable one does neither).
BETA = {
    "compaction_response",
    "compaction_two_deltas",
    "context_management_response",
    # The simulator's showcase holds compaction and MCP-connector calls: only the beta helper
    # folds their deltas.
    "sim_blocks_all",
}
#: The SDK raises at an ``error`` event; its snapshot up to there is what we compare.
SDK_RAISES = {"error_event_mid_stream", "llamacpp_error_mid_stream", "vllm_error_mid_stream"}
#: How each stream ends, when not ``complete``.
ENDS = {
    "tool_cut_mid_string": "truncated",
    "error_event_mid_stream": "failed",
    "llamacpp_error_mid_stream": "failed",
    "vllm_error_mid_stream": "failed",
    "ollama_cut_by_error": "truncated",
}
#: Streams that start a block again while it is open: the SDK appends that many copies.
RESTARTS = {"llamacpp_final_restarts_block": 1}
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


def sdk_stream(body: bytes, *, beta: bool = False) -> tuple[dict[str, Any], Exception | None]:
    """The SDK's message once the stream is read, and what it raised while reading, if any.

    A stream the SDK gives up on (an ``error`` event, tool JSON it cannot parse) still has the
    snapshot it folded up to there: the message we keep of the same stream must equal it.
    """

    def handler(request: httpx2.Request) -> httpx2.Response:
        return httpx2.Response(200, headers={"content-type": "text/event-stream"}, content=body)

    # Imported here, not at the top: the package costs 2.7 s of CPU, which every xdist worker
    # would pay to collect this file.
    from anthropic import Anthropic

    client = Anthropic(
        api_key="test-key",
        base_url="http://upstream.test",
        http_client=httpx2.Client(transport=httpx2.MockTransport(handler)),
        max_retries=0,
    )
    # The beta helper also applies compaction_delta (the stable one leaves the block empty).
    messages = client.beta.messages if beta else client.messages
    raised: Exception | None = None
    with messages.stream(
        model="m", max_tokens=16, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        try:
            for _ in stream:
                pass
        except Exception as exc:  # noqa: BLE001 - what the SDK raised is the result
            raised = exc
        final = stream.current_message_snapshot
    with warnings.catch_warnings():
        # Block types newer than this SDK's union serialise fine but warn.
        warnings.simplefilter("ignore")
        return final.to_dict(mode="json"), raised


def fold_sdk(body: bytes, *, beta: bool = False) -> dict[str, Any]:
    message, raised = sdk_stream(body, beta=beta)
    if raised is not None:
        raise raised
    return message


def comparable(ours: dict[str, Any], sdk: dict[str, Any]) -> dict[str, Any]:
    """The SDK's message, less the one field it invents (see the module docstring)."""
    sdk = dict(sdk)
    for key in ("stop_details", "stop_sequence"):
        if sdk.get(key) is None and key not in ours:
            sdk.pop(key, None)
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

    sdk, raised = sdk_stream(body, beta=path.stem in BETA)
    assert (raised is not None) == (path.stem in SDK_RAISES), raised
    if path.stem in RESTARTS:
        sdk["content"] = sdk["content"][: -RESTARTS[path.stem]]
    assert ours == comparable(ours, sdk)


@pytest.mark.parametrize("path", STREAMS, ids=_id)
async def test_recorded_stream_ends_as_expected(path: Path) -> None:
    acc, _ = await fold_ours(path.read_bytes())

    assert acc.end_of_stream().status == ENDS.get(path.stem, "complete")


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


@pytest.mark.parametrize("stem", [EARLY_EVENT, "early_events"])
async def test_events_before_message_start_are_kept_unfolded_as_the_sdk_does(stem: str) -> None:
    path = SDK_DIR / f"{stem}.txt" if stem == EARLY_EVENT else FIXTURES / f"{stem}.sse"
    acc, rejected = await fold_ours(path.read_bytes())

    assert rejected == []
    assert acc.message == comparable(acc.message, fold_sdk(path.read_bytes()))
    assert {event.type for event in acc.early} <= {"content_block_stop", "content_block_delta"}
    assert acc.early


async def test_compaction_is_applied_as_the_beta_helper_does_where_the_stable_one_does_not() -> (
    None
):
    body = (FIXTURES / "compaction_two_deltas.sse").read_bytes()
    acc, _ = await fold_ours(body)
    assert acc.message is not None

    block = acc.message["content"][0]
    assert block == fold_sdk(body, beta=True)["content"][0]
    assert block["content"] == "Earlier turns: the user asked about Paris weather."
    assert block["encrypted_content"] == "EqQBCioIDxgCEAEYASJA_opaque\u2028payload"
    assert fold_sdk(body)["content"][0]["content"] is None


async def test_an_error_event_keeps_what_the_sdk_had_folded_and_its_own_request_id() -> None:
    body = (FIXTURES / "error_event_mid_stream.sse").read_bytes()
    acc, _ = await fold_ours(body)
    sdk, raised = sdk_stream(body)

    assert acc.message == comparable(acc.message, sdk)
    assert raised is not None
    assert acc.error is not None
    assert (acc.error.error_type, acc.error.request_id) == (
        "overloaded_error",
        "req_011CEventOwnId",
    )
