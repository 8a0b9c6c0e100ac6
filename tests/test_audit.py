"""The audit log: append-only; sign-ins and failures, shares, tokens, MCP calls, budget
refusals and staff's changes to limits are recorded with who, what and how, never content or
keys; staff read it filtered and export it as JSON Lines."""

from __future__ import annotations

import json
import uuid
from types import SimpleNamespace
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from playground import conversations, sharing
from playground.accounts.tokens import create_token, revoke_token
from playground.audit.log import record
from playground.mcp.records import record_call
from playground.protocol.errors import BudgetExceeded
from playground.team_models import AuditEvent, Budget
from playground.usage.ledger import within_budget

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(settings: Any) -> tuple[Any, Any]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    users = get_user_model().objects
    staff = users.create_user("boss", password="pw-boss-12345", is_staff=True)
    return staff, users.create_user("ann", password="pw-ann-12345")


def actions() -> list[str]:
    return list(AuditEvent.objects.order_by("id").values_list("action", flat=True))


def test_sign_ins_and_failures_are_kept_without_the_password(people):
    browser = Client()
    browser.post("/accounts/login/", {"username": "ann", "password": "wrong-password-1"})
    browser.post("/accounts/login/", {"username": "ann", "password": "pw-ann-12345"})
    browser.post("/accounts/logout/")
    assert actions() == ["auth.sign_in_failed", "auth.sign_in", "auth.sign_out"]
    failed = AuditEvent.objects.get(action="auth.sign_in_failed")
    assert failed.actor_name == "ann" and failed.outcome == "refused"
    everything = json.dumps(list(AuditEvent.objects.values()), default=str)
    assert "wrong-password-1" not in everything and "pw-ann-12345" not in everything


def test_shares_tokens_mcp_calls_and_budget_refusals_are_kept_without_content(people):
    _, ann = people
    conversation = conversations.create_conversation(owner=ann)
    share = sharing.create_share(conversation=conversation).share
    sharing.revoke_share(share=share)
    token = create_token(owner=ann, name="ci")
    revoke_token(owner=ann, token_id=token.token.id)
    record_call(
        conversation=conversation,
        tool_use_id="toolu_1",
        server="files",
        tool="read",
        final={"type": "result", "result": {"content": [{"type": "text", "text": "SECRET-BODY"}]}},
    )
    Budget.objects.create(person=ann, period="day", measure="tokens", limit=0)
    begun = SimpleNamespace(
        run_id=uuid.uuid4(),
        profile="simulator",
        body={
            "model": "m",
            "max_tokens": 10,
            "messages": [{"role": "user", "content": "PROMPT-TEXT"}],
        },
        started_at=timezone.now(),
    )
    with pytest.raises(BudgetExceeded):
        within_budget(lambda *, owner: [begun])(owner=ann)
    assert actions() == [
        "share.created",
        "share.revoked",
        "token.created",
        "token.revoked",
        "mcp.call",
        "budget.refused",
    ]
    call = AuditEvent.objects.get(action="mcp.call")
    assert (call.actor_id, call.target, call.outcome) == (ann.pk, "files/read", "result")
    assert call.details["size_bytes"] > 0
    everything = json.dumps(list(AuditEvent.objects.values()), default=str)
    for secret in ("SECRET-BODY", "PROMPT-TEXT", token.secret):
        assert secret not in everything


def test_details_keep_no_credential_or_content_and_rows_never_change():
    record("x.y", details={"api_key": "k", "prompt": "p", "count": 3, "name": "n" * 500})
    event = AuditEvent.objects.get()
    assert event.details == {"count": 3, "name": "n" * 200}
    event.outcome = "changed"
    with pytest.raises(PermissionError):
        event.save()
    with pytest.raises(PermissionError):
        event.delete()


def test_staff_read_filter_and_export_the_log_and_limits_changed_are_in_it(people):
    staff, ann = people
    browser = Client()
    browser.force_login(ann)
    assert browser.get("/audit/").status_code == 403
    assert browser.get("/audit/export.jsonl").status_code == 403
    browser.force_login(staff)
    base = {"action": "set", "person": "ann", "profile": "", "period": "day", "measure": "tokens"}
    browser.post("/usage/", {**base, "limit": "1000"})
    page = browser.get("/audit/?action=budget").content.decode()
    assert 'data-action="budget.set"' in page and 'data-action="auth.sign_in"' not in page
    lines = b"".join(browser.get("/audit/export.jsonl?person=boss").streaming_content).decode()
    events = [json.loads(line) for line in lines.splitlines()]
    assert [e["action"] for e in events] == ["auth.sign_in", "budget.set"]
    assert events[-1]["target"] == "ann" and "1,000 tokens" in events[-1]["details"]["limit"]
    assert browser.get("/audit/export.jsonl?since=someday").status_code == 400


def test_prompt_versions_label_moves_and_links_are_kept_without_the_prompt_text(people):
    from playground.prompts import services as prompts

    _, ann = people
    first = prompts.create_prompt(
        owner=ann, name="travel", definition={"system": "SYSTEM-PROMPT-TEXT"}
    )
    prompt = first.prompt
    prompts.move_label(prompt=prompt, label="production", version=first, actor=ann)
    prompts.remove_label(prompt=prompt, label="production", actor=ann)
    prompts.share_prompt(prompt=prompt)
    prompts.unshare_prompt(prompt=prompt)
    prompts.unshare_prompt(prompt=prompt)  # no link left: nothing revoked, nothing logged
    assert actions() == [
        "prompt.version_saved",
        "prompt.label_moved",
        "prompt.label_removed",
        "prompt_share.created",
        "prompt_share.revoked",
    ]
    moved = AuditEvent.objects.get(action="prompt.label_moved")
    assert (moved.actor_id, moved.target) == (ann.pk, str(prompt.pk))
    assert moved.details == {"name": "travel", "label": "production", "number": 1}
    everything = json.dumps(list(AuditEvent.objects.values()), default=str)
    assert "SYSTEM-PROMPT-TEXT" not in everything
