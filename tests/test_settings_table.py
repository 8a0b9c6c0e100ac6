"""One table of settings (``protocol/settings_table.py``), read by everything that names one.

The model's columns, the schemas, the request builder, the page's form and the docs are held
to the table here, so a setting added to the table and nowhere else fails a test, and one added
anywhere else but the table does too.
"""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.db import models
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_body import REQUEST_SETTINGS, MessagesRequest
from playground.protocol.requests import GenerationSettings, build_request
from playground.protocol.setting_types import (
    Integer,
    JsonObject,
    Number,
    StringList,
    Text,
    ToolList,
)
from playground.protocol.settings_table import SETTING_NAMES, SETTINGS, Setting, markdown, setting
from playground.protocol.shape import parse
from playground.simulator.inputs import SimulatorBody
from playground.web.ownership import local_user

ROOT = Path(__file__).resolve().parent.parent
#: The Conversation columns that are no setting.
# variables: the prompt variables panel; tool_mocks: docs/debugger.md; mcp_tools: docs/mcp.md
NOT_SETTINGS = {"id", "owner", "created_at", "updated_at", "variables", "tool_mocks", "mcp_tools"}


def _column(name: str) -> models.Field[Any, Any]:
    field = Conversation._meta.get_field(name)
    assert isinstance(field, models.Field)
    return field


def test_the_models_columns_are_the_tables_settings() -> None:
    columns = {field.name for field in Conversation._meta.concrete_fields} - NOT_SETTINGS

    assert columns == set(SETTING_NAMES)


@pytest.mark.parametrize("item", SETTINGS, ids=lambda item: item.name)
def test_each_column_has_the_tables_nullability_default_and_length(item: Any) -> None:
    column = _column(item.name)

    assert column.null is item.nullable
    assert column.get_default() == item.initial()
    if isinstance(column, models.CharField):
        assert column.max_length == item.max_length


def test_the_settings_schema_takes_the_tables_fields() -> None:
    assert tuple(conversations.SettingsChanges.model_fields) == SETTING_NAMES


def test_the_request_shapes_take_the_tables_request_keys() -> None:
    keys = [item.request_key for item in REQUEST_SETTINGS]

    # Besides the settings: the turns, streaming, and the code-execution container (run state).
    beside = ("messages", "stream", "container")
    body_keys = [key for key in MessagesRequest.model_fields if key not in beside]
    assert body_keys == keys
    assert set(SimulatorBody.model_fields) - set(MessagesRequest.model_fields) == {"metadata"}
    # The extra fields go under their own names, not under a key of the table.
    assert {field.name for field in dataclasses.fields(GenerationSettings)} == {
        item.name for item in REQUEST_SETTINGS
    } | {"extra_fields"}


def test_the_request_builder_sends_every_request_setting_under_its_key() -> None:
    values: dict[str, Any] = {
        "model": "m",
        "max_tokens": 2048,
        "system": "terse",
        "temperature": 1.0,
        "top_p": 0.5,
        "top_k": None,
        "stop_sequences": ("END",),
        "tools": ({"name": "t", "input_schema": {"type": "object"}},),
        "tool_choice": {"type": "auto"},
        "thinking": {"type": "enabled", "budget_tokens": 1024},
        "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
    }
    body = build_request(
        settings=GenerationSettings(**values),
        messages=[{"role": "user", "content": "Hi"}],
        dialect="friendli",
    )

    sent = {item.request_key for item in REQUEST_SETTINGS if values[item.name] is not None}
    assert set(body) == sent | {"messages", "stream"}


@pytest.mark.django_db
def test_the_page_form_has_one_control_per_setting(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()
    form = html[html.index("data-settings-form") : html.index("data-settings-error")]

    for item in SETTINGS:
        if item.name != "title":  # renamed in the top bar
            assert len(re.findall(rf'data-field="{item.name}"', form)) == 1, item.name


def test_the_readme_shows_the_table() -> None:
    assert markdown() in (ROOT / "README.md").read_text()


def test_the_protocol_doc_lists_the_settings() -> None:
    text = (ROOT / "docs" / "protocol.md").read_text()

    assert f"settings fields: `{' '.join(SETTING_NAMES)}`" in text


def test_a_row_is_built_by_keyword_only() -> None:
    with pytest.raises(TypeError):
        Setting("x", Text(), "", None, "textarea", "X")  # type: ignore[misc]


@pytest.mark.parametrize(
    ("kind", "value", "held"),
    [
        pytest.param(Integer(), 3, True, id="integer"),
        pytest.param(Integer(), True, False, id="bool-is-no-integer"),
        pytest.param(Integer(), 1.5, False, id="fraction-is-no-integer"),
        pytest.param(Number(), 0.5, True, id="number"),
        pytest.param(Number(), float("nan"), False, id="nan-is-no-number"),
        pytest.param(Number(), False, False, id="bool-is-no-number"),
        pytest.param(Text(min_length=1, max_length=3), "abc", True, id="text"),
        pytest.param(Text(min_length=1, max_length=3), "", False, id="text-too-short"),
        pytest.param(Text(max_length=3), "abcd", False, id="text-too-long"),
        pytest.param(StringList(), ["a"], True, id="strings"),
        pytest.param(StringList(), ["a", 1], False, id="strings-with-a-number"),
        pytest.param(ToolList(), [{"name": "t"}], True, id="tools"),
        pytest.param(ToolList(), ["t"], False, id="tools-with-a-string"),
        pytest.param(JsonObject(), {}, True, id="object"),
        pytest.param(JsonObject(), [], False, id="list-is-no-object"),
    ],
)
def test_a_rows_type_checks_a_value(kind: Any, value: Any, held: bool) -> None:
    assert kind.holds(value) is held


def test_the_doors_read_each_rows_type() -> None:
    """The shape a door checks with is the row's type's: a bool is no max_tokens anywhere."""
    for item in SETTINGS:
        assert conversations.SettingsChanges.model_fields[item.name].annotation is not None
    with pytest.raises(RequestValidationError) as refused:
        parse(conversations.SettingsChanges, {"model": "x" * (setting("model").max_length + 1)})
    assert refused.value.field == "model"


@pytest.mark.django_db
def test_the_page_describes_the_forms_rows_from_the_table(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()
    data = json.loads(re.search(r'id="page-data"[^>]*>(.*?)</script>', html, re.S)[1])  # type: ignore[index]

    assert data["settings_form"] == [item.describe() for item in SETTINGS if item.widget != "title"]
    rows = {row["name"]: row for row in data["settings_form"]}
    assert rows["max_tokens"]["type"] == {"kind": "integer"}
    assert rows["max_tokens"]["default"] == 1024
    assert rows["model"]["type"] == {"kind": "string", "min_length": 1, "max_length": 200}


def test_every_widget_of_the_table_has_a_codec_in_the_settings_panel() -> None:
    source = (ROOT / "static" / "playground" / "settings-fields.js").read_text()
    block = source[source.index("export const WIDGETS = {") :]
    codecs = set(re.findall(r"^  (\w+)[:,]", block[: block.index("\n};")], re.M))

    assert {item.widget for item in SETTINGS if item.widget != "title"} <= codecs
