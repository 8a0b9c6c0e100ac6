"""A grid's test cases from CSV and JSON Lines (``protocol.grid_rows``)."""

from __future__ import annotations

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.grid_rows import rows_from_csv, rows_from_jsonl


def test_csv_rows_are_named_by_the_header_and_keep_quoted_commas_and_newlines() -> None:
    text = 'topic,audience\ntides,a child\n\n"volcanoes, active","a\nchemist"\n'
    assert rows_from_csv(text) == [
        {"topic": "tides", "audience": "a child"},
        {"topic": "volcanoes, active", "audience": "a\nchemist"},
    ]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("topic,1st\nx,y\n", "rows: line 1", "'1st' is no variable name"),
        ("a,a\nx,y\n", "rows: line 1", "named twice"),
        ("a,b\nx\n", "rows: line 2", "1 fields, the header names 2"),
    ],
    ids=["bad-name", "twice", "short-record"],
)
def test_a_bad_csv_is_refused_by_line(text: str, field: str, words: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        rows_from_csv(text)
    assert refused.value.field == field
    assert words in refused.value.message


def test_jsonl_rows_write_numbers_and_booleans_as_json_does() -> None:
    text = '{"topic": "owls", "n": 3, "ok": true}\n\n{"topic": "bats", "n": 2.5, "ok": false}\n'
    assert rows_from_jsonl(text) == [
        {"topic": "owls", "n": "3", "ok": "true"},
        {"topic": "bats", "n": "2.5", "ok": "false"},
    ]


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ('{"a": "x"}\n[1]\n', "rows: line 2"),
        ('{"a": {"b": 1}}', "rows: line 1"),
        ("{oops", "rows: line 1"),
    ],
    ids=["not-an-object", "nested", "not-json"],
)
def test_a_bad_jsonl_line_is_refused_by_line(text: str, field: str) -> None:
    with pytest.raises(RequestValidationError) as refused:
        rows_from_jsonl(text)
    assert refused.value.field == field
