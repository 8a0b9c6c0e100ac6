"""Odd prompt files are refused before they cost much: a YAML file of too many values or too
deep a nesting is refused naming the limit, before its values are built; a file's version
numbers, messages and labels are checked as the database and a save take them."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml

from playground.prompts import files, yaml_file
from playground.protocol.errors import RequestValidationError
from playground.web.ownership import local_user

LIMIT = 16 * 1024 * 1024
HEAD = "format: messages-playground/prompt\nname: odd\n"


def test_a_yaml_file_of_too_many_values_is_refused_before_they_are_built(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(yaml_file, "MAX_VALUES", 1000)
    built: list[Any] = []
    monkeypatch.setattr(yaml, "load", lambda *args, **kwargs: built.append(args))
    text = HEAD + "padding: [" + "1, " * 1000 + "1]\n"
    with pytest.raises(RequestValidationError) as caught:
        files.read_document(text, limit=LIMIT)
    assert caught.value.field == "file" and "more than 1000 values" in caught.value.message
    assert built == []  # refused while reading the events, nothing built


def test_a_yaml_file_nested_deeper_than_the_json_doors_allow_is_refused_by_line() -> None:
    text = HEAD + "versions: " + "[" * 100 + "]" * 100 + "\n"
    with pytest.raises(RequestValidationError) as caught:
        files.read_document(text, limit=LIMIT)
    assert caught.value.message == "file: line 3: nested too deeply (the limit is 64 levels)"


@pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML built without libyaml")
def test_yaml_is_read_by_libyaml_where_pyyaml_has_it() -> None:
    # The pure-Python scanner spends about 1.5 s of CPU per MB, comments included.
    assert yaml_file.LOADER is yaml.CSafeLoader


def test_a_file_read_by_libyaml_keeps_its_texts_and_times_as_the_export_wrote_them() -> None:
    document = {
        "format": "messages-playground/prompt",
        "name": "odd",
        "versions": [
            {"number": 1, "created_at": "2026-01-02T03:04:05+00:00",
             "definition": {"system": "Line one\n  indented: {{x}}\n\ttab ünïcode ☃\n"}}
        ],
    }  # fmt: skip
    text = files.document_text(document, kind="yaml")
    assert files.read_document(text, limit=LIMIT) == json.loads(json.dumps(document))
    unquoted = HEAD + "when: 2026-01-02 03:04:05\n"
    assert files.read_document(unquoted, limit=LIMIT)["when"] == "2026-01-02T03:04:05"


def _document(**changes: Any) -> dict[str, Any]:
    version = {"number": 1, "message": "first", "definition": {"system": "Hi"}}
    return {"format": "messages-playground/prompt", "name": "odd", "labels": {},
            "versions": [version], **changes}  # fmt: skip


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"number": 2**63}, "versions[0].number"),  # past SQLite's integers: was a 500
        ({"number": 10**30}, "versions[0].number"),
        ({"number": 2**31}, "versions[0].number"),  # past PostgreSQL's integer
        ({"message": "m" * 2001}, "versions[0].message"),  # as a save refuses it
    ],
    ids=["2**63", "10**30", "2**31", "long message"],
)
@pytest.mark.django_db
def test_a_version_the_database_could_not_hold_is_refused_naming_it(
    changes: dict[str, Any], field: str
) -> None:
    document = _document()
    document["versions"][0].update(changes)
    with pytest.raises(RequestValidationError) as caught:
        files.import_document(owner=local_user(), document=document)
    assert caught.value.field == field


@pytest.mark.django_db
def test_a_label_must_name_a_version_by_its_number_not_by_true() -> None:
    with pytest.raises(RequestValidationError) as caught:
        files.import_document(owner=local_user(), document=_document(labels={"production": True}))
    assert caught.value.field == "labels.production"


@pytest.mark.django_db
def test_who_imported_a_new_prompt_is_in_the_audit_log_beside_the_files_own_authors() -> None:
    from playground.team_models import AuditEvent

    document = _document(labels={"production": 1})
    document["versions"][0]["author"] = "someone-else"
    imported = files.import_document(owner=local_user(), document=document, name="brought")
    assert imported.prompt.versions.get().author_name == "someone-else"  # the file, exactly
    event = AuditEvent.objects.get(action="prompt.imported")
    assert (event.actor_id, event.target) == (local_user().pk, str(imported.prompt.pk))
    assert event.details == {"name": "brought", "versions": 1, "labels": 1}


TRICKY_TEXTS = [
    "yes", "null", "~", "1e3", "0x10", "2026-01-01", "12:30", " lead", "trail ", "tab\tx",
    "line\r\nCRLF", "cr\ronly", "a: b", "#c", "- d", "*alias", "multi\nline\n",
    "trailing newlines\n\n", "\n\nleading newlines", "emoji \U0001f600", "\ufeffbom",
    "nel\x85x", "line\u2028separator", "paragraph\u2029separator", "block\nwith\x85nel",
]  # fmt: skip


@pytest.mark.parametrize("text", TRICKY_TEXTS, ids=[repr(text) for text in TRICKY_TEXTS])
def test_a_text_yaml_could_read_otherwise_comes_back_exactly(text: str) -> None:
    document = {"format": "messages-playground/prompt", "system": text, "variables": {"v": text}}
    written = files.document_text(document, kind="yaml")
    assert files.read_document(written, limit=LIMIT) == document


def test_a_json_prompt_file_of_16_mb_of_tiny_values_is_refused_naming_the_limit() -> None:
    text = '{"format": "messages-playground/prompt", "padding": [' + "1," * (8 << 20) + "1]}"
    with pytest.raises(RequestValidationError) as caught:
        files.read_document(text, limit=LIMIT + 1024)
    assert caught.value.field == "file"
    assert "more than 400000 values, the limit for one JSON text" in caught.value.message
