"""Share links: lifecycle, snapshot semantics, redaction, hashed tokens, privacy, fork."""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model
from django.test import Client, override_settings

from playground import conversations, sharing
from playground.models import Conversation, Message, Share
from playground.sharing.snapshot import HIDDEN_TURN_TEXT
from playground.web.ownership import acting_user
from tests.share_support import (
    THINKING,
    TOOL_USE,
    WEATHER_TOOL,
    make_run,
    page_data,
    seed_tool_loop,
    send,
)

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


@pytest.fixture
def conversation(owner: Any) -> Conversation:
    return seed_tool_loop(owner)


def create(client: Client, conversation: Conversation, **options: Any) -> dict[str, Any]:
    response = send(client, "POST", f"/api/conversations/{conversation.id}/shares/", options)
    assert response.status_code == 201, response.content
    return response.json()


def shown(client: Client, token: str) -> dict[str, Any]:
    response = client.get(f"/s/{token}/")
    assert response.status_code == 200
    return page_data(response)["share"]


def block_types(share: dict[str, Any]) -> list[list[str]]:
    return [[block["type"] for block in turn["content"]] for turn in share["messages"]]


# --- Lifecycle ---------------------------------------------------------------------------------


def test_create_returns_the_link_once(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)

    assert created["url"] == f"http://testserver/s/{created['token']}/"
    assert created["share"]["active"] is True
    listed = client.get(f"/api/conversations/{conversation.id}/shares/").json()["shares"]
    assert [share["id"] for share in listed] == [created["share"]["id"]]
    assert "token" not in json.dumps(listed).replace("token_hint", "")


def test_the_link_shows_the_conversation(client: Client, conversation: Conversation) -> None:
    share = shown(client, create(client, conversation)["token"])

    assert share["title"] == "Weather in Paris"
    assert share["system"] == "Be brief."
    assert [turn["role"] for turn in share["messages"]] == [
        "user",
        "assistant",
        "user",
        "assistant",
    ]
    assert share["messages"][1]["content"][2] == TOOL_USE


def test_the_snapshot_keeps_run_outcomes(client: Client, conversation: Conversation) -> None:
    share = shown(client, create(client, conversation)["token"])

    run = share["messages"][1]["run"]
    assert (run["status"], run["stop_reason"], run["usage"]) == (
        "complete",
        "tool_use",
        {"input_tokens": 12, "output_tokens": 48},
    )
    assert run["model"] == "simulator-1"


@pytest.mark.parametrize("token", ["nope", "A" * 43, "x" * 300], ids=["short", "43", "long"])
def test_an_unknown_token_is_404(client: Client, conversation: Conversation, token: str) -> None:
    create(client, conversation)

    response = client.get(f"/s/{token}/")

    assert response.status_code == 404
    assert response["X-Robots-Tag"].startswith("noindex")


def test_a_revoked_link_is_404_and_its_snapshot_is_gone(
    client: Client, conversation: Conversation
) -> None:
    created = create(client, conversation)

    response = send(client, "DELETE", created["share"]["api_url"])

    assert response.status_code == 204
    assert client.get(f"/s/{created['token']}/").status_code == 404
    assert Share.objects.get().snapshot is None
    assert client.get(created["share"]["api_url"]).json()["share"]["active"] is False


def test_a_revoked_share_cannot_be_updated(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)
    send(client, "DELETE", created["share"]["api_url"])

    response = send(client, "PATCH", created["share"]["api_url"], {})

    assert (response.status_code, response.json()["error"]["code"]) == (409, "conflict")


def test_revoking_twice_is_fine(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)
    send(client, "DELETE", created["share"]["api_url"])

    assert send(client, "DELETE", created["share"]["api_url"]).status_code == 204


@pytest.mark.parametrize(
    ("body", "field"),
    [({"include_tools": "no"}, "include_tools"), ({"colour": True}, "colour")],
    ids=["not-a-boolean", "unknown-field"],
)
def test_bad_options_are_refused_by_name(
    client: Client, conversation: Conversation, body: dict[str, Any], field: str
) -> None:
    response = send(client, "POST", f"/api/conversations/{conversation.id}/shares/", body)

    assert (response.status_code, response.json()["error"]["field"]) == (400, field)
    assert not Share.objects.exists()


# --- Tokens ------------------------------------------------------------------------------------


def test_the_token_is_stored_only_as_its_hash(client: Client, conversation: Conversation) -> None:
    token = create(client, conversation)["token"]

    row = Share.objects.values().get()
    assert row["token_hash"] == hashlib.sha256(token.encode()).hexdigest()
    assert not any(token in str(value) for value in row.values())


def test_tokens_are_long_and_fresh(client: Client, conversation: Conversation) -> None:
    tokens = {create(client, conversation)["token"] for _ in range(3)}

    assert len(tokens) == 3
    # token_urlsafe(32): 43 characters of 6 bits, 256 bits in all.
    assert all(len(token) >= 43 for token in tokens)


# --- Snapshot semantics ------------------------------------------------------------------------


def test_later_messages_stay_private_until_update(
    client: Client, conversation: Conversation
) -> None:
    created = create(client, conversation)
    conversations.append_user_message(conversation=conversation, content="A private follow-up")

    assert "A private follow-up" not in json.dumps(shown(client, created["token"]))
    response = send(client, "PATCH", created["share"]["api_url"], {})
    assert response.status_code == 200
    assert "A private follow-up" in json.dumps(shown(client, created["token"]))


def test_rotating_moves_the_link(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)

    rotated = send(client, "PATCH", created["share"]["api_url"], {"rotate": True}).json()

    assert rotated["token"] != created["token"]
    assert client.get(f"/s/{created['token']}/").status_code == 404
    assert shown(client, rotated["token"])["title"] == "Weather in Paris"


def test_a_turn_still_streaming_is_left_out(owner: Any) -> None:
    conversation = conversations.create_conversation(owner=owner, title="Live")
    conversations.append_user_message(conversation=conversation, content="Hi")
    run = make_run(conversation)
    conversations.append_assistant_message(
        conversation=conversation, run=run, content_json='[{"type":"text","text":"partial"}]'
    )
    run.status = "running"
    run.save()

    share = sharing.create_share(conversation=conversation).share

    assert [turn["role"] for turn in share.snapshot["messages"]] == ["user"]


# --- Redaction ---------------------------------------------------------------------------------


def test_both_options_are_on_by_default(client: Client, conversation: Conversation) -> None:
    share = shown(client, create(client, conversation)["token"])

    assert share["options"] == {"include_thinking": True, "include_tools": True}
    assert block_types(share)[1] == ["thinking", "text", "tool_use"]
    assert block_types(share)[2] == ["tool_result"]
    assert share["tool_schemas"] == {"get_weather": WEATHER_TOOL["input_schema"]}
    assert share["server_tools"] == []


def test_a_share_names_its_declared_server_tools_for_the_renderer(
    client: Client, conversation: Conversation
) -> None:
    # The share page checks server tool calls against these (render/server-tools.js), as the
    # playground does; hidden tools take them away with the rest.
    code_execution = {"type": "code_execution_20250825", "name": "code_execution"}
    conversations.update_settings(
        conversation=conversation, changes={"tools": [WEATHER_TOOL, code_execution]}
    )
    shared = shown(client, create(client, conversation)["token"])
    hidden = shown(client, create(client, conversation, include_tools=False)["token"])

    assert shared["server_tools"] == [code_execution]
    assert shared["tool_schemas"] == {"get_weather": WEATHER_TOOL["input_schema"]}
    assert hidden["server_tools"] == []


def test_without_thinking_no_thinking_block_is_shared(
    client: Client, conversation: Conversation
) -> None:
    token = create(client, conversation, include_thinking=False)["token"]
    share = shown(client, token)

    assert block_types(share) == [["text"], ["text", "tool_use"], ["tool_result"], ["text"]]
    assert THINKING["thinking"] not in client.get(f"/s/{token}/").content.decode()
    assert [turn["hidden"] for turn in share["messages"]] == [0, 1, 0, 1]


def test_without_tools_no_call_or_result_is_shared(
    client: Client, conversation: Conversation
) -> None:
    token = create(client, conversation, include_tools=False)["token"]
    share = shown(client, token)

    assert block_types(share) == [["text"], ["thinking", "text"], ["text"], ["thinking", "text"]]
    # The tool-result-only turn keeps its place (roles must alternate) as a placeholder.
    assert share["messages"][2]["content"] == [{"type": "text", "text": HIDDEN_TURN_TEXT}]
    html = client.get(f"/s/{token}/").content.decode()
    assert "toolu_1" not in html
    assert '18 °C"' not in html and "get_weather" not in html


def test_updating_can_change_the_options(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)

    send(client, "PATCH", created["share"]["api_url"], {"include_thinking": False})

    assert "thinking" not in sum(block_types(shown(client, created["token"])), [])


# --- What the page never shows -----------------------------------------------------------------


@pytest.fixture
def login_mode() -> Any:
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=True):
        yield


@pytest.fixture
def alice(login_mode: Any) -> Any:
    return get_user_model().objects.create_user("alice-the-owner", email="alice@example.org")


def test_the_page_shows_no_owner_url_or_key(alice: Any, settings: Any) -> None:
    conversation = seed_tool_loop(alice)
    token = sharing.create_share(conversation=conversation).token

    response = Client().get(f"/s/{token}/")  # anonymous, in login mode

    html = response.content.decode()
    assert response.status_code == 200
    for secret in ("alice", "example.org", settings.PLAYGROUND_SIMULATOR_URL, "/simulator"):
        assert secret not in html
    assert '"profile_label": "Built-in simulator"' in html


def test_the_page_asks_not_to_be_indexed_or_referred(
    client: Client, conversation: Conversation
) -> None:
    response = client.get(f"/s/{create(client, conversation)['token']}/")

    assert response["X-Robots-Tag"].startswith("noindex")
    assert response["Referrer-Policy"] == "no-referrer"
    assert response["Cache-Control"] == "no-store"
    assert "script-src 'self'" in response["Content-Security-Policy"]
    assert '<meta name="robots" content="noindex, nofollow">' in response.content.decode()


def test_someone_elses_conversation_cannot_be_shared(alice: Any) -> None:
    conversation = seed_tool_loop(alice)
    bob = Client()
    bob.force_login(get_user_model().objects.create_user("bob"))

    response = send(bob, "POST", f"/api/conversations/{conversation.id}/shares/", {})

    assert (response.status_code, response.json()["error"]["code"]) == (404, "not_found")
    assert not Share.objects.exists()


@pytest.mark.parametrize("method", ["GET", "PATCH", "DELETE"])
def test_someone_elses_share_is_404(alice: Any, method: str) -> None:
    share = sharing.create_share(conversation=seed_tool_loop(alice)).share
    bob = Client()
    bob.force_login(get_user_model().objects.create_user("bob"))

    response = send(bob, method, f"/api/shares/{share.id}/", {} if method == "PATCH" else None)

    assert response.status_code == 404
    assert Share.objects.get().is_active


# --- Fork --------------------------------------------------------------------------------------


def fork(client: Client, token: str) -> Any:
    return client.post(f"/s/{token}/fork/", HTTP_ACCEPT="application/json")


def test_fork_copies_the_snapshot_to_the_viewer(alice: Any) -> None:
    conversation = seed_tool_loop(alice)
    token = sharing.create_share(conversation=conversation).token
    conversations.append_user_message(conversation=conversation, content="Later and private")
    bob_user = get_user_model().objects.create_user("bob")
    bob = Client()
    bob.force_login(bob_user)

    response = fork(bob, token)

    assert response.status_code == 201
    copy = Conversation.objects.get(owner=bob_user)
    assert response.json()["url"] == f"/c/{copy.id}/"
    original = list(conversation.messages.order_by("position"))[:4]
    assert [m.as_api() for m in copy.messages.order_by("position")] == [
        m.as_api() for m in original
    ]
    assert copy.settings == conversation.settings


def test_a_fork_can_go_on(client: Client, conversation: Conversation, owner: Any) -> None:
    token = create(client, conversation)["token"]

    copy = sharing.fork_share(share=sharing.resolve_share(token=token), owner=owner)
    conversations.append_user_message(conversation=copy, content="And tomorrow?")

    assert conversations.next_request(conversation=copy)[1]["messages"][-1]["role"] == "user"


def test_fork_needs_a_login_in_login_mode(alice: Any) -> None:
    token = sharing.create_share(conversation=seed_tool_loop(alice)).token

    response = fork(Client(), token)
    form = Client().post(f"/s/{token}/fork/")

    assert response.status_code == 403
    assert response.json()["login_url"].startswith(settings.LOGIN_URL)
    assert (form.status_code, form["Location"].split("?")[0]) == (302, settings.LOGIN_URL)
    assert Conversation.objects.count() == 1


def test_fork_of_a_revoked_link_is_404(client: Client, conversation: Conversation) -> None:
    created = create(client, conversation)
    send(client, "DELETE", created["share"]["api_url"])

    assert fork(client, created["token"]).status_code == 404


def test_fork_falls_back_to_the_simulator(client: Client, conversation: Conversation) -> None:
    token = create(client, conversation)["token"]
    share = Share.objects.get()
    snapshot = share.snapshot
    snapshot["profile"] = "friendli-dedicated"  # not configured in the tests
    snapshot["settings"]["model"] = "meta-llama-3.1-8b"
    snapshot["settings"]["temperature"] = 1.5  # fine for friendli, refused by the simulator's
    share.snapshot = snapshot
    share.save()

    response = fork(client, token)

    copy = Conversation.objects.exclude(pk=conversation.pk).get()
    assert response.status_code == 201
    kept = copy.settings
    assert (kept.profile, kept.model, kept.temperature) == ("simulator", "simulator-1", None)
    assert copy.messages.count() == 4


# --- The owner's list page ---------------------------------------------------------------------


def test_the_list_page_creates_updates_and_revokes(
    client: Client, conversation: Conversation
) -> None:
    made = client.post(
        "/shares/",
        {"action": "create", "conversation": str(conversation.id), "include_tools": "on"},
    )
    share = Share.objects.get()
    link = made.context["new_link"]
    token = link.rstrip("/").rsplit("/", 1)[-1]
    assert (share.include_thinking, share.include_tools) == (False, True)
    assert share.token_hash == sharing.hash_token(token)

    conversations.append_user_message(conversation=conversation, content="More")
    client.post("/shares/", {"action": "update", "share": str(share.id), "include_thinking": "on"})
    assert "More" in json.dumps(shown(client, token))

    client.post("/shares/", {"action": "revoke", "share": str(share.id)})
    assert client.get(f"/s/{token}/").status_code == 404
    listing = client.get("/shares/").content.decode()
    assert "(revoked)" in listing and str(conversation) in listing


def test_the_list_page_answers_a_conflict_with_409_as_the_api_does(
    client: Client, conversation: Conversation
) -> None:
    created = create(client, conversation)
    share_id = created["share"]["id"]
    client.post("/shares/", {"action": "revoke", "share": share_id})

    page = client.post("/shares/", {"action": "update", "share": share_id})
    api = send(client, "PATCH", created["share"]["api_url"], {})

    # The page said 400 before: the status now comes from the error's class, on every door.
    assert (page.status_code, page.context["error"]["code"]) == (409, "conflict")
    assert api.status_code == 409


def test_the_list_page_shows_only_your_shares(alice: Any) -> None:
    sharing.create_share(conversation=seed_tool_loop(alice, title="Alice secret"))
    bob = Client()
    bob.force_login(get_user_model().objects.create_user("bob"))

    assert "Alice secret" not in bob.get("/shares/").content.decode()


def test_deleting_the_conversation_deletes_its_shares(
    client: Client, conversation: Conversation
) -> None:
    token = create(client, conversation)["token"]

    conversations.delete_conversation(conversation=conversation)

    assert client.get(f"/s/{token}/").status_code == 404
    assert not Share.objects.exists() and not Message.objects.exists()


def test_a_share_shows_its_title_filled_and_a_fork_of_it_is_named_as_one(alice: Any) -> None:
    conversation = seed_tool_loop(alice)
    conversations.update_settings(
        conversation=conversation, changes={"title": "Weather in {{city}}"}
    )
    conversation = conversations.update_variables(
        conversation=conversation, values={"city": "Brest"}
    )
    token = sharing.create_share(conversation=conversation).token
    page = Client().get(f"/s/{token}/")
    html = page.content.decode()
    assert 'tabindex="-1">Weather in Brest</h1>' in html, html[html.find("<h1") :][:200]
    bob_user = get_user_model().objects.create_user("bob")
    bob = Client()
    bob.force_login(bob_user)
    assert fork(bob, token).status_code == 201
    assert Conversation.objects.get(owner=bob_user).title == "Weather in Brest (fork)"


def test_a_share_and_its_fork_carry_only_the_values_its_turns_use(alice: Any) -> None:
    # A value no placeholder uses (a secret left in the Variables panel) was copied by a fork.
    conversation = conversations.create_conversation(
        owner=alice, title="Trip", system="You plan trips to {{city}}."
    )
    conversations.append_user_message(conversation=conversation, content="{{days}} days please")
    conversation = conversations.update_variables(
        conversation=conversation,
        values={"city": "Lyon", "days": "3", "api_token": "never shown"},
    )
    share = sharing.create_share(conversation=conversation)
    assert share.share.snapshot["variables"] == {"city": "Lyon", "days": "3"}
    bob_user = get_user_model().objects.create_user("bob")
    bob = Client()
    bob.force_login(bob_user)
    assert fork(bob, share.token).status_code == 201
    assert Conversation.objects.get(owner=bob_user).variables == {"city": "Lyon", "days": "3"}
