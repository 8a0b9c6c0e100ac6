"""A grid's runs kept as experiments (``grids.experiments``, ``grids.experiments_api``): each
run request through the API freezes, once it ends, what ran and what came of it; a later edit
of the scorers or a re-run changes no earlier experiment; one compared with a baseline names
its flips and deltas; a rating follows its answer; exports and a read-only link per
experiment; a run's upstream calls said before it is asked; and CI starting a run with a
personal API token and reading its verdict. On the built-in simulator, over loopback."""

from __future__ import annotations

import asyncio
import json
import xml.etree.ElementTree as ElementTree
from decimal import Decimal
from io import StringIO
from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from playground import conversations, grids
from playground.accounts.tokens import create_token
from playground.models import EvalCell, EvalExperiment, EvalGrid, Run
from playground.prompts import services
from playground.protocol.errors import RequestValidationError
from playground.runs.manager import RunManager
from playground.transfer import bundle, importing
from playground.usage.prices import read_price_table
from playground.web.ownership import local_user
from tests.relay_support import TIMEOUT

pytestmark = pytest.mark.django_db(transaction=True)

#: Row 1 answers; row 2's answer breaks off (the simulator's error event): it never passes.
ROWS = [{"word": "alpha"}, {"word": "beta [[sim: error=overloaded_error after=3]]"}]
PRICES = 'currency = "USD"\n[simulator."simulator-*"]\ninput = 2\noutput = 10\n'
PASSES = [{"id": "clean", "name": "Clean", "kind": "not_contains", "value": "zqxj"}]
FAILS = [{"id": "clean", "name": "Clean", "kind": "contains", "value": "zqxj"}]


def make_grid(owner: Any = None, scorers: list[dict[str, Any]] = PASSES) -> EvalGrid:
    owner = owner or local_user()
    item = conversations.create_conversation(owner=owner, title="Words")
    conversations.append_user_message(conversation=item, content="Say {{word}} and stop.")
    return grids.create_grid(
        owner=owner,
        conversation=item,
        title="Words",
        columns=[{"label": "plain", "changes": {"temperature": 0.5}}],
        rows=ROWS,
        concurrency=2,
        scorers=scorers,
    )


async def served(call: Any, *args: Any, **kwargs: Any) -> Any:
    """A request, again while the in-memory test database's table lock answers 503 (a run's
    write met it: see test_grids.test_a_running_cell_shows_its_answer_so_far)."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        response = await call(*args, **kwargs)
        if response.status_code != 503:
            return response
        assert response.json()["error"]["code"] == "unavailable", response.content
        assert asyncio.get_running_loop().time() < deadline, "never served"


async def run_through_api(
    relay: RunManager,
    client: Any,
    grid: EvalGrid,
    body: dict[str, Any],
    headers: dict[str, str] | None = None,
) -> dict[str, Any]:
    """``POST …/run/``, then the grid's job to its end (which freezes the experiment)."""
    started = await served(
        client.post, f"/api/grids/{grid.id}/run/", body, "application/json", headers=headers
    )
    assert started.status_code == 202, started.content
    job = relay.job(f"grid {grid.id}")
    if job is not None:
        await asyncio.wait_for(job, timeout=TIMEOUT * 3)
    return dict(started.json())


async def read(client: Any, url: str, headers: dict[str, str] | None = None) -> dict[str, Any]:
    response = await served(client.get, url, headers=headers)
    assert response.status_code == 200, response.content
    return dict(response.json())


def verdicts(view: dict[str, Any]) -> list[Any]:
    return [row["cells"][0]["passed"] for row in view["rows"]]


async def test_each_run_is_an_experiment_frozen_and_compared_with_a_baseline(
    relay: RunManager, async_client: Any
) -> None:
    grid = await database_sync_to_async(make_grid)()
    base = f"/api/grids/{grid.id}/experiments"

    first = await run_through_api(relay, async_client, grid, {})
    assert first["queued"] == 2 and first["calls"] == 2
    assert first["experiment"]["number"] == 1
    one = await read(async_client, first["experiment"]["url"])
    assert one["status"] == "finished" and verdicts(one) == [True, False]
    assert one["totals"]["pass_rate"] == 0.5 and one["totals"]["ran"] == 2
    assert one["totals"]["output_tokens"] > 0
    ran = one["ran"]
    assert ran["prompt"]["messages"][0]["content"][0]["text"] == "Say {{word}} and stop."
    assert ran["columns"][0]["settings"]["temperature"] == 0.5
    assert ran["columns"][0]["settings"]["model"]  # resolved over the conversation's
    assert [row["values"] for row in ran["rows"]] == ROWS
    assert [(s["kind"], s["value"]) for s in ran["scorers"]] == [("not_contains", "zqxj")]
    answer = one["rows"][0]["cells"][0]
    assert answer["run_id"] and answer["ran"] and answer["answer"] and answer["duration_ms"]

    # The scorers edited (every answer now fails), then run again: experiment 1 is unchanged.
    patched = await served(
        async_client.patch, f"/api/grids/{grid.id}/", {"scorers": FAILS}, "application/json"
    )
    assert patched.status_code == 200
    assert verdicts(await read(async_client, f"{base}/1/")) == [True, False]
    second = await run_through_api(relay, async_client, grid, {})
    two = await read(async_client, f"{second['experiment']['url']}?baseline=1")
    assert two["number"] == 2 and verdicts(two) == [False, False]
    assert two["rows"][0]["cells"][0]["run_id"] != answer["run_id"]  # a new answer
    again = await read(async_client, f"{base}/1/")
    assert verdicts(again) == [True, False] and again["ran"]["scorers"] == ran["scorers"]
    assert again["rows"][0]["cells"][0]["answer"] == answer["answer"]

    compared = two["compare"]
    assert (compared["pass_to_fail"], compared["fail_to_pass"], compared["unmatched"]) == (1, 0, 0)
    flipped = compared["cells"][0]
    assert (flipped["row"], flipped["flip"]) == (0, "pass_to_fail")
    assert flipped["scores"]["clean"] == {
        "name": "Clean",
        "before": 1.0,
        "after": 0.0,
        "delta": -1.0,
        "flip": "pass_to_fail",
    }
    assert isinstance(flipped["duration_delta_ms"], int | float)
    (column,) = compared["columns"]
    assert column["pass_rate"] == {"before": 0.5, "after": 0.0, "delta": -0.5}
    assert column["pass_to_fail"] == 1 and compared["cells"][1]["flip"] is None
    assert two["verdict"] == {
        "passed": False,
        "reasons": ["1 cell(s) passed in the baseline and fail now"],
        "regressions": ["0/0"],
        "pass_rate": 0.0,
    }

    # Scorers back (row 1 scored again, passing), only the failed cell re-run: experiment 3
    # says which ran; against experiment 2, row 1 flips back.
    await served(
        async_client.patch, f"/api/grids/{grid.id}/", {"scorers": PASSES}, "application/json"
    )
    third = await run_through_api(relay, async_client, grid, {"failed": True})
    three = await read(async_client, f"{third['experiment']['url']}?baseline=2&min_pass_rate=0.4")
    assert three["asked"] == [{"row": None, "column": None, "failed": True, "cells": 1}]
    assert [row["cells"][0]["ran"] for row in three["rows"]] == [False, True]
    assert three["compare"]["fail_to_pass"] == 1 and three["verdict"]["passed"] is True

    listed = (await read(async_client, f"{base}/"))["experiments"]
    assert [(e["number"], e["pass_rates"], e["status"]) for e in listed] == [
        (3, [0.5], "finished"),
        (2, [0.0], "finished"),
        (1, [0.5], "finished"),
    ]


async def test_a_rating_belongs_to_the_answer_it_rated(
    relay: RunManager, async_client: Any
) -> None:
    grid = await database_sync_to_async(make_grid)()
    first = await run_through_api(relay, async_client, grid, {})
    cell = await database_sync_to_async(
        lambda: str(EvalCell.objects.get(row__grid=grid, row__position=0).pk)
    )()
    rated = await served(
        async_client.patch,
        f"/api/grids/{grid.id}/cells/{cell}/",
        {"rating": "good", "note": "crisp"},
        "application/json",
    )
    assert rated.status_code == 200
    # Rated after experiment 1 was frozen: its answer's rating shows with it.
    one = await read(async_client, first["experiment"]["url"])
    assert one["rows"][0]["cells"][0]["rating"] == "good"
    assert one["rows"][0]["cells"][0]["note"] == "crisp" and one["summaries"][0]["good"] == 1
    await run_through_api(relay, async_client, grid, {"row": 0})
    two = await read(async_client, f"/api/grids/{grid.id}/experiments/2/")
    # The re-run's answer is unrated; the first answer keeps its rating in experiment 1.
    assert two["rows"][0]["cells"][0]["rating"] is None
    assert two["rows"][1]["cells"][0]["ran"] is False  # row 2 was not asked this time
    assert (await read(async_client, first["experiment"]["url"]))["rows"][0]["cells"][0][
        "rating"
    ] == "good"


async def test_an_experiment_is_exported_and_shared_read_only(
    relay: RunManager, async_client: Any
) -> None:
    grid = await database_sync_to_async(make_grid)()
    first = await run_through_api(relay, async_client, grid, {})
    url = first["experiment"]["url"]
    csv = await served(async_client.get, f"{url}export.csv")
    assert csv.status_code == 200 and "alpha" in csv.content.decode()
    whole = json.loads((await served(async_client.get, f"{url}export.json")).content)
    assert whole["ran"]["scorers"][0]["value"] == "zqxj" and len(whole["rows"]) == 2
    junit = ElementTree.fromstring((await served(async_client.get, f"{url}export.xml")).content)
    suite = junit.find("testsuite")
    assert suite is not None and (suite.get("tests"), suite.get("failures")) == ("2", "1")
    missing = await served(async_client.get, f"{url}export.pdf")
    assert missing.status_code == 404 and "export.csv" not in missing.json()["error"]["message"]

    link = (await served(async_client.post, f"{url}share/", {}, "application/json")).json()["url"]
    path = link.split("testserver", 1)[1]
    page = await served(async_client.get, path)
    assert page.status_code == 200 and page["X-Robots-Tag"]
    shared = await read(async_client, f"{path}experiment.json")
    assert shared["number"] == 1 and "conversation_id" not in shared["ran"]
    for row in shared["rows"]:
        assert row["cells"][0]["conversation_id"] is None and row["cells"][0]["run_id"] is None
    assert (await served(async_client.delete, f"{url}share/")).status_code == 204
    assert (await served(async_client.get, f"{path}experiment.json")).status_code == 404


def test_a_run_says_its_upstream_calls_before_it_is_asked(client: Any) -> None:
    judge = {"id": "j", "kind": "judge", "rubric": "Says {{word}}", "column": 1}
    owner = local_user()
    item = conversations.create_conversation(owner=owner, title="Words")
    conversations.append_user_message(conversation=item, content="Say {{word}}.")
    grid = grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[{"label": "a", "changes": {}}, {"label": "b", "changes": {}}],
        rows=ROWS,
        concurrency=2,
        scorers=[PASSES[0], judge],
    )
    plan = client.get(f"/api/grids/{grid.id}/run/plan/").json()
    assert plan == {
        "cells": 4,
        "judges": 2,
        "repeats": 1,
        "calls": 6,
        "max_calls": 6,
        "answered": 0,
    }
    assert client.get(f"/api/grids/{grid.id}/run/plan/?column=0").json()["calls"] == 2
    assert client.get(f"/api/grids/{grid.id}/run/plan/?row=1").json()["calls"] == 3
    refused = client.get(f"/api/grids/{grid.id}/run/plan/?row=x")
    assert refused.status_code == 400 and refused.json()["error"]["field"] == "row"
    assert client.get(f"/api/grids/{grid.id}/experiments/9/").status_code == 404


async def test_ci_starts_a_run_with_a_token_and_reads_its_verdict(
    relay: RunManager, async_client: Any, settings: Any
) -> None:
    settings.PLAYGROUND_REQUIRE_LOGIN = True

    def people() -> tuple[EvalGrid, str, str]:
        users = get_user_model().objects
        alice = users.create_user("alice", password="pw-alice-123")
        bob = users.create_user("bob", password="pw-bob-123")
        mine, theirs = create_token(owner=alice, name="CI"), create_token(owner=bob, name="x")
        return make_grid(alice), mine.secret, theirs.secret

    grid, alice, bob = await database_sync_to_async(people)()
    as_alice = {"Authorization": f"Bearer {alice}"}
    refused = await served(
        async_client.post,
        f"/api/grids/{grid.id}/run/",
        {},
        "application/json",
        headers={"Authorization": f"Bearer {bob}"},
    )
    assert refused.status_code == 404, refused.content  # bob's token does not reach alice's grid
    started = await run_through_api(relay, async_client, grid, {}, as_alice)
    url = started["experiment"]["url"]
    verdict = (await read(async_client, f"{url}?min_pass_rate=0.9", as_alice))["verdict"]
    assert verdict["passed"] is False and verdict["reasons"] == ["pass rate 50.0% is below 90.0%"]
    anonymous = await served(async_client.get, url)
    assert anonymous.status_code in (401, 403)
    count = await database_sync_to_async(EvalExperiment.objects.filter(grid=grid).count)()
    assert count == 1


def labelled_grid() -> EvalGrid:
    """A grid whose second column runs the prompt labelled production (v1 of two)."""
    owner = local_user()
    first = services.create_prompt(owner=owner, name="terse", definition=TERSE)
    services.save_version(
        prompt=first.prompt, definition={**TERSE, "system": "Newer: {{word}}."}, author=owner
    )
    services.move_label(prompt=first.prompt, label="production", version=first, actor=None)
    item = conversations.create_conversation(owner=owner, title="Words")
    conversations.append_user_message(conversation=item, content="Say {{word}}.")
    return grids.create_grid(
        owner=owner,
        conversation=item,
        columns=[
            {"label": "plain", "changes": {}},
            {"label": "prod", "changes": {"prompt": "terse@production", "max_tokens": 300}},
        ],
        rows=[{"word": "alpha"}],
        concurrency=2,
    )


TERSE = {
    "system": "Answer in one line about {{word}}.",
    "variables": {"word": "tides"},
    "settings": {"temperature": 0.1, "max_tokens": 200},
}


def sent_system(grid: EvalGrid, column: int) -> Any:
    cell = EvalCell.objects.get(row__grid=grid, column=column)
    last = Run.objects.filter(conversation_id=cell.conversation_id).order_by("-started_at")[0]
    return last.request.get("system"), last.request.get("max_tokens")


async def test_a_column_naming_a_label_runs_its_version_and_the_experiment_records_it(
    relay: RunManager, async_client: Any
) -> None:
    grid = await database_sync_to_async(labelled_grid)()
    first = await run_through_api(relay, async_client, grid, {})
    one = await read(async_client, first["experiment"]["url"])
    plain, prod = one["ran"]["columns"]
    assert plain["prompt"] is None
    assert prod["prompt"] == {"prompt": "terse", "version": 1}
    assert prod["settings"]["system"] == TERSE["system"] and prod["settings"]["max_tokens"] == 300
    assert await database_sync_to_async(sent_system)(grid, 1) == (
        "Answer in one line about alpha.",
        300,
    )
    # Its own first column as the baseline of the other (a version against a proposal).
    against = await read(async_client, f"{first['experiment']['url']}?baseline=column:0")
    compared = against["compare"]
    assert compared["baseline_label"] == "plain of #1" and len(compared["columns"]) == 2
    assert [cell["column"] for cell in compared["cells"]] == [0, 1]
    assert compared["cells"][0]["duration_delta_ms"] == 0  # the column against itself
    wrong = await served(async_client.get, f"{first['experiment']['url']}?baseline=column:5")
    assert wrong.status_code == 400 and wrong.json()["error"]["field"] == "baseline"

    # The label moves to v2: the next run runs v2 and says so; experiment 1 still says v1.
    def move() -> None:
        prompt = services.get_prompt(owner=local_user(), name="terse")
        services.move_label(
            prompt=prompt, label="production", version=services.resolve(prompt, 2), actor=None
        )

    await database_sync_to_async(move)()
    second = await run_through_api(relay, async_client, grid, {"column": 1})
    two = await read(async_client, second["experiment"]["url"])
    assert two["ran"]["columns"][1]["prompt"] == {"prompt": "terse", "version": 2}
    assert await database_sync_to_async(sent_system)(grid, 1) == ("Newer: alpha.", 300)
    again = await read(async_client, first["experiment"]["url"])
    assert again["ran"]["columns"][1]["prompt"]["version"] == 1

    # The label gone, a run is refused naming the column, from the page's door and the CLI's.
    def unlabel() -> None:
        prompt = services.get_prompt(owner=local_user(), name="terse")
        services.remove_label(prompt=prompt, label="production", actor=None)

    await database_sync_to_async(unlabel)()
    refused = await served(async_client.post, f"/api/grids/{grid.id}/run/", {}, "application/json")
    assert refused.status_code == 400, refused.content
    assert refused.json()["error"]["field"] == "columns[1].changes.prompt"

    def command() -> str:
        with pytest.raises(CommandError) as caught:
            call_command("run_grid", str(grid.id), stdout=StringIO())
        return str(caught.value)

    said = await database_sync_to_async(command)()
    assert said.startswith("columns[1].changes.prompt: ") and "production" in said


def test_a_column_naming_a_missing_label_is_refused_at_creation(client: Any) -> None:
    owner = local_user()
    services.create_prompt(owner=owner, name="terse", definition=TERSE)
    item = conversations.create_conversation(owner=owner, title="Words")
    conversations.append_user_message(conversation=item, content="Say {{word}}.")
    columns = [{"label": "x", "changes": {"prompt": "terse@nowhere"}}]
    refused = client.post(
        f"/api/conversations/{item.id}/grids/",
        {"columns": columns, "rows": [{"word": "a"}]},
        content_type="application/json",
    )
    assert refused.status_code == 400
    assert refused.json()["error"]["field"] == "columns[0].changes.prompt"
    assert "no label 'nowhere'" in refused.json()["error"]["message"]
    assert not EvalGrid.objects.exists()


async def test_a_bundle_carries_the_experiments_as_they_were_frozen(
    relay: RunManager, async_client: Any
) -> None:
    grid = await database_sync_to_async(make_grid)()
    await run_through_api(relay, async_client, grid, {})
    one = await read(async_client, f"/api/grids/{grid.id}/experiments/1/")

    def round_trip() -> tuple[dict[str, Any], EvalGrid]:
        text = json.dumps(bundle.export_bundle(conversation=grid.conversation))
        imported = importing.import_request(owner=local_user(), body=json.loads(text))
        return json.loads(text), EvalGrid.objects.get(conversation=imported)

    sent, again = await database_sync_to_async(round_trip)()
    (carried,) = sent["grids"][0]["experiments"]
    cells = [cell for row in carried["results"]["rows"] for cell in row["cells"]]
    assert {(cell["conversation_id"], cell["run_id"]) for cell in cells} == {(None, None)}
    assert "conversation_id" not in carried["ran"]
    back = await read(async_client, f"/api/grids/{again.id}/experiments/1/")
    assert (back["number"], back["name"], back["created_at"]) == (
        1,
        one["name"],
        one["created_at"],
    )
    assert verdicts(back) == verdicts(one) == [True, False]
    assert back["totals"] == one["totals"] and back["ran"]["scorers"] == one["ran"]["scorers"]
    assert [r["cells"][0]["answer"] for r in back["rows"]] == [
        r["cells"][0]["answer"] for r in one["rows"]
    ]

    broken = json.loads(json.dumps(sent))
    broken["grids"][0]["experiments"][0]["finished_at"] = "yesterday"

    def refused() -> str | None:
        with pytest.raises(RequestValidationError) as caught:
            importing.import_request(owner=local_user(), body=broken)
        return caught.value.field

    assert await database_sync_to_async(refused)() == "grids[0].experiments[0].finished_at"


async def test_an_experiment_costs_what_its_cells_cost(
    relay: RunManager, async_client: Any, settings: Any
) -> None:
    settings.PLAYGROUND_PRICE_TABLE = read_price_table(PRICES, source="test")
    grid = await database_sync_to_async(make_grid)()
    await run_through_api(relay, async_client, grid, {})
    await run_through_api(relay, async_client, grid, {"row": 0})
    two = await read(async_client, f"/api/grids/{grid.id}/experiments/2/?baseline=1")
    one = await read(async_client, f"/api/grids/{grid.id}/experiments/1/")
    for view in (one, two):
        amounts = [Decimal(row["cells"][0]["cost"]["amount"]) for row in view["rows"]]
        assert all(amount > 0 for amount in amounts)
        totals = view["totals"]
        assert (Decimal(totals["cost"]), totals["currency"], totals["unpriced"]) == (
            sum(amounts),
            "USD",
            0,
        )
    # Row 1 was answered again: its cost is its new answer's, and the change is said.
    before, after = (Decimal(v["rows"][0]["cells"][0]["cost"]["amount"]) for v in (one, two))
    assert Decimal(two["compare"]["cells"][0]["cost_delta"]) == after - before
    assert two["rows"][1]["cells"][0]["cost"] == one["rows"][1]["cells"][0]["cost"]
