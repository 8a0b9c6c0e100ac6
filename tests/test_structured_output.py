"""Structured output: the ``output_config`` setting (its checks, the request it sends), the
simulator's answer that fits the schema, and the schema check in the Markdown export."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import Client

from playground import conversations
from playground.conversations.output_check import check_output
from playground.upstream.profiles import profiles_from_environ
from playground.web.ownership import local_user
from tests.share_support import answer

pytestmark = pytest.mark.django_db

SCHEMA = {
    "type": "object",
    "properties": {
        "city": {"type": "string"},
        "temperature_c": {"type": "integer", "minimum": -60, "maximum": 60},
        "sky": {"type": "string", "enum": ["clear", "cloudy", "rain"]},
        "hours": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {"h": {"type": "integer"}},
                "required": ["h"],
            },
        },
    },
    "required": ["city", "temperature_c", "sky"],
    "additionalProperties": False,
}
OUTPUT = {"format": {"type": "json_schema", "schema": SCHEMA}}


def patch(client: Client, conversation_id: Any, body: dict[str, Any]) -> Any:
    return client.patch(
        f"/api/conversations/{conversation_id}/",
        data=json.dumps(body),
        content_type="application/json",
    )


@pytest.mark.parametrize(
    ("value", "field"),
    [
        ("json", "output_config"),
        ({"format": {"type": "json_object"}}, "output_config.format"),
        ({"format": {"type": "json_schema"}}, "output_config.format.schema"),
        (
            {"format": {"type": "json_schema", "schema": {"properties": {}}}},
            "output_config.format.schema",
        ),
    ],
    ids=["not-an-object", "other-format", "no-schema", "schema-without-type"],
)
def test_a_malformed_output_config_is_refused_by_name(
    client: Client, value: Any, field: str
) -> None:
    item = conversations.create_conversation(owner=local_user())

    refused = patch(client, item.id, {"output_config": value})

    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["field"] == field


@pytest.mark.parametrize("profile", ["simulator", "friendli-dedicated"])
def test_the_schema_is_sent_as_output_config_format(settings: Any, profile: str) -> None:
    settings.PLAYGROUND_PROFILES = profiles_from_environ(
        {"FRIENDLI_TOKEN": "flp_x", "FRIENDLI_DEDICATED_MODELS": "endpoint-1"},
        simulator_url=settings.PLAYGROUND_SIMULATOR_URL,
    )
    item = conversations.create_conversation(
        owner=local_user(), profile=profile, output_config=OUTPUT
    )
    conversations.append_user_message(conversation=item, content="Weather in Lyon?")

    _, body = conversations.next_request(conversation=item)

    assert body["output_config"] == OUTPUT
    assert list(body).index("output_config") > list(body).index("messages")


@pytest.mark.parametrize("seed", range(6))
def test_the_simulator_answers_json_that_fits_the_schema(client: Client, seed: int) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 1024,
        "output_config": OUTPUT,
        "messages": [{"role": "user", "content": f"Weather in Lyon, please ({seed})"}],
    }

    reply = client.post(
        "/simulator/v1/messages", data=json.dumps(body), content_type="application/json"
    )

    assert reply.status_code == 200, reply.content
    (block,) = reply.json()["content"]
    assert block["type"] == "text"
    assert check_output(block["text"], SCHEMA).fits, block["text"]


def test_failures_are_named_by_json_path() -> None:
    text = json.dumps(
        {"city": 3, "temperature_c": 99, "sky": "clear", "hours": [{"h": "x"}], "x": 1}
    )

    checked = check_output(text, SCHEMA)

    assert not checked.fits
    assert [path for path, _ in checked.problems] == [
        "$",
        "$.city",
        "$.hours[0].h",
        "$.temperature_c",
    ]
    assert check_output("{not json", SCHEMA).problems[0][0] == "$"


def test_the_markdown_export_says_whether_each_answer_fits(client: Client) -> None:
    item = conversations.create_conversation(owner=local_user(), output_config=OUTPUT)
    conversations.append_user_message(conversation=item, content="Weather?")
    good = {"city": "Lyon", "temperature_c": 12, "sky": "rain"}
    answer(
        item,
        [{"type": "text", "text": json.dumps(good)}],
        request={"model": "m", "output_config": OUTPUT},
    )
    conversations.append_user_message(conversation=item, content="Again")
    answer(item, [{"type": "text", "text": '{"city": "Lyon", "sky": "snow"}'}])

    markdown = client.get(f"/api/conversations/{item.id}/export/transcript.md").content.decode()

    assert "_Schema check: the answer fits the output schema_" in markdown
    failed = "_Schema check: 2 failed: `$` 'temperature_c' is a required property; "
    assert failed + "`$.sky` 'snow' is not one of ['clear', 'cloudy', 'rain']_" in markdown
