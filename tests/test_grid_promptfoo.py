"""promptfoo both ways (``grids.promptfoo``): a grid exported as a promptfoo config (its prompt,
a provider per column, tests with vars, scorers as assertions, what does not map named), and a
promptfoo config imported as a conversation and its grid, every kind that does not fit listed
by name, never dropped silently."""

from __future__ import annotations

import json
from typing import Any

import pytest
import yaml  # type: ignore[import-untyped]

from playground import conversations, grids
from playground.models import EvalGrid
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db

SCORERS = [
    {"id": "says", "kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"id": "digits", "kind": "regex", "pattern": "[0-9]+"},
    {"id": "judge", "kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.7},
    {"id": "tool", "kind": "tool_called", "tool": "search"},
    {"id": "first", "kind": "is_json", "column": 0},
]


def test_a_grid_exports_as_a_promptfoo_config(client: Any) -> None:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Tides", system="Be brief.")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    grid = grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[
            {"label": "plain", "changes": {}},
            {"label": "cool", "changes": {"temperature": 0.2}},
        ],
        rows=[{"topic": "tides"}, {"topic": "owls"}],
        concurrency=2,
        scorers=SCORERS,
    )
    response = client.get(f"/api/grids/{grid.id}/promptfoo.yaml?simulator=1")
    assert response.status_code == 200 and response["X-Not-Exported"] == "2"
    text = response.content.decode()
    assert "# not exported: Tool called (tool_called): promptfoo has no such assertion" in text
    assert "# not exported: Is JSON (is_json): promptfoo's assertions are of every provider" in text
    config = yaml.safe_load(text)
    (prompt,) = config["prompts"]  # one system prompt: one prompt every provider runs
    assert json.loads(prompt["raw"]) == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Explain {{topic}}."},
    ]
    # No temperature set: the API's default (1), which promptfoo would otherwise send as 0.
    labels = [(p["label"], p["config"].get("temperature")) for p in config["providers"]]
    assert labels == [("plain", 1), ("cool", 0.2)]
    assert all(p["id"] == "anthropic:messages:simulator-1" for p in config["providers"])
    assert config["providers"][0]["config"]["apiBaseUrl"].endswith("/simulator")
    assert config["tests"] == [{"vars": {"topic": "tides"}}, {"vars": {"topic": "owls"}}]
    *texts, judge = config["defaultTest"]["assert"]
    assert texts == [
        {"type": "icontains", "value": "{{topic}}"},
        {"type": "regex", "value": "[0-9]+"},
    ]
    # The judge's own grader and words: the grid's judge request, promptfoo's placeholders.
    assert judge["type"] == "llm-rubric" and judge["threshold"] == 0.7
    assert judge["value"] == "Mentions '{{topic}}'"
    assert judge["provider"]["id"] == "anthropic:messages:simulator-1"
    assert judge["provider"]["config"]["temperature"] == 0
    system, user = json.loads(judge["rubricPrompt"])
    assert system["role"] == "system" and "<rubric>\n{{rubric}}\n</rubric>" in user["content"]
    assert "<answer>\n{{output}}\n</answer>" in user["content"]


def test_a_column_with_its_own_system_prompt_and_schema_exports_as_its_own_prompt(
    client: Any,
) -> None:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Tides", system="Be brief.")
    conversations.append_user_message(conversation=item, content="Explain {{topic}}.")
    schema = {"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}
    grid = grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[
            {"label": "plain", "changes": {"top_p": 0.9}},
            {
                "label": "json",
                "changes": {
                    "system": "Reply in JSON.",
                    "output_config": {"format": {"type": "json_schema", "schema": schema}},
                    "extra_fields": {"metadata": {"user_id": "u1"}},
                },
            },
        ],
        rows=[{"topic": "tides"}],
        concurrency=2,
    )
    config = yaml.safe_load(client.get(f"/api/grids/{grid.id}/promptfoo.yaml").content)
    systems = [json.loads(p["raw"])[0]["content"] for p in config["prompts"]]
    assert systems == ["Be brief.", "Reply in JSON."]
    plain, shaped = config["providers"]
    assert plain["prompts"] == ["prompt 1"] and shaped["prompts"] == ["prompt 2"]
    assert plain["config"] == {"max_tokens": 1024, "top_p": 0.9}  # top_p: no temperature
    # The schema as the request carries it (promptfoo's output_format would parse the answer).
    assert shaped["config"]["extra_body"] == {
        "metadata": {"user_id": "u1"},
        "output_config": {"format": {"type": "json_schema", "schema": schema}},
    }


CHAT = [
    {"role": "system", "content": "Answer in one word."},
    {"role": "user", "content": "Capital of {{country}}?"},
]
CONFIG = f"""
description: Capitals
prompts:
  - '{json.dumps(CHAT)}'
  - file://other.txt
providers:
  - id: anthropic:messages:simulator-1
    label: cold
    config: {{temperature: 0}}
  - openai:chat:gpt-4.1
defaultTest:
  assert:
    - type: icontains
      value: "{{{{capital}}}}"
    - type: llm-rubric
      value: Names the capital of {{{{country}}}}
    - type: similar
      value: Paris
    - type: contains-json
      value: {{type: object, required: [capital]}}
tests:
  - vars: {{country: France, capital: Paris}}
    assert: [{{type: equals, value: Paris}}]
  - vars: {{country: Japan, capital: Tokyo}}
    assert: [{{type: equals, value: Tokyo}}]
"""


def test_a_promptfoo_config_imports_as_a_grid_naming_what_does_not_fit(client: Any) -> None:
    response = client.post(
        "/api/grids/promptfoo/", data=json.dumps({"text": CONFIG}), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    made = response.json()
    unmapped = " | ".join(made["unmapped"])
    assert "file://other.txt" in unmapped and "'openai:chat:gpt-4.1'" in unmapped
    assert "'similar': no scorer of that kind" in unmapped
    grid = EvalGrid.objects.get(pk=made["grid"]["id"])
    assert grid.title == "Capitals" and grid.conversation.settings.system == "Answer in one word."
    (turn,) = conversations.path_of(grid.conversation)
    assert (
        turn.content == [{"type": "text", "text": "Capital of {{country}}?"}]
        or turn.content == "Capital of {{country}}?"
    )
    assert [c["label"] for c in grid.columns] == ["cold", "openai:chat:gpt-4.1"]
    assert grid.columns[0]["changes"] == {"temperature": 0, "model": "simulator-1"}
    kinds = [
        (s["kind"], s.get("value") or s.get("rubric") or s.get("json_schema")) for s in grid.scorers
    ]
    assert kinds == [
        ("contains", "{{capital}}"),
        ("judge", "Names the capital of {{country}}"),
        ("contains_json", {"type": "object", "required": ["capital"]}),
        ("equals", "{{expected_1}}"),  # each test's own value, a variable of its row
    ]
    rows = [row["values"] for row in made["grid"]["rows"]]
    assert rows == [
        {"country": "France", "capital": "Paris", "expected_1": "Paris"},
        {"country": "Japan", "capital": "Tokyo", "expected_1": "Tokyo"},
    ]


def test_a_config_that_is_not_one_is_refused_naming_the_place(client: Any) -> None:
    for text, field in (
        ("[1, 2]", "config"),
        ("prompts: [file://a.txt]", "prompts"),
        (": :", "config"),
    ):
        response = client.post(
            "/api/grids/promptfoo/",
            data=json.dumps({"text": text}),
            content_type="application/json",
        )
        assert response.status_code == 400 and response.json()["error"]["field"] == field, text


def test_repeats_and_concurrency_go_both_ways_and_a_tool_loop_is_said_not_exported(
    client: Any,
) -> None:
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Trip")
    conversations.append_user_message(conversation=item, content="Weather in {{city}}?")
    options = {"repeats": 3, "tool_loop": True, "mcp": True, "max_turns": 4}
    grid = grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "plain", "changes": {}}],
        rows=[{"city": "Lyon"}],
        concurrency=3,
        options=options,
    )
    response = client.get(f"/api/grids/{grid.id}/promptfoo.yaml")
    text = response.content.decode()
    # promptfoo's own names (evaluateOptions, as its config reference and 0.121.20's CLI read).
    assert yaml.safe_load(text)["evaluateOptions"] == {"maxConcurrency": 3, "repeat": 3}
    # What promptfoo cannot run is said, never dropped: in the comment and the header's count.
    assert response["X-Not-Exported"] == "3"
    assert "# not exported: options.tool_loop: promptfoo has no saved mocks" in text
    assert "# not exported: options.max_turns (4): promptfoo bounds MCP tool calls" in text
    assert "# not exported: options.mcp: " in text

    again = client.post(
        "/api/grids/promptfoo/", data=json.dumps({"text": text}), content_type="application/json"
    )
    assert again.status_code == 201, again.content
    made = again.json()
    assert (made["grid"]["options"]["repeats"], made["grid"]["concurrency"]) == (3, 3)
    assert made["grid"]["options"]["tool_loop"] is False and made["unmapped"] == []


@pytest.mark.parametrize(
    ("evaluate", "said"),
    [
        ("{repeat: 11}", "evaluateOptions.repeat 11: a grid repeats a cell 1 to 10 times"),
        ("{repeat: two}", "evaluateOptions.repeat 'two'"),
        ("{maxConcurrency: 0}", "evaluateOptions.maxConcurrency 0: not a count"),
    ],
    ids=["too-many", "not-a-number", "no-concurrency"],
)
def test_evaluate_options_that_do_not_fit_are_named(client: Any, evaluate: str, said: str) -> None:
    text = (
        f"prompts: ['Hi {{{{name}}}}']\nevaluateOptions: {evaluate}\ntests: [{{vars: {{name: A}}}}]"
    )
    response = client.post(
        "/api/grids/promptfoo/", data=json.dumps({"text": text}), content_type="application/json"
    )
    assert response.status_code == 201, response.content
    made = response.json()
    assert any(line.startswith(said) for line in made["unmapped"]), made["unmapped"]
    assert made["grid"]["options"]["repeats"] == 1


def test_a_tests_own_repeat_is_named_and_commandline_repeat_is_read(client: Any) -> None:
    text = (
        "prompts: ['Hi {{name}}']\ncommandLineOptions: {repeat: 2}\n"
        "tests: [{vars: {name: A}, options: {repeat: 4}}]"
    )
    response = client.post(
        "/api/grids/promptfoo/", data=json.dumps({"text": text}), content_type="application/json"
    )
    made = response.json()
    assert made["grid"]["options"]["repeats"] == 2
    assert made["unmapped"] == ["a test's own options.repeat: a grid repeats every row alike"]
