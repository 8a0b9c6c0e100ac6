"""The prompt library's services and doors: versions are immutable and numbered once, labels
move and keep their history, a rollback adds a version, diffs show what changed, a version
opens as a conversation that says when it drifted, files go out and come back exact, an
application is served a label with an ETag, and nobody reads another person's prompt."""

from __future__ import annotations

import io
import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from playground import conversations
from playground.accounts.tokens import create_token
from playground.models import PromptLabelMove, PromptVersion
from playground.prompts import files, linking, services
from playground.prompts.definition import check_definition, definition_digest
from playground.prompts.diffs import side_by_side
from playground.protocol.errors import Conflict, NotFound, RequestValidationError
from playground.web.ownership import local_user

pytestmark = pytest.mark.django_db

DEFINITION = {
    "system": "You answer questions about {{city}}.",
    "messages": [
        {"role": "user", "content": "What is the weather in {{city}}?"},
        {"role": "assistant", "content": [{"type": "text", "text": "Sunny, 21 °C."}]},
        {"role": "user", "content": "And tomorrow in {{city}}?"},
    ],
    "tools": [
        {
            "name": "get_weather",
            "description": "The weather",
            "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
        }
    ],
    "settings": {"temperature": 0.2, "max_tokens": 512},
    "variables": {"city": "Paris"},
}


def post(client: Any, url: str, body: dict[str, Any], method: str = "post") -> Any:
    return getattr(client, method)(url, data=json.dumps(body), content_type="application/json")


def made(name: str = "weather", **changes: Any) -> PromptVersion:
    return services.create_prompt(
        owner=local_user(), name=name, definition={**DEFINITION, **changes}, message="first"
    )


def test_a_definition_is_checked_and_kept_in_one_order_naming_a_bad_place() -> None:
    checked = check_definition(DEFINITION)
    assert list(checked) == [
        "profile", "model", "system", "messages", "tools", "output_config", "settings",
        "variables", "tool_mocks",
    ]  # fmt: skip
    assert checked["messages"][0]["content"] == [
        {"type": "text", "text": "What is the weather in {{city}}?"}
    ]
    assert checked["settings"]["temperature"] == 0.2
    assert check_definition(checked) == checked  # read again: the same definition
    refusals = {
        "definition.settings.temperature": {"settings": {"temperature": "hot"}},
        "definition.settings.colour": {"settings": {"colour": 1}},
        "definition.messages[0].role": {"messages": [{"role": "robot", "content": "x"}]},
        "definition.variables": {"variables": {"1city": "x"}},
        "definition.tools": {"tools": "get_weather"},
        "definition.extra": {"extra": 1},
    }
    for field, raw in refusals.items():
        with pytest.raises(RequestValidationError) as caught:
            check_definition(raw)
        assert caught.value.field.startswith(field), (field, caught.value.as_dict())


def test_each_save_is_a_new_numbered_version_and_a_rollback_adds_one() -> None:
    first = made()
    prompt = first.prompt
    changed = {**DEFINITION, "system": "You answer briefly about {{city}}."}
    second = services.save_version(prompt=prompt, definition=changed, author=local_user()).version
    same = services.save_version(
        prompt=prompt, definition=changed, author=local_user(), if_changed=True
    )
    assert (first.number, second.number, same.created, same.version.number) == (1, 2, False, 2)
    back = services.roll_back(prompt=prompt, to=first, author=local_user())
    assert back.number == 3 and back.digest == first.digest and back.definition == first.definition
    assert back.origin == "rolled back to v1" and back.author_name == local_user().get_username()
    assert list(prompt.versions.values_list("number", flat=True)) == [1, 2, 3]
    first.refresh_from_db()
    assert first.definition == check_definition(DEFINITION)  # untouched by the rollback
    with pytest.raises(Conflict):
        made()  # the name is taken: a second prompt of that name is refused
    for name in ("import", "a/b", "-x", "x" * 101):
        with pytest.raises(RequestValidationError):
            made(name)


def test_labels_move_resolve_and_keep_their_history() -> None:
    prompt = made().prompt
    second = services.save_version(
        prompt=prompt, definition={**DEFINITION, "system": "v2"}, author=local_user()
    ).version
    first = services.resolve(prompt, 1)
    services.move_label(prompt=prompt, label="production", version=first, actor=local_user())
    services.move_label(prompt=prompt, label="production", version=second, actor=local_user())
    services.move_label(prompt=prompt, label="production", version=second, actor=local_user())
    assert services.resolve(prompt, "production") == second
    assert services.resolve(prompt, "v1") == first and services.resolve(prompt, "latest") == second
    moves = list(PromptLabelMove.objects.filter(prompt=prompt).order_by("id"))
    assert [(m.previous_id, m.version_id) for m in moves] == [
        (None, first.pk),
        (first.pk, second.pk),
    ]
    services.remove_label(prompt=prompt, label="production", actor=local_user())
    with pytest.raises(NotFound) as caught:
        services.resolve(prompt, "production")
    assert "labels: latest" in caught.value.message
    with pytest.raises(NotFound, match="versions: 1 to 2"):
        services.resolve(prompt, 9)
    with pytest.raises(RequestValidationError):
        services.move_label(prompt=prompt, label="latest", version=first, actor=local_user())


def test_a_line_diff_marks_the_changed_words_and_folds_what_is_equal() -> None:
    before = [f"line {n}" for n in range(20)]
    after = [*before[:10], "line ten, changed", *before[11:], "a new last line"]
    rows = side_by_side(before, after)
    ops = [row["op"] for row in rows]
    assert ops[0] == "skip" and rows[0]["count"] == 7
    changed = next(row for row in rows if row["op"] == "replace")
    assert (changed["a"], changed["b"], changed["a_no"], changed["b_no"]) == (
        "line 10", "line ten, changed", 11, 11
    )  # fmt: skip
    assert changed["b_spans"] and changed["b_spans"][0][0] == 5
    assert rows[-1] == {"op": "insert", "a": None, "b": "a new last line", "a_no": None, "b_no": 21}


def test_a_version_opens_as_a_conversation_that_says_when_it_drifted() -> None:
    version = made()
    item = linking.start_conversation(version=version, owner=local_user())
    assert item.settings.system == DEFINITION["system"] and item.variables == {"city": "Paris"}
    assert [m.role for m in conversations.path_of(item)] == ["user", "assistant", "user"]
    assert linking.drift_of(item)["drifted"] is False
    # A value tried and an answer added are the conversation's use, not drift.
    conversations.update_variables(conversation=item, values={"city": "Oslo"})
    assert linking.drift_of(item)["drifted"] is False
    item = conversations.update_settings(conversation=item, changes={"temperature": 0.9})
    drift = linking.drift_of(item)
    assert (drift["drifted"], drift["changed"]) == (True, ["settings"])
    saved = linking.save_drift(conversation=item, author=local_user(), message="warmer")
    assert saved.number == 2 and saved.definition["settings"]["temperature"] == 0.9
    assert saved.definition["variables"] == {"city": "Paris"}  # the defaults, not the test value
    assert linking.drift_of(item) == {
        "prompt": "weather", "version": 2, "newest": 2, "drifted": False, "changed": []
    }  # fmt: skip


def test_a_conversation_is_saved_as_a_version_of_a_new_or_known_prompt() -> None:
    item = conversations.create_conversation(owner=local_user(), system="Be kind.")
    conversations.append_user_message(conversation=item, content="Hello {{name}}")
    saved = linking.save_conversation(
        conversation=item, owner=local_user(), name="greeter", message="from chat"
    )
    assert saved.created and saved.version.number == 1
    assert saved.version.definition["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "Hello {{name}}"}]}
    ]
    again = linking.save_conversation(conversation=item, owner=local_user(), name="greeter")
    assert again.version.number == 2 and again.version.digest == saved.version.digest


def test_saving_a_conversation_takes_the_branch_on_screen_and_its_message() -> None:
    item = conversations.create_conversation(owner=local_user(), system="Be kind.")
    first = conversations.append_user_message(conversation=item, content="Plan Paris")
    edited = conversations.edit_message(conversation=item, message_id=first.pk, content="Plan Rome")

    def saved_turn(name: str) -> str:
        version = linking.save_conversation(
            conversation=item, owner=local_user(), name=name, message="the branch shown"
        ).version
        assert version.message == "the branch shown"
        return version.definition["messages"][0]["content"][0]["text"]

    assert saved_turn("rome") == "Plan Rome"  # the edit is on screen, the old turn a branch
    conversations.select_message(conversation=item, message_id=first.pk)
    assert saved_turn("paris") == "Plan Paris"
    assert edited.pk != first.pk


@pytest.mark.parametrize("kind", ["yaml", "json"])
def test_a_file_round_trips_exactly_and_an_import_only_adds(kind: str) -> None:
    prompt = made(system="Line one\nLine two  \n  indented {{city}}", output_config=None).prompt
    services.save_version(
        prompt=prompt, definition={**DEFINITION, "system": "yes"}, author=local_user()
    )
    services.move_label(
        prompt=prompt, label="production", version=services.resolve(prompt, 1), actor=local_user()
    )
    document = files.prompt_document(prompt)
    text = files.document_text(document, kind=kind)
    read = files.read_document(text, limit=1_000_000)
    assert read == json.loads(json.dumps(document))
    copy = files.import_document(owner=local_user(), document=read, name="weather-copy").prompt
    copied = files.prompt_document(copy)
    assert {**copied, "name": "weather"} == document
    assert files.document_text(files.prompt_document(copy), kind=kind) == text.replace(
        "name: weather\n" if kind == "yaml" else '"name": "weather"',
        "name: weather-copy\n" if kind == "yaml" else '"name": "weather-copy"',
        1,
    )
    # Into the prompt itself: both versions are there already, nothing is added or moved.
    again = files.import_document(owner=local_user(), document=read)
    assert (again.added, again.already) == ([], [1, 2])
    changed = {**read, "labels": {}, "versions": [{**read["versions"][0], "number": 7,
                                     "definition": {**DEFINITION, "system": "new"}}]}  # fmt: skip
    added = files.import_document(owner=local_user(), document=changed, name="weather")
    assert added.added == [3] and services.resolve(prompt, "production").number == 1
    assert services.resolve(prompt, 3).origin == "imported (v7 of the file)"


def test_a_yaml_file_with_an_alias_or_a_bad_place_is_refused_naming_it() -> None:
    bomb = "format: messages-playground/prompt\na: &a [x, x]\nb: [*a, *a]\n"
    with pytest.raises(RequestValidationError, match="aliases"):
        files.read_document(bomb, limit=1_000_000)
    with pytest.raises(RequestValidationError) as caught:
        files.read_document("format: [unclosed\n", limit=1_000_000)
    assert caught.value.reason.startswith("line 2, column 1")
    document = files.prompt_document(made().prompt)
    document["versions"][0]["definition"]["settings"]["top_k"] = -1
    with pytest.raises(RequestValidationError) as caught:
        files.import_document(owner=local_user(), document=document, name="other")
    assert caught.value.field == "versions[0].definition.settings.top_k"
    assert not services.list_prompts(owner=local_user()).filter(name="other").exists()


def test_serving_a_label_fills_it_and_answers_304_while_nothing_changed(client: Client) -> None:
    version = made()
    services.move_label(prompt=version.prompt, label="production", version=version, actor=None)
    plain = client.get("/api/prompts/weather?label=production")
    assert plain.status_code == 200 and plain["Cache-Control"] == "private, no-cache"
    body = plain.json()
    assert (body["version"], body["label"], body["system"]) == (
        1, "production", "You answer questions about {{city}}."
    )  # fmt: skip
    assert "tool_mocks" not in body and body["digest"] == version.digest
    same = client.get("/api/prompts/weather?label=production", HTTP_IF_NONE_MATCH=plain["ETag"])
    assert same.status_code == 304 and same.content == b""
    filled = client.get("/api/prompts/weather?version=1&var.city=Oslo").json()
    assert filled["system"] == "You answer questions about Oslo."
    assert filled["request"]["messages"][2]["content"][0]["text"] == "And tomorrow in Oslo?"
    assert filled["request"]["temperature"] == 0.2 and "stream" not in filled["request"]
    defaults = client.get("/api/prompts/weather?fill=1")
    assert defaults.json()["system"].endswith("about Paris.") and defaults["ETag"] != plain["ETag"]
    services.save_version(
        prompt=version.prompt, definition={**DEFINITION, "system": "x"}, author=None
    )
    latest = client.get("/api/prompts/weather", HTTP_IF_NONE_MATCH=plain["ETag"])
    assert latest.status_code == 200 and latest.json()["version"] == 2
    refusals = {
        "/api/prompts/weather?label=staging": 404,
        "/api/prompts/weather?version=x": 400,
        "/api/prompts/weather?version=1&label=production": 400,
        "/api/prompts/nothing": 404,
    }
    for url, status in refusals.items():
        answer = client.get(url)
        assert answer.status_code == status and "error" in answer.json(), url
    empty = made("blank", system="Hi {{who}}", variables={}, messages=[])
    missing = client.get(f"/api/prompts/{empty.prompt.name}?fill=1").json()
    assert missing["error"]["field"] == "variables.who"


def test_the_api_saves_labels_diffs_and_rolls_back(client: Client) -> None:
    created = post(client, "/api/prompts/", {"name": "support", "definition": DEFINITION})
    assert created.status_code == 201, created.content
    urls = created.json()["urls"]
    second = post(client, urls["versions"], {"definition": {**DEFINITION, "system": "Be brief."},
                                             "message": "shorter"})  # fmt: skip
    assert second.status_code == 201 and second.json()["number"] == 2
    label = post(client, urls["label"].replace("{label}", "production"), {"version": 1}, "put")
    assert label.status_code == 200 and label.json()["labels"][0]["version"] == 1
    history = label.json()["label_history"][0]
    assert (history["label"], history["version"], history["by"]) == ("production", 1, "local")
    diff = client.get(urls["diff"] + "?a=production&b=2").json()
    assert diff["text"]["system"]["changed"] and not diff["text"]["messages"]["changed"]
    assert diff["a"]["definition"]["system"] != diff["b"]["definition"]["system"]
    back = post(client, urls["rollback"].replace("{n}", "1"), {})
    assert back.status_code == 201 and back.json()["number"] == 3
    opened = post(client, urls["conversation"].replace("{n}", "3"), {})
    assert opened.status_code == 201
    origin = client.get(f"/api/conversations/{opened.json()['id']}/prompt/").json()["origin"]
    assert (origin["prompt"], origin["version"], origin["drifted"]) == ("support", 3, False)
    exported = client.get(urls["export_yaml"] + "?version=2")
    assert exported["Content-Disposition"] == 'attachment; filename="support-v2.yaml"'
    imported = post(client, "/api/prompts/import/", {"text": exported.content.decode(),
                                                     "name": "support-2"})  # fmt: skip
    assert imported.status_code == 201 and imported.json()["added"] == [2]
    upload = io.BytesIO(client.get(urls["export_json"]).content)
    upload.name = "support.json"
    uploaded = client.post("/api/prompts/import/", {"file": upload, "name": "support-3"})
    assert uploaded.status_code == 201 and uploaded.json()["added"] == [1, 2, 3]
    assert client.post("/api/prompts/import/", {"name": "x"}).json()["error"]["field"] == "file"
    refused = post(client, urls["versions"], {"definition": {"settings": {"top_p": 7}}})
    assert refused.status_code == 400 and refused.json()["error"]["field"].endswith("top_p")


def test_another_persons_prompt_is_not_found_and_a_share_link_is_revocable(
    client: Client,
) -> None:
    made()
    stranger = get_user_model().objects.create_user("mallory")
    with pytest.raises(NotFound):
        services.get_prompt(owner=stranger, name="weather")
    shared = post(client, "/api/prompts/weather/share/", {})
    assert shared.status_code == 201
    path = shared.json()["url"].split("testserver", 1)[1]
    page = client.get(path)
    assert page.status_code == 200 and page["Referrer-Policy"] == "no-referrer"
    data = client.get(path + "prompt.json").json()
    assert data["shared"] is None and data["versions"][0]["number"] == 1
    # Nobody's name leaves through the link: not the author's, not who moved a label.
    prompt = services.get_prompt(owner=local_user(), name="weather")
    only = PromptVersion.objects.get()
    services.move_label(prompt=prompt, label="production", version=only, actor=local_user())
    data = client.get(path + "prompt.json").json()
    assert data["versions"][0]["author"] == "" and data["label_history"][0]["by"] == ""
    assert "local" not in client.get(path + "export.yaml").content.decode()
    assert client.get(path + "diff.json?a=1&b=1").json()["a"]["author"] == ""
    assert client.get(path + "diff.json?a=1&b=1").status_code == 200
    assert client.delete("/api/prompts/weather/share/").status_code == 204
    assert client.get(path).status_code == 404
    assert client.get(path + "prompt.json").status_code == 404


def test_a_digest_names_the_definition_exactly() -> None:
    checked = check_definition(DEFINITION)
    assert definition_digest(checked) == definition_digest(check_definition(checked))
    assert definition_digest(checked) != definition_digest({**checked, "system": "other"})


def test_in_login_mode_a_token_serves_only_its_owners_prompts(settings: Any) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    alice = get_user_model().objects.create_user("alice")
    bob = get_user_model().objects.create_user("bob")
    version = services.create_prompt(owner=alice, name="weather", definition=DEFINITION)
    services.move_label(prompt=version.prompt, label="production", version=version, actor=alice)
    secret = create_token(owner=alice, name="app").secret
    app = Client(enforce_csrf_checks=True)
    served = app.get("/api/prompts/weather?label=production", HTTP_AUTHORIZATION=f"Bearer {secret}")
    assert served.status_code == 200 and served.json()["version"] == 1
    bobs = create_token(owner=bob, name="app").secret
    other = app.get("/api/prompts/weather", HTTP_AUTHORIZATION=f"Bearer {bobs}")
    assert other.status_code == 404
    assert app.get("/api/prompts/weather").status_code == 403
    wrong = app.get("/api/prompts/weather", HTTP_AUTHORIZATION="Bearer mpg_nothing")
    assert wrong.status_code == 401
    # A page of bob's cannot read alice's prompt, nor write a label to it.
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(bob)
    assert browser.get("/prompts/weather/").status_code == 404
    assert browser.get("/api/prompts/weather/diff/?a=1&b=1").status_code == 404
    moved = browser.put(
        "/api/prompts/weather/labels/staging/",
        data=json.dumps({"version": 1}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {bobs}",
    )
    assert moved.status_code == 404
    unsafe = Client(enforce_csrf_checks=True)
    unsafe.force_login(alice)
    refused = unsafe.post(
        "/api/prompts/weather/versions/", data="{}", content_type="application/json"
    )
    assert refused.status_code == 403  # no CSRF token: a session's write is refused


def test_an_import_over_the_imports_limit_is_refused_and_writes_nothing(
    client: Client, settings: Any
) -> None:
    text = files.document_text(files.prompt_document(made().prompt), kind="yaml")
    settings.PLAYGROUND_MAX_IMPORT_BYTES = len(text.encode()) - 1
    refused = post(client, "/api/prompts/import/", {"text": text, "name": "copy"})
    assert refused.status_code == 413 and refused.json()["error"]["code"] == "too_large"
    upload = io.BytesIO(text.encode())
    upload.name = "weather.yaml"
    uploaded = client.post("/api/prompts/import/", {"file": upload, "name": "copy"})
    assert uploaded.status_code == 413
    assert not services.list_prompts(owner=local_user()).filter(name="copy").exists()
