"""The browser's fold (render/accumulate.js, run under Node) against the Python core, on
recorded streams: the same message, the same flagged blocks, as many events refused.

Each parametrised test folds its stream in one batch shared by the module (one Node start-up
for every recording); the fold's other cases are in tests/js/accumulate.test.mjs.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from playground.protocol.accumulate import MessageAccumulator
from playground.protocol.errors import ProtocolError
from playground.protocol.events import parse_event_data
from tests.js_support import run_pure

FIXTURES = Path(__file__).resolve().parent / "fixtures"
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
CUT_STREAMS = [tuple(param.values) for param in CUTS]


@pytest.fixture(scope="module")
def js_folds() -> dict[str, dict[str, Any]]:
    """Every recording and every cut, folded by the browser's module in one Node run."""
    streams = {path.name: read_sse(path) for path in RECORDINGS}
    streams |= {f"{name}:{events}": cut(FIXTURES / name, events) for name, events in CUT_STREAMS}
    folded = run_pure("fold", list(streams.values()))
    return dict(zip(streams, folded, strict=True))


def read_sse(path: Path) -> list[dict[str, Any]]:
    """The JSON data of each SSE message in a recording (multi-line data joined); the OpenAI
    end marker some servers send after ``message_stop`` (``data: [DONE]``, vLLM) is no event,
    as our decoder and the SDK skip it."""
    events = []
    for chunk in path.read_text().replace("\r\n", "\n").split("\n\n"):
        lines = [
            line[5:].removeprefix(" ") for line in chunk.split("\n") if line.startswith("data:")
        ]
        if lines and lines != ["[DONE]"]:
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
def test_fold_matches_the_python_core(js_folds: dict[str, Any], path: Path) -> None:
    expected = python_fold(read_sse(path))

    got = js_folds[path.name]

    # An unfinished tool call included: both keep the complete values of its JSON so far.
    assert {**got, "rejected": len(got["rejected"])} == expected


@pytest.mark.parametrize(("name", "events"), CUTS)
def test_fold_of_a_stream_cut_mid_block_matches_the_python_core(
    js_folds: dict[str, Any], name: str, events: int
) -> None:
    expected = python_fold(cut(FIXTURES / name, events))

    got = js_folds[f"{name}:{events}"]

    assert {**got, "rejected": len(got["rejected"])} == expected
