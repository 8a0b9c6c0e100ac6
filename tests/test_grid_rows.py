"""The one checked reader of a grid's test cases (``protocol.grid_rows.read_rows``): CSV, JSON
Lines and rows sent as objects, with the same limits and a refusal naming the row and field."""

from __future__ import annotations

import json
from typing import Any

import pytest

from playground.protocol.errors import RequestValidationError
from playground.protocol.grid_rows import ROW_LIMITS, RowLimits, read_rows, variable_warnings


def refusal(**given: Any) -> RequestValidationError:
    with pytest.raises(RequestValidationError) as refused:
        read_rows(**given)
    return refused.value


def test_csv_rows_are_named_by_the_header_and_keep_quoted_commas_and_newlines() -> None:
    text = 'topic,audience\ntides,a child\n\n"volcanoes, active","a\nchemist"\n'
    assert read_rows(csv_text=text) == [
        {"topic": "tides", "audience": "a child"},
        {"topic": "volcanoes, active", "audience": "a\nchemist"},
    ]


def test_a_csv_as_spreadsheets_save_it_is_read() -> None:
    # Excel's "CSV UTF-8" starts with a byte order mark; old Mac files end lines with a bare CR.
    assert read_rows(csv_text="\ufefftopic\r\nowls\r\n") == [{"topic": "owls"}]
    assert read_rows(csv_text="topic\rowls\rbats\r") == [{"topic": "owls"}, {"topic": "bats"}]
    assert read_rows(csv_text='topic\n"one\rtwo"\n') == [{"topic": "one\rtwo"}]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ("topic,1st\nx,y\n", "rows: line 1", "'1st' is no variable name"),
        ("a,a\nx,y\n", "rows: line 1", "named twice"),
        ("a,b\nx\n", "rows: line 2", "1 fields, the header names 2"),
        ("a\n" + "x" * 200_000 + "\n", "rows: line 2", "over 131072 characters"),
        ("a\nok\n" + "y" * 100_001 + "\n", "rows: line 3, a", "at most 100000 characters"),
        ('a\nok\n"never closed\nb\n', "rows: line 3", "never closed"),
    ],
    ids=["bad-name", "twice", "short-record", "over-csv-field", "over-value", "open-quote"],
)
def test_a_bad_csv_is_refused_by_line(text: str, field: str, words: str) -> None:
    refused = refusal(csv_text=text)
    assert refused.field == field
    assert words in refused.message


def test_jsonl_rows_write_numbers_and_booleans_as_json_does() -> None:
    text = (
        '\ufeff{"topic": "owls", "n": 3, "ok": true}\n\n{"topic": "bats", "n": 2.5, "ok": false}\n'
    )
    assert read_rows(jsonl=text) == [
        {"topic": "owls", "n": "3", "ok": "true"},
        {"topic": "bats", "n": "2.5", "ok": "false"},
    ]


@pytest.mark.parametrize(
    ("text", "field", "words"),
    [
        ('{"a": "x"}\n[1]\n', "rows: line 2", "JSON object"),
        ('{"a": {"b": 1}}', "rows: line 1, a", "string, number or boolean"),
        ("{oops", "rows: line 1", "malformed JSON"),
        ('{"a": NaN}', "rows: line 1", "NaN is not valid JSON"),
        ('{"a": 1}\n{"a": Infinity}', "rows: line 2", "Infinity is not valid JSON"),
        ('{"a": 1e400}', "rows: line 1", "too large a number"),
        ('{"a": "\\ud800"}', "rows: line 1.a", "lone surrogate"),
        ('{"a": ' + "[" * 5000 + "]" * 5000 + "}", "rows: line 1", "nested too deeply"),
    ],
    ids=[
        "not-an-object",
        "nested",
        "not-json",
        "nan",
        "infinity",
        "overflow",
        "surrogate",
        "5000-deep",
    ],
)
def test_a_bad_jsonl_line_is_refused_by_line(text: str, field: str, words: str) -> None:
    refused = refusal(jsonl=text)
    assert refused.field == field
    assert words in refused.message


@pytest.mark.parametrize(
    ("rows", "field", "words"),
    [
        ([{"topic": "x"}, {"=HYPERLINK(1)": "x"}], "rows[1]", "no variable name"),
        ([{"topic": 3}], "rows[0].topic", "expected text"),
        ([{"topic": "\ud800"}], "rows[0].topic", "lone surrogate"),
        (["topic"], "rows[0]", "expected an object"),
    ],
    ids=["formula-name", "number", "surrogate", "not-an-object"],
)
def test_object_rows_are_held_to_the_same_rules(rows: list[Any], field: str, words: str) -> None:
    refused = refusal(objects=rows)
    assert refused.field == field
    assert words in refused.message


def test_every_door_is_held_to_the_same_limits() -> None:
    many = [{"topic": str(n)} for n in range(ROW_LIMITS.rows + 1)]
    for given in (
        {"objects": many},
        {"csv_text": "topic\n" + "".join(f"{n}\n" for n in range(ROW_LIMITS.rows + 1))},
        {"jsonl": "".join(json.dumps(row) + "\n" for row in many)},
    ):
        refused = refusal(**given)
        assert refused.field == "rows"
        assert refused.reason.startswith(f"at most {ROW_LIMITS.rows} rows"), refused.reason
    # Rows x columns: 500 rows fit one column, and 4 columns of 500 rows is the cell limit.
    assert len(read_rows(objects=many[:500], columns=4)) == 500
    tight = RowLimits(rows=10, cells=12, value_chars=5, total_chars=8)
    assert "at most 12 cells" in refusal(objects=many[:4], columns=4, limits=tight).message
    assert "over 8 characters" in refusal(objects=[{"a": "xxxxx"}] * 2, limits=tight).message


def test_one_way_only() -> None:
    assert refusal(objects=[], csv_text="a\n").field == "rows"
    assert refusal().field == "rows"


def test_warnings_name_a_column_no_variable_takes_and_a_variable_no_column_fills() -> None:
    typo, unfilled = variable_warnings(rows=[{"topik": "owls"}], variables=["topic"])
    assert "topik" in typo and "no row's value is sent" in typo and "{{topic}}" in typo
    assert "no column fills {{topic}}" in unfilled
    extra, missing = variable_warnings(
        rows=[{"topic": "owls", "expected": "x"}], variables=["topic", "audience"]
    )
    assert "expected" in extra and "not sent" in extra
    assert "{{audience}}" in missing
    assert variable_warnings(rows=[{"topic": "owls"}], variables=["topic"]) == []
