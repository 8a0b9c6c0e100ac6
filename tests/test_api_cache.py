"""Every answer under /api/, errors included, says ``Cache-Control: no-store``: it holds one
user's conversations, runs and shares, which no browser or shared cache may keep."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client

from playground import conversations
from playground.web.ownership import acting_user
from tests.test_views import make_run

pytestmark = pytest.mark.django_db

IMPORT = {
    "model": "simulator-1",
    "max_tokens": 16,
    "messages": [{"role": "user", "content": "Hi"}],
}


def _answers(client: Client) -> list[tuple[str, Any]]:
    conversation = conversations.create_conversation(owner=acting_user(None), title="Cached")
    conversations.append_user_message(conversation=conversation, content="Hi")
    run = make_run(conversation)
    base = f"/api/conversations/{conversation.id}/"
    as_json = {"content_type": "application/json"}
    return [
        ("list", client.get("/api/conversations/")),
        ("detail", client.get(base)),
        ("patch", client.patch(base, json.dumps({"title": "T"}), **as_json)),
        ("next-request", client.get(f"{base}request/")),
        ("run", client.get(f"/api/runs/{run.id}/")),
        ("events.jsonl", client.get(f"/api/runs/{run.id}/events.jsonl")),
        ("shares", client.post(f"{base}shares/", "{}", **as_json)),
        ("export", client.get(f"{base}export/request.json")),
        ("import-json", client.post("/api/import/", json.dumps({"request": IMPORT}), **as_json)),
        (
            "import-upload",
            client.post(
                "/api/import/", {"file": SimpleUploadedFile("r.json", json.dumps(IMPORT).encode())}
            ),
        ),
        ("400", client.post("/api/conversations/", "{oops", **as_json)),
        ("404", client.get("/api/conversations/not-an-id/")),
        ("404-no-endpoint", client.get("/api/nothing/here/")),
        ("405", client.put("/api/runs/x/events.jsonl")),
        ("405-import", client.get("/api/import/")),
        ("405-message", client.delete(f"/api/conversations/{conversation.id}/messages/1/")),
        ("413", client.post("/api/conversations/", "x" * 2_000_000, **as_json)),
    ]


def test_every_api_answer_says_no_store(client: Client):
    answers = _answers(client)

    for name, response in answers:
        assert "no-store" in response.get("Cache-Control", ""), (name, response.status_code)
    statuses = {response.status_code for _, response in answers}
    assert {200, 201, 400, 404, 405, 413} <= statuses


def test_a_login_refusal_and_a_csrf_refusal_say_no_store(settings: Any):
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    anonymous = Client(enforce_csrf_checks=True)

    forbidden = anonymous.get("/api/conversations/")
    csrf = anonymous.post("/api/conversations/", "{}", content_type="application/json")

    assert (forbidden.status_code, csrf.status_code) == (403, 403)
    assert "no-store" in forbidden["Cache-Control"]
    assert "no-store" in csrf["Cache-Control"]
