"""The browser's fold and partial JSON parser against the Python core, on recorded streams."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import ProtocolError
from playground.protocol.events import parse_event_data

pytestmark = pytest.mark.browser

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
RECORDINGS = sorted([*FIXTURES.glob("*.sse"), *FIXTURES.glob("anthropic_sdk/*_response.txt")])


def cut(path: Path, events: int) -> list[dict[str, Any]]:
    """A recording's first ``events`` events: a stream that broke there."""
    return read_sse(path)[:events]


#: Streams cut mid-block: inside a tool call's string, number and array, and inside text.
CUTS = [
    pytest.param("tool_cut_mid_number.sse", 6, id="tool-mid-number"),
    pytest.param("tool_cut_mid_number.sse", 8, id="tool-mid-array"),
    pytest.param("tool_cut_mid_string.sse", 7, id="tool-mid-string"),
    pytest.param("anthropic_sdk/incomplete_partial_json_response.txt", 13, id="tool-mid-lines"),
    pytest.param("anthropic_sdk/tool_use_response.txt", 7, id="tool-first-pieces"),
    pytest.param("odd_characters_in_strings.sse", 14, id="tool-mid-first-string"),
    pytest.param("odd_characters_in_strings.sse", 6, id="text-mid-block"),
]

JS_FOLD = """async (events) => {
    const fold = await import("/static/playground/render/accumulate.js");
    let snapshot = null;
    const rejected = [];
    for (const event of events) {
        try {
            snapshot = fold.accumulate(snapshot, event);
        } catch (error) {
            if (!(error instanceof fold.ProtocolError)) throw error;
            rejected.push(error.message);
        }
    }
    const issues = {};
    (snapshot?.content ?? []).forEach((block, index) => {
        if (block[fold.ISSUE]) issues[index] = block[fold.ISSUE];
    });
    return { message: fold.toApiMessage(snapshot), issues, rejected };
}"""


def read_sse(path: Path) -> list[dict[str, Any]]:
    """The JSON data of each SSE message in a recording (multi-line data joined)."""
    events = []
    for chunk in path.read_text().replace("\r\n", "\n").split("\n\n"):
        lines = [
            line[5:].removeprefix(" ") for line in chunk.split("\n") if line.startswith("data:")
        ]
        if lines:
            events.append(json.loads("\n".join(lines)))
    return events


def python_fold(events: list[dict[str, Any]]) -> dict[str, Any]:
    accumulator = MessageAccumulator()
    rejected = []
    for data in events:
        try:
            accumulator.feed(parse_event_data(data))
        except ProtocolError as error:
            rejected.append(str(error))
    issues = {str(i): issue for i, issue in accumulator.block_issues.items()}
    return {"message": accumulator.message, "issues": issues, "rejected": len(rejected)}


@pytest.mark.parametrize("path", RECORDINGS, ids=[p.name for p in RECORDINGS])
def test_fold_matches_the_python_core(harness_page: Page, path: Path) -> None:
    events = read_sse(path)
    expected = python_fold(events)

    got = harness_page.evaluate(JS_FOLD, events)

    # An unfinished tool call included: both keep the complete values of its JSON so far.
    assert {**got, "rejected": len(got["rejected"])} == expected


@pytest.mark.parametrize(("name", "events"), CUTS)
def test_fold_of_a_stream_cut_mid_block_matches_the_python_core(
    harness_page: Page, name: str, events: int
) -> None:
    stream = cut(FIXTURES / name, events)
    expected = python_fold(stream)

    got = harness_page.evaluate(JS_FOLD, stream)

    assert {**got, "rejected": len(got["rejected"])} == expected


@pytest.mark.parametrize(
    ("events", "fragment"),
    [
        (
            [
                {"type": "message_start", "message": {"content": []}},
                {"type": "content_block_start", "index": 1, "content_block": {"type": "text"}},
            ],
            "the next block index is 0",
        ),
        (
            [
                {"type": "message_start", "message": {"content": []}},
                {"type": "content_block_start", "index": 0, "content_block": {"type": "text"}},
                {
                    "type": "content_block_delta",
                    "index": 0,
                    "delta": {"type": "input_json_delta", "partial_json": "{"},
                },
            ],
            "does not fit a text block",
        ),
    ],
    ids=["index-gap", "wrong-delta"],
)
def test_out_of_order_events_are_rejected_by_name(
    harness_page: Page, events: list[dict[str, Any]], fragment: str
) -> None:
    got = harness_page.evaluate(JS_FOLD, events)

    assert len(got["rejected"]) == 1
    assert fragment in got["rejected"][0]


PARTIAL_CASES = [
    ('{"a": "hel', {"a": "hel"}),
    ('{"a": 1, "b": [tr', {"a": 1, "b": []}),
    ('{"a": [1, 2', {"a": [1, 2]}),
    ('{"a": {"b": "x\\n\\u00e', {"a": {"b": "x\n"}}),
    ('{"a": "\\ud83d\\ude00", "b', {"a": "😀"}),
    ('{"a": true, "b": null, "c": -1.5e3}', {"a": True, "b": None, "c": -1500.0}),
    ('[{"x": "y"}, "z', [{"x": "y"}, "z"]),
    ('{"a": 1} trailing', {"a": 1}),
    ("", None),
]


@pytest.mark.parametrize(
    ("text", "expected"), PARTIAL_CASES, ids=[c[0] or "empty" for c in PARTIAL_CASES]
)
def test_partial_json(harness_page: Page, text: str, expected: Any) -> None:
    got = harness_page.evaluate(
        "(text) => window.__pgHarness.render.parsePartialJson(text) ?? null", text
    )

    assert got == expected


def test_incremental_parse_is_split_invariant(harness_page: Page) -> None:
    """Fed one character at a time, the parser ends where one whole parse ends."""
    text = json.dumps({"s": 'q"\\\n\u00e9\U0001f600', "n": [0, -2.5e-3, 10], "o": {"t": True}})

    got = harness_page.evaluate(
        """(text) => {
            const parser = new window.__pgHarness.render.IncrementalJsonParser();
            for (const ch of text.split("")) parser.feed(ch);
            return [parser.value(), parser.done, parser.error];
        }""",
        text,
    )

    assert got == [json.loads(text), True, None]
