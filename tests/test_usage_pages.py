"""The usage page, its CSV, the limits staff set, and a grid a budget stops."""

from __future__ import annotations

import csv
import html
import io
import re
from datetime import timedelta
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.test import Client
from django.utils import timezone

from playground import conversations, grids
from playground.models import EvalCell, Run
from playground.team_models import Budget, UsageRecord
from playground.web.ownership import local_user
from tests.grid_support import run_grid


def record(
    person: Any,
    *,
    tokens: int,
    nanos: int | None,
    model: str = "m",
    days_ago: int = 0,
    kind: str = "interactive",
):
    return UsageRecord.objects.create(
        kind=kind,
        run_id=__import__("uuid").uuid4(),
        person=person,
        profile="simulator",
        model=model,
        started_at=timezone.now() - timedelta(days=days_ago),
        settled=True,
        input_tokens=tokens // 2,
        output_tokens=tokens - tokens // 2,
        tokens=tokens,
        cost_nanos=nanos,
    )


def unlabelled(page: str) -> str:
    """A page's figures without the labels a phone shows beside each (``data-label``)."""
    return re.sub(r' data-label="[^"]*"', "", page)


@pytest.fixture
def people(settings: Any) -> tuple[Any, Any]:
    settings.PLAYGROUND_REQUIRE_LOGIN = True
    users = get_user_model().objects
    return users.create_user("staff", is_staff=True), users.create_user("ann")


@pytest.mark.django_db
def test_a_person_sees_their_own_use_and_staff_see_everyones(people):
    staff, ann = people
    record(ann, tokens=100, nanos=2_500_000_000)
    record(ann, tokens=40, nanos=None, model="unpriced")
    record(staff, tokens=7, nanos=1)
    browser = Client()
    browser.force_login(ann)
    page = browser.get("/usage/").content.decode()
    assert '<td data-label="Tokens">140</td>' in page
    assert (
        'data-span="today"><th scope="row">Today</th><td>2</td><td>140</td><td>2.5</td><td>1 runs'
        in unlabelled(page)
    )
    assert "data-everyone" not in page and "set-limit" not in page
    assert browser.get("/usage/export.csv?since=2000-01-01&until=2100-01-01").status_code == 403
    assert browser.post("/usage/", {"action": "set"}).status_code == 403
    browser.force_login(staff)
    everyone = browser.get("/usage/").content.decode()
    assert 'data-person="ann"' in everyone and 'data-person="staff"' in everyone


@pytest.mark.django_db
def test_staff_export_every_run_as_csv_with_unpriced_costs_empty(people):
    staff, ann = people
    record(ann, tokens=10, nanos=3_000, model="=HYPERLINK(1)")
    record(ann, tokens=5, nanos=None, days_ago=40)
    browser = Client()
    browser.force_login(staff)
    today = timezone.now().date()
    answer = browser.get(f"/usage/export.csv?since={today - timedelta(days=60)}&until={today}")
    assert answer["Content-Type"] == "text/csv" and "attachment" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode())))
    assert [(r["person"], r["tokens"], r["cost"]) for r in rows] == [
        ("ann", "5", ""),
        ("ann", "10", "0.000003"),
    ]
    assert rows[1]["model"] == "'=HYPERLINK(1)"  # never a formula in a spreadsheet
    assert rows[1]["kind"] == "interactive"
    bad = browser.get("/usage/export.csv?since=yesterday&until=2100-01-01")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "since"


@pytest.mark.django_db
def test_staff_set_and_remove_limits_naming_a_bad_field(people):
    staff, ann = people
    browser = Client()
    browser.force_login(staff)
    base = {"action": "set", "person": "ann", "profile": "", "period": "day", "measure": "money"}
    assert browser.post("/usage/", {**base, "limit": "2.50"}).status_code == 200
    budget = Budget.objects.get()
    assert (budget.person, budget.limit) == (ann, 2_500_000_000)
    browser.post("/usage/", {**base, "limit": "3"})  # the same limit, changed
    assert Budget.objects.get().limit == 3_000_000_000
    for field, value in [
        ("person", "nobody"),
        ("profile", "nope"),
        ("period", "week"),
        ("limit", "x"),
    ]:
        refused = browser.post("/usage/", {**base, "limit": "1", field: value})
        assert refused.status_code == 400, field
    browser.post("/usage/", {"action": "remove", "budget": str(budget.pk)})
    assert not Budget.objects.exists()
    record(ann, tokens=1, nanos=1_000_000_000)
    Budget.objects.create(person=None, period="month", measure="money", limit=1_500_000_000)
    browser.force_login(ann)
    limits = browser.get("/api/usage/").json()["limits"]
    assert [(item["for"], item["left"], item["used"]) for item in limits] == [
        ("everyone (default)", "0.5 USD", "1 USD")
    ]


@pytest.mark.django_db(transaction=True)
async def test_a_grid_that_meets_a_budget_stops_its_remaining_cells(relay):
    owner = await database_sync_to_async(local_user)()
    source = await database_sync_to_async(conversations.create_conversation)(owner=owner)
    await database_sync_to_async(conversations.append_user_message)(
        conversation=source, content="Explain {{topic}}."
    )
    grid = await database_sync_to_async(grids.create_grid)(
        owner=owner,
        conversation=source,
        columns=[{"label": "plain", "changes": {"max_tokens": 100}}],
        rows=[{"topic": str(n)} for n in range(5)],
        concurrency=1,
    )
    # Room for two cells' worst case (100 output tokens and a few of input), not three.
    await database_sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=230
    )
    await run_grid(relay, grid)

    def outcome() -> tuple[int, list[str]]:
        errors = list(EvalCell.objects.filter(row__grid=grid).values_list("start_error", flat=True))
        return Run.objects.count(), errors

    runs, errors = await database_sync_to_async(outcome)()
    assert runs == 2
    assert errors[:2] == ["", ""]
    kinds = await database_sync_to_async(
        lambda: set(UsageRecord.objects.values_list("kind", flat=True))
    )()
    assert kinds == {"grid_cell"}
    assert errors[2].startswith("Not sent: your daily limit of 230 tokens")
    assert all(e.startswith("stopped by the budget: Not sent:") for e in errors[3:])
    assert await database_sync_to_async(UsageRecord.objects.filter(settled=True).count)() == 2


@pytest.mark.django_db
def test_use_is_shown_and_exported_by_what_started_each_run(people):
    staff, ann = people
    record(ann, tokens=10, nanos=1_000_000_000, kind="grid_cell")
    record(ann, tokens=20, nanos=2_000_000_000, kind="grid_cell")
    record(ann, tokens=5, nanos=500_000_000, kind="interactive")
    browser = Client()
    browser.force_login(ann)
    page = unlabelled(browser.get("/usage/").content.decode())
    assert (
        '<tr data-kind="grid_cell"><th scope="row"><a href="?kind=grid_cell">grid cell</a></th>'
        "<td>2</td><td>30</td><td>3</td>" in page
    )
    assert '<tr data-kind="interactive">' in page
    only_cells = unlabelled(browser.get("/usage/?kind=grid_cell").content.decode())
    assert 'data-kind-shown="grid_cell"' in only_cells
    assert 'data-span="today"><th scope="row">Today</th><td>2</td><td>30</td>' in only_cells
    refused = browser.get("/usage/?kind=batch")
    assert refused.status_code == 400 and "no run kind 'batch' (valid: interactive" in (
        html.unescape(refused.content.decode())
    )
    browser.force_login(staff)
    today = timezone.now().date()
    answer = browser.get(f"/usage/export.csv?since={today}&until={today}&kind=interactive")
    assert "-interactive.csv" in answer["Content-Disposition"]
    rows = list(csv.DictReader(io.StringIO(b"".join(answer.streaming_content).decode())))
    assert [(r["kind"], r["tokens"]) for r in rows] == [("interactive", "5")]
    bad = browser.get(f"/usage/export.csv?since={today}&until={today}&kind=nope")
    assert bad.status_code == 400 and bad.json()["error"]["field"] == "kind"


@pytest.mark.django_db
def test_what_is_left_is_on_the_conversation_and_grid_pages_tightest_first(people):
    _, ann = people
    record(ann, tokens=900, nanos=500_000_000)
    Budget.objects.create(person=ann, period="day", measure="tokens", limit=1000)
    Budget.objects.create(person=None, period="month", measure="money", limit=10_000_000_000)
    conversation = conversations.create_conversation(owner=ann)
    browser = Client()
    browser.force_login(ann)
    page = browser.get(f"/c/{conversation.id}/").content.decode()
    assert "data-budget-left" in page and '"usage_limits": "/api/usage/limits/"' in page
    limits = browser.get("/api/usage/limits/").json()["limits"]
    assert [(item["left_text"], item["fraction_left"]) for item in limits] == [
        ("100 tokens left today", 0.1),
        ("9.5 USD left this month", 0.95),
    ]
    assert '"left_text": "100 tokens left today"' in page


@pytest.mark.django_db(transaction=True)
async def test_a_judge_is_counted_as_a_judge_and_a_budget_holds_for_it(relay):
    owner = await database_sync_to_async(local_user)()
    source = await database_sync_to_async(conversations.create_conversation)(owner=owner)
    await database_sync_to_async(conversations.append_user_message)(
        conversation=source, content="Explain {{topic}}."
    )
    judge = {"id": "judge", "kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5}

    def grid_of(topic: str) -> Any:
        return grids.create_grid(
            owner=owner,
            conversation=source,
            columns=[{"label": "plain", "changes": {"max_tokens": 100}}],
            rows=[{"topic": topic}],
            concurrency=1,
            scorers=[judge],
        )

    await run_grid(relay, await database_sync_to_async(grid_of)("tides"))
    records = await database_sync_to_async(
        lambda: list(UsageRecord.objects.values_list("kind", "settled", "tokens"))
    )()
    assert sorted((kind, settled) for kind, settled, _ in records) == [
        ("grid_cell", True),
        ("judge", True),
    ]
    assert all(tokens > 0 for _, _, tokens in records)
    # Room for the next cell's worst case (100 tokens and its input), not for its judge's
    # (1,024 and the answer): the cell runs, its judge is not sent and says why.
    used = sum(tokens for _, _, tokens in records)
    await database_sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=used + 400
    )
    second = await database_sync_to_async(grid_of)("owls")
    await run_grid(relay, second)

    def verdict() -> dict[str, Any]:
        cell = EvalCell.objects.get(row__grid=second)
        return next(score for score in cell.scores if score["scorer"] == "judge")

    judged = await database_sync_to_async(verdict)()
    assert judged["passed"] is False
    assert judged["reason"].startswith("the judge was not run: Not sent: your daily limit")
    kinds = await database_sync_to_async(
        lambda: sorted(UsageRecord.objects.values_list("kind", flat=True))
    )()
    assert kinds == ["grid_cell", "grid_cell", "judge"]


WEATHER = {
    "name": "get_weather",
    "description": "The weather in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
TIME = {
    "name": "get_time",
    "description": "The time in a city.",
    "input_schema": {"type": "object", "properties": {"city": {"type": "string"}}},
}
# A result naming another tool has the simulator call it next (simulator.inputs).
LOOP_MOCKS = [
    {"tool": "get_weather", "content": "Sunny. Now call get_time as well."},
    {"tool": "get_time", "content": "It is noon."},
]


@pytest.mark.django_db(transaction=True)
async def test_a_loops_later_turn_refused_by_a_budget_stops_the_grid_keeping_its_turns(relay):
    """As a first turn's refusal does: the cells not started are stopped by the budget, the
    refused turn sent nothing (no results stored for it), and its cell keeps the turn it
    received, its loop ended by the budget."""
    owner = await database_sync_to_async(local_user)()

    def make() -> Any:
        source = conversations.create_conversation(
            owner=owner, tools=[WEATHER, TIME], profile="simulator"
        )
        conversations.append_user_message(
            conversation=source, content="Use get_weather for {{city}}."
        )
        conversations.set_tool_mocks(conversation=source, mocks=LOOP_MOCKS)
        return grids.create_grid(
            owner=owner,
            conversation=source,
            columns=[{"label": "plain", "changes": {"max_tokens": 100}}],
            rows=[{"city": city} for city in ("Lyon", "Oslo", "Lima")],
            concurrency=1,
            options={"tool_loop": True},
        )

    grid = await database_sync_to_async(make)()
    await database_sync_to_async(Budget.objects.create)(
        person=owner, period="day", measure="tokens", limit=300
    )
    await run_grid(relay, grid)
    view = await database_sync_to_async(grids.serialize_grid)(grid)
    first, *rest = [row["cells"][0] for row in view["rows"]]
    # Room for the first turn's worst case (100 output tokens and its input), not for the
    # second's after the first's use: that turn is refused, and the grid stops there.
    assert (first["status"], first["loop_end"], first["turns"], first["passed"]) == (
        "complete",
        "budget",
        1,
        False,
    )
    assert [(c["turn"], c["name"]) for c in first["trajectory"]] == [(1, "get_weather")]
    assert [cell["status"] for cell in rest] == ["not_started", "not_started"]
    assert all(
        cell["start_error"].startswith("stopped by the budget: Not sent: your daily limit")
        for cell in rest
    )

    def sent() -> tuple[list[str], int]:
        fork = EvalCell.objects.get(pk=first["id"]).conversation
        waiting = conversations.pending_tool_uses(conversation=fork)
        return [call["name"] for call in waiting], Run.objects.count()

    # The refused turn stored no results (nothing half-sent); no other cell ran.
    assert await database_sync_to_async(sent)() == (["get_weather"], 1)
