"""The settings' one declaration (``protocol/settings_table.py``), read by all that names one.

The stored column, the doors' checks, the request builder, the page's form and the docs are held
to the declaration here, so a setting declared there is everywhere, and one named anywhere else
but there fails a test.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client

from playground import conversations
from playground.models import Conversation
from playground.protocol.adapters import ANTHROPIC, BUILT_IN, Adapter
from playground.protocol.errors import RequestValidationError
from playground.protocol.request_body import MessagesRequest
from playground.protocol.requests import build_request
from playground.protocol.settings_markdown import markdown
from playground.protocol.settings_table import (
    EACH,
    SETTING_NAMES,
    SETTINGS,
    About,
    Rule,
    Settings,
    setting,
)
from playground.protocol.shape import parse
from playground.simulator.inputs import SimulatorBody
from playground.web.ownership import local_user

ROOT = Path(__file__).resolve().parent.parent
#: The Conversation columns that are no setting.
# variables: the prompt variables panel; tool_mocks: docs/debugger.md; mcp_tools: docs/mcp.md
NOT_SETTINGS = {
    "id",
    "owner",
    "title",
    "created_at",
    "updated_at",
    "variables",
    "tool_mocks",
    "mcp_tools",
    "mcp_approval",
}
#: A value of each setting other than its default (what a test sets to see it kept).
CHANGED: dict[str, Any] = {
    "profile": "simulator",
    "model": "simulator-1-thinking",
    "system": "Be brief.",
    "max_tokens": 2048,
    "temperature": 1.0,
    "top_p": 0.5,
    "top_k": None,
    "stop_sequences": ["END"],
    "tools": [{"name": "t", "input_schema": {"type": "object"}}],
    "tool_choice": {"type": "auto"},
    "output_config": {"format": {"type": "json_schema", "schema": {"type": "object"}}},
    "thinking": {"type": "enabled", "budget_tokens": 1024},
    "extra_fields": {"metadata": {"user_id": "u-1"}},
}


def test_the_settings_are_one_column_of_the_model() -> None:
    columns = {field.name for field in Conversation._meta.concrete_fields} - NOT_SETTINGS

    assert columns == {"settings"}
    assert Conversation().settings == Settings()


def test_a_stored_object_without_a_setting_reads_it_as_its_default() -> None:
    field = Conversation._meta.get_field("settings")

    stored = field.from_db_value('{"model": "m", "max_tokens": 7}', None, None)  # type: ignore[attr-defined]

    assert stored == Settings(model="m", max_tokens=7)
    assert json.loads(field.get_prep_value(stored)) == stored.model_dump()  # type: ignore[attr-defined]


def test_every_setting_is_declared_with_its_form_and_rules() -> None:
    assert tuple(Settings.model_fields) == SETTING_NAMES
    for name, info in Settings.model_fields.items():
        assert [type(meta) for meta in info.metadata].count(About) == 1, name
        assert setting(name).label and setting(name).widget


def test_the_request_shapes_take_the_settings_request_keys() -> None:
    keys = [item.request_key for item in SETTINGS if item.request_key not in (None, EACH)]

    # Besides the settings: the turns, streaming, and the code-execution container (run state).
    beside = ("messages", "stream", "container")
    body_keys = [key for key in MessagesRequest.model_fields if key not in beside]
    assert body_keys == keys
    assert set(SimulatorBody.model_fields) - set(MessagesRequest.model_fields) == {"metadata"}


def test_the_request_builder_sends_every_request_setting_under_its_key() -> None:
    # A setting of choices not listed above: its first choice.
    values = {item.name: item.choices[0] for item in SETTINGS if item.choices} | CHANGED
    body = build_request(
        settings=Settings(**{**values, "thinking": None}),
        messages=[{"role": "user", "content": "Hi"}],
        dialect="anthropic",
    )

    sent = {
        item.request_key
        for item in SETTINGS
        if item.request_key not in (None, EACH) and values.get(item.name) is not None
    } - {"thinking"}
    assert set(body) == sent | {"messages", "stream", "metadata"}
    assert body["metadata"] == CHANGED["extra_fields"]["metadata"]


@pytest.mark.django_db
def test_the_page_form_has_one_control_per_setting(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()
    form = html[html.index("data-settings-form") : html.index("data-settings-error")]

    for item in SETTINGS:
        assert len(re.findall(rf'data-field="{item.name}"', form)) == 1, item.name


def test_the_readme_shows_the_table() -> None:
    assert markdown() in (ROOT / "README.md").read_text()


def test_the_doors_check_each_settings_type() -> None:
    """The shape a door checks with is the declaration's: a bool is no max_tokens anywhere."""
    for value, field in [({"max_tokens": True}, "max_tokens"), ({"top_p": "1"}, "top_p")]:
        with pytest.raises(RequestValidationError) as refused:
            parse(Settings, value)
        assert refused.value.field == field
    with pytest.raises(RequestValidationError) as refused:
        parse(Settings, {"model": "x" * ((setting("model").max_length or 0) + 1)})
    assert refused.value.field == "model"


def test_a_null_takes_the_default_where_the_declaration_says_so() -> None:
    settings = Settings.model_validate({"system": None, "tools": None, "max_tokens": None})

    assert (settings.system, settings.tools, settings.max_tokens) == ("", [], None)
    with pytest.raises(RequestValidationError) as refused:
        parse(Settings, {"model": None})
    assert refused.value.field == "model"


def test_a_change_is_a_new_value_checked_whole() -> None:
    first = Settings()

    second = first.changed({"temperature": 0.5})

    assert (first.temperature, second.temperature) == (None, 0.5)
    with pytest.raises(ValueError):
        first.changed({"temperature": "hot"})


def test_an_adapter_reads_its_dialects_rule_and_may_have_its_own() -> None:
    class Tight(Adapter):
        name = "tight-test"
        rules_of = "anthropic"
        rules = {"top_p": Rule(minimum=0, maximum=0.5)}

    tight = Tight()

    assert (
        tight.rule("max_tokens") == ANTHROPIC.rule("max_tokens") == Rule(required=True, minimum=1)
    )
    assert tight.rule("top_p") == Rule(minimum=0, maximum=0.5)
    # A dialect the declaration names no rule for reads the one every dialect shares.
    assert Adapter().rule("top_p") == setting("top_p").rule("*")


@pytest.mark.django_db
def test_the_page_describes_the_forms_rows_from_the_declaration(client: Client) -> None:
    conversation = conversations.create_conversation(owner=local_user())

    html = client.get(f"/c/{conversation.id}/").content.decode()
    data = json.loads(re.search(r'id="page-data"[^>]*>(.*?)</script>', html, re.S)[1])  # type: ignore[index]

    assert data["settings_form"] == [item.describe() for item in SETTINGS]
    rows = {row["name"]: row for row in data["settings_form"]}
    assert rows["max_tokens"]["type"]["type"] == "integer"
    assert rows["max_tokens"]["default"] == 1024
    assert rows["model"]["type"] == {"type": "string", "minLength": 1, "maxLength": 200}


def test_every_widget_of_the_declaration_has_a_codec_in_the_settings_panel() -> None:
    source = (ROOT / "static" / "playground" / "settings-fields.js").read_text()
    block = source[source.index("export const WIDGETS = {") :]
    codecs = set(re.findall(r"^  (\w+)[:,]", block[: block.index("\n};")], re.M))

    assert {item.widget for item in SETTINGS} <= codecs


def test_the_readme_has_a_column_per_built_in_dialect() -> None:
    header = markdown().splitlines()[0]

    assert [f"{adapter.name} dialect" in header for adapter in BUILT_IN] == [True] * len(BUILT_IN)
