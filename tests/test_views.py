"""Pages and JSON endpoints: success, the one error shape with each status, CSRF, ownership."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.db.models import TextField
from django.db.models.functions import Cast
from django.test import Client, override_settings
from django.utils import timezone

from playground import conversations
from playground.models import Conversation, Message, Run, RunEventChunk
from playground.web.ownership import acting_user

pytestmark = pytest.mark.django_db

TOOL_TURN = json.dumps(
    [{"type": "tool_use", "id": "toolu_1", "name": "weather", "input": {"city": "Paris"}}]
)


def send(client: Client, method: str, url: str, body: Any = None, **extra: Any) -> Any:
    """A JSON request (no body when ``body`` is None)."""
    data = "" if body is None else json.dumps(body)
    return client.generic(method, url, data=data, content_type="application/json", **extra)


def error_of(response: Any) -> dict[str, Any]:
    payload = response.json()
    assert set(payload) == {"error"}
    assert set(payload["error"]) == {"code", "message", "field"}
    return payload["error"]


def make_run(conversation: Conversation, *, status: str = Run.Status.COMPLETE) -> Run:
    run = Run.objects.create(
        conversation=conversation,
        profile="simulator",
        model="simulator-1",
        request={"model": "simulator-1"},
        status=status,
        started_at=timezone.now(),
    )
    ping = '{"seq":1,"t":0,"type":"ping","data":{"type":"ping"}}\n'
    RunEventChunk.objects.create(run=run, first_seq=1, lines=ping)
    return run


@dataclass
class Seeded:
    conversation: Conversation
    user_message: Message
    run: Run


def seed(owner: Any) -> Seeded:
    """A conversation with a user turn and an answered assistant turn calling a tool."""
    conversation = conversations.create_conversation(owner=owner, title="Seed")
    user_message = conversations.append_user_message(conversation=conversation, content="Hi")
    run = make_run(conversation)
    conversations.append_assistant_message(
        conversation=conversation, run=run, content_json=TOOL_TURN
    )
    return Seeded(conversation=conversation, user_message=user_message, run=run)


@pytest.fixture
def local() -> Any:
    return acting_user(None)


@pytest.fixture
def seeded(local: Any) -> Seeded:
    return seed(local)


def api(seeded: Seeded, what: str) -> str:
    cid = seeded.conversation.id
    return {
        "conversation": f"/api/conversations/{cid}/",
        "fork": f"/api/conversations/{cid}/fork/",
        "request": f"/api/conversations/{cid}/request/",
        "rendered_prompt": f"/api/conversations/{cid}/rendered-prompt/",
        "tool_results": f"/api/conversations/{cid}/tool-results/",
        "message": f"/api/conversations/{cid}/messages/{seeded.user_message.pk}/",
        "run": f"/api/runs/{seeded.run.id}/",
        "run_events": f"/api/runs/{seeded.run.id}/events.jsonl",
        "page": f"/c/{cid}/",
    }[what]


# --- pages ---------------------------------------------------------------------------------------


def test_home_lists_conversations_and_profiles(client: Client, seeded: Seeded) -> None:
    response = client.get("/")
    assert response.status_code == 200
    assert response.context["profiles"][0]["name"] == "simulator"
    assert response.context["page_data"]["conversations"][0]["id"] == str(seeded.conversation.id)


def test_home_filters_by_title(client: Client, local: Any) -> None:
    conversations.create_conversation(owner=local, title="Paris")
    conversations.create_conversation(owner=local, title="Rome")
    response = client.get("/?q=rom")
    assert [c.title for c in response.context["conversations"]] == ["Rome"]


def test_home_form_creates_and_redirects(client: Client) -> None:
    response = client.post("/", {"profile": "simulator", "title": "New", "model": ""})
    conversation = Conversation.objects.get()
    assert (response.status_code, response["Location"]) == (302, f"/c/{conversation.id}/")
    assert (conversation.title, conversation.settings.model) == ("New", "simulator-1")


def test_home_form_refusal_shows_the_error(client: Client) -> None:
    response = client.post("/", {"profile": "nope"})
    assert response.status_code == 400
    assert response.context["error"]["field"] == "profile"
    assert not Conversation.objects.exists()


def test_conversation_page_carries_page_data(client: Client, seeded: Seeded) -> None:
    response = client.get(api(seeded, "page"))
    data = response.context["page_data"]
    cid = seeded.conversation.id
    assert response.status_code == 200
    assert data["conversation"]["id"] == str(cid)
    assert data["urls"]["websocket"] == f"/ws/conversations/{cid}/"
    assert data["urls"]["message"] == f"/api/conversations/{cid}/messages/{{message_id}}/"
    assert data["urls"]["run_events"] == "/api/runs/{run_id}/events.jsonl"
    assert [b["id"] for b in data["conversation"]["pending_tool_uses"]] == ["toolu_1"]


def test_conversation_page_embeds_data_as_json_script(client: Client, seeded: Seeded) -> None:
    response = client.get(api(seeded, "page"))
    assert b'<script id="page-data" type="application/json">' in response.content


@pytest.mark.parametrize(
    "path",
    ["/c/00000000-0000-0000-0000-000000000000/", "/c/not-a-uuid/"],
    ids=["missing", "malformed"],
)
def test_conversation_page_404s(client: Client, path: str) -> None:
    assert client.get(path).status_code == 404


# --- JSON API: success ---------------------------------------------------------------------------


def test_api_lists_conversations(client: Client, seeded: Seeded) -> None:
    response = client.get("/api/conversations/")
    assert [c["title"] for c in response.json()["conversations"]] == ["Seed"]


def test_api_creates_a_conversation(client: Client) -> None:
    response = send(client, "POST", "/api/conversations/", {"title": "New", "temperature": 0.5})
    created = Conversation.objects.get()
    assert response.status_code == 201
    assert response.json()["id"] == str(created.id)
    assert created.settings.temperature == 0.5


def test_new_conversation_again_opens_the_one_still_as_created(client: Client) -> None:
    # Each "New conversation" click left an Untitled entry behind: the page asks for the
    # newest conversation still untitled, empty and at its defaults, and gets it again.
    first = send(client, "POST", "/api/conversations/?reuse=untouched", {})
    again = send(client, "POST", "/api/conversations/?reuse=untouched", {})
    assert (first.status_code, again.status_code) == (201, 200)
    assert again.json()["id"] == first.json()["id"]
    assert Conversation.objects.count() == 1
    # Anything done to it makes it a conversation of its own: the next click makes a new one.
    send(client, "PATCH", f"/api/conversations/{first.json()['id']}/", {"system": "Be brief."})
    third = send(client, "POST", "/api/conversations/?reuse=untouched", {})
    assert third.status_code == 201 and third.json()["id"] != first.json()["id"]
    # Without the query, or with fields, POST always creates.
    assert send(client, "POST", "/api/conversations/", {}).status_code == 201
    assert Conversation.objects.count() == 3


def test_api_gets_a_conversation(client: Client, seeded: Seeded) -> None:
    response = client.get(api(seeded, "conversation"))
    assert [m["role"] for m in response.json()["messages"]] == ["user", "assistant"]


def test_api_patches_settings(client: Client, seeded: Seeded) -> None:
    response = send(client, "PATCH", api(seeded, "conversation"), {"title": "Renamed"})
    assert response.json()["title"] == "Renamed"
    assert Conversation.objects.get().title == "Renamed"


def test_api_deletes_a_conversation(client: Client, seeded: Seeded) -> None:
    response = client.delete(api(seeded, "conversation"))
    assert response.status_code == 204
    assert not Conversation.objects.exists()


def test_api_forks_verbatim(client: Client, seeded: Seeded) -> None:
    response = send(client, "POST", api(seeded, "fork"), {"upto_position": 1})
    fork = Conversation.objects.get(pk=response.json()["id"])
    assert response.status_code == 201
    assert list(fork.messages.values_list(Cast("content", TextField()), flat=True)) == list(
        seeded.conversation.messages.values_list(Cast("content", TextField()), flat=True)
    )


def test_api_fork_accepts_an_empty_body(client: Client, seeded: Seeded) -> None:
    assert send(client, "POST", api(seeded, "fork")).status_code == 201


def test_api_edits_a_message(client: Client, seeded: Seeded) -> None:
    response = send(client, "PATCH", api(seeded, "message"), {"content": "Hello"})
    [edited] = response.json()["messages"]
    old = seeded.user_message.pk
    assert edited == {
        "id": edited["id"],
        "position": 0,
        "role": "user",
        "content": [{"type": "text", "text": "Hello"}],
        "run": None,
        "branch": {"index": 1, "count": 2, "ids": [old, edited["id"]]},
        "prefill": False,
        "carried_blocks": 0,
    }


def test_api_appends_tool_results(client: Client, seeded: Seeded) -> None:
    body = {"results": [{"tool_use_id": "toolu_1", "content": "sunny"}], "text": "go on"}
    response = send(client, "POST", api(seeded, "tool_results"), body)
    assert response.status_code == 201
    assert response.json()["messages"][-1]["content"][0]["type"] == "tool_result"


def test_api_shows_the_next_request_without_keys(client: Client, seeded: Seeded) -> None:
    send(
        client,
        "POST",
        api(seeded, "tool_results"),
        {"results": [{"tool_use_id": "toolu_1", "content": "sunny"}]},
    )
    payload = client.get(api(seeded, "request")).json()
    assert payload["profile"]["name"] == "simulator"
    assert "base_url" not in payload["profile"]
    assert (payload["request"]["stream"], len(payload["request"]["messages"])) == (True, 3)


def test_api_shows_a_run(client: Client, seeded: Seeded) -> None:
    payload = client.get(api(seeded, "run")).json()
    assert (payload["status"], payload["request"]) == ("complete", {"model": "simulator-1"})


def test_api_serves_a_runs_events_as_jsonl(client: Client, seeded: Seeded) -> None:
    response = client.get(api(seeded, "run_events"))
    assert response["Content-Type"].startswith("application/jsonl")
    assert response.content.decode() == seeded.run.events_jsonl


# --- JSON API: the error shape -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "content_type", "message"),
    [
        pytest.param("{not json", "application/json", "malformed JSON", id="malformed"),
        pytest.param("NaN", "application/json", "malformed JSON", id="nan"),
        pytest.param(b"\xff\xfe", "application/json", "malformed JSON", id="not-utf8"),
        pytest.param('{"title":"x"}', "text/plain", "Content-Type", id="wrong-content-type"),
        pytest.param("[1, 2]", "application/json", "JSON object", id="array"),
        pytest.param('"title"', "application/json", "JSON object", id="string"),
    ],
)
def test_bad_bodies_are_400(client: Client, data: Any, content_type: str, message: str) -> None:
    response = client.post("/api/conversations/", data=data, content_type=content_type)
    error = error_of(response)
    assert (response.status_code, error["code"]) == (400, "invalid_request")
    assert message in error["message"]
    assert not Conversation.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"max_tokens": "many"}, "max_tokens", id="wrong-type"),
        pytest.param({"owner": 1}, "owner", id="unknown-field"),
        pytest.param({"profile": "nope"}, "profile", id="unknown-profile"),
    ],
)
def test_invalid_fields_are_400_naming_the_field(
    client: Client, body: dict[str, Any], field: str
) -> None:
    response = send(client, "POST", "/api/conversations/", body)
    assert (response.status_code, error_of(response)["field"]) == (400, field)


@pytest.mark.parametrize(
    ("what", "body", "field"),
    [
        pytest.param("message", {}, "content", id="edit-without-content"),
        pytest.param("message", {"content": 5}, "content", id="edit-content-number"),
        pytest.param("message", {"content": "x", "role": "user"}, "role", id="edit-extra"),
        pytest.param("fork", {"upto_position": "1"}, "upto_position", id="fork-position-string"),
        pytest.param("tool_results", {}, "results", id="results-missing"),
        pytest.param(
            "tool_results",
            {"results": [{"tool_use_id": "toolu_9"}]},
            "results[0].tool_use_id",
            id="results-unknown-id",
        ),
    ],
)
def test_endpoint_field_errors_are_400(
    client: Client, seeded: Seeded, what: str, body: dict[str, Any], field: str
) -> None:
    method = "PATCH" if what == "message" else "POST"
    before = list(Message.objects.values_list(Cast("content", TextField()), flat=True))
    response = send(client, method, api(seeded, what), body)
    assert (response.status_code, error_of(response)["field"]) == (400, field)
    assert list(Message.objects.values_list(Cast("content", TextField()), flat=True)) == before


def test_the_next_request_of_an_unrunnable_conversation_is_400(
    client: Client, seeded: Seeded
) -> None:
    response = client.get(api(seeded, "request"))
    assert (response.status_code, error_of(response)["field"]) == (400, "messages")


@pytest.mark.parametrize(
    "path",
    [
        "/api/conversations/00000000-0000-0000-0000-000000000000/",
        "/api/conversations/not-a-uuid/",
        "/api/runs/not-a-uuid/events.jsonl",
        "/api/nothing-here/",
    ],
    ids=["missing", "malformed", "run-malformed", "no-endpoint"],
)
def test_unknown_ids_are_404_json(client: Client, path: str) -> None:
    response = client.get(path)
    assert (response.status_code, error_of(response)["code"]) == (404, "not_found")


def test_an_unknown_message_is_404(client: Client, seeded: Seeded) -> None:
    url = f"/api/conversations/{seeded.conversation.id}/messages/999999/"
    response = send(client, "PATCH", url, {"content": "x"})
    assert (response.status_code, error_of(response)["code"]) == (404, "not_found")


def test_changes_during_a_live_run_are_409_busy(client: Client, seeded: Seeded) -> None:
    make_run(seeded.conversation, status=Run.Status.RUNNING)
    response = send(client, "PATCH", api(seeded, "message"), {"content": "x"})
    assert (response.status_code, error_of(response)["code"]) == (409, "busy")


def test_state_conflicts_are_409(client: Client, seeded: Seeded) -> None:
    assistant = seeded.conversation.messages.get(role="assistant")
    url = f"/api/conversations/{seeded.conversation.id}/messages/{assistant.pk}/"
    response = send(client, "PATCH", url, {"content": "x"})
    assert (response.status_code, error_of(response)["code"]) == (409, "conflict")


@override_settings(PLAYGROUND_MAX_FRAME_BYTES=64)
def test_a_body_over_the_limit_is_413(client: Client) -> None:
    response = send(client, "POST", "/api/conversations/", {"title": "x" * 100})
    assert (response.status_code, error_of(response)["code"]) == (413, "too_large")
    assert not Conversation.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=16)
def test_a_body_over_djangos_own_limit_is_413(client: Client) -> None:
    response = send(client, "POST", "/api/conversations/", {"title": "x" * 100})
    assert (response.status_code, error_of(response)["code"]) == (413, "too_large")


def test_a_wrong_method_is_405_json(client: Client) -> None:
    response = client.put("/api/conversations/")
    assert (response.status_code, error_of(response)["code"]) == (405, "method_not_allowed")
    assert response["Allow"] == "GET, POST"


# --- CSRF ----------------------------------------------------------------------------------------


def test_a_json_post_without_the_csrf_header_is_403() -> None:
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    response = send(client, "POST", "/api/conversations/", {"title": "x"})
    assert (response.status_code, error_of(response)["code"]) == (403, "forbidden")
    assert not Conversation.objects.exists()


def test_a_json_post_with_the_csrf_header_passes() -> None:
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    token = client.cookies["csrftoken"].value
    response = send(client, "POST", "/api/conversations/", {"title": "x"}, HTTP_X_CSRFTOKEN=token)
    assert response.status_code == 201


def test_a_form_post_with_a_valid_csrf_token_is_a_400_naming_the_content_type() -> None:
    # The CSRF check reads a form's fields (its csrfmiddlewaretoken): the body is then gone.
    client = Client(enforce_csrf_checks=True)
    client.get("/")
    token = client.cookies["csrftoken"].value
    form = {"csrfmiddlewaretoken": token, "title": "x"}
    response = client.post("/api/conversations/", data=form)
    error = error_of(response)
    assert (response.status_code, error["code"]) == (400, "invalid_request")
    assert "expected Content-Type: application/json" in error["message"]
    assert not Conversation.objects.exists()


# --- ownership -----------------------------------------------------------------------------------


def test_local_mode_needs_no_login(client: Client) -> None:
    assert client.get("/api/conversations/").status_code == 200
    assert client.get("/").status_code == 200


OWNED: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "conversation", None),
    ("PATCH", "conversation", {"title": "mine now"}),
    ("DELETE", "conversation", None),
    ("POST", "fork", {}),
    ("GET", "request", None),
    ("POST", "rendered_prompt", {"content": "x"}),
    ("POST", "tool_results", {"results": [{"tool_use_id": "toolu_1"}]}),
    ("PATCH", "message", {"content": "x"}),
    ("GET", "run", None),
    ("GET", "run_events", None),
]


def owned_id(case: tuple[str, str, Any]) -> str:
    return f"{case[0]}-{case[1]}"


@pytest.fixture
def login_mode() -> Any:
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=True):
        yield


@pytest.fixture
def alices(login_mode: Any) -> Seeded:
    return seed(get_user_model().objects.create_user("alice"))


@pytest.fixture
def bob_client(login_mode: Any) -> Client:
    client = Client()
    client.force_login(get_user_model().objects.create_user("bob"))
    return client


@pytest.mark.parametrize(("method", "what", "body"), OWNED, ids=map(owned_id, OWNED))
def test_another_users_objects_are_404_on_every_endpoint(
    bob_client: Client, alices: Seeded, method: str, what: str, body: Any
) -> None:
    before = list(Message.objects.values_list(Cast("content", TextField()), flat=True))
    response = send(bob_client, method, api(alices, what), body)
    assert (response.status_code, error_of(response)["code"]) == (404, "not_found")
    assert list(Message.objects.values_list(Cast("content", TextField()), flat=True)) == before
    assert Conversation.objects.count() == 1


def test_another_users_page_is_404(bob_client: Client, alices: Seeded) -> None:
    assert bob_client.get(api(alices, "page")).status_code == 404


def test_the_list_shows_only_your_conversations(bob_client: Client, alices: Seeded) -> None:
    assert bob_client.get("/api/conversations/").json() == {"conversations": [], "next": None}


def test_the_owner_sees_their_conversation(alices: Seeded) -> None:
    client = Client()
    client.force_login(alices.conversation.owner)
    assert client.get(api(alices, "conversation")).status_code == 200


ANONYMOUS: list[tuple[str, str, Any]] = [*OWNED, ("GET", "list", None), ("POST", "list", {})]


@pytest.mark.parametrize(("method", "what", "body"), ANONYMOUS, ids=map(owned_id, ANONYMOUS))
def test_anonymous_api_calls_are_403_in_login_mode(
    client: Client, alices: Seeded, method: str, what: str, body: Any
) -> None:
    url = "/api/conversations/" if what == "list" else api(alices, what)
    response = send(client, method, url, body)
    assert (response.status_code, error_of(response)["code"]) == (403, "forbidden")


@pytest.mark.parametrize("page", ["home", "conversation"])
def test_anonymous_pages_redirect_to_login(client: Client, alices: Seeded, page: str) -> None:
    path = "/" if page == "home" else api(alices, "page")
    response = client.get(path)
    assert (response.status_code, response["Location"]) == (302, f"/accounts/login/?next={path}")


def test_the_login_page_renders(client: Client, login_mode: Any) -> None:
    assert client.get("/accounts/login/").status_code == 200


def test_logging_in_reaches_the_list(client: Client, login_mode: Any) -> None:
    get_user_model().objects.create_user("carol", password="pw-carol")
    response = client.post("/accounts/login/", {"username": "carol", "password": "pw-carol"})
    assert (response.status_code, response["Location"]) == (302, "/")


def test_the_local_user_cannot_log_in(client: Client, login_mode: Any) -> None:
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=False):
        acting_user(None)
    response = client.post("/accounts/login/", {"username": "local", "password": ""})
    assert response.status_code == 200  # the form again, with an error
    assert "_auth_user_id" not in client.session
