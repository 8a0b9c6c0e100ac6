"""The real promptfoo CLI on a grid's exported config agrees with the grid, cell by cell.

A grid (two columns, one with its own system prompt and an output schema; three rows; twelve
scorers of every column, a judge among them) runs on the shared live server's built-in
simulator; its config, exported with ``?simulator=1``, is run by ``promptfoo eval`` (the pinned
CLI ``python -m tests.ensure_tools`` installs, ``tools.npm_tools.PROMPTFOO``) against the same
simulator over loopback HTTP: no network (telemetry, update checks and sharing off, a
temporary home for its database and cache). Every cell's answer, and every scorer's verdict,
must be promptfoo's too; the judge is the simulator's deterministic one, asked through the
exported ``llm-rubric``'s own grader and prompt.

A cost bound is left out: promptfoo prices only the models it knows (``simulator-1`` is not
one), so its ``cost`` assertion is an error there, where the grid says "no price set".
One promptfoo run, six cells.

A grid that repeats its cells exports ``evaluateOptions.repeat``: promptfoo answers each test
that many times, each a result of its own, and a cell passes in either only when every repeat
did. The simulator answers a grid's later repeats as other attempts (a regenerate's
``x-playground-variant``), which promptfoo does not send: its repeats of one request answer
alike, each with the verdicts of the grid's first repeat.
"""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import httpx
import yaml  # type: ignore[import-untyped]

from tests.live_support import wait_for
from tools.npm_tools import PROMPTFOO

SCHEMA = {
    "type": "object",
    "properties": {
        "kind": {"type": "string", "enum": ["tide"]},
        "n": {"type": "integer", "minimum": 3, "maximum": 3},
    },
    "required": ["kind", "n"],
    "additionalProperties": False,
}
COLUMNS = [
    {"label": "plain", "changes": {}},
    {
        "label": "json",
        "changes": {
            "system": "Reply in JSON.",
            "output_config": {"format": {"type": "json_schema", "schema": SCHEMA}},
        },
    },
]
ROWS = [{"topic": "tides"}, {"topic": "Owls"}, {"topic": "volcanoes"}]
SCORERS = [
    {"kind": "equals", "value": '{"kind": "tide", "n": 3}'},
    {"kind": "contains", "value": "{{topic}}"},
    {"kind": "contains", "value": "{{topic}}", "ignore_case": True},
    {"kind": "not_contains", "value": "zebra"},
    {"kind": "contains_any", "values": ["tide", "owl"]},
    {"kind": "regex", "pattern": "\\*\\*[A-Z][a-z]+\\*\\*"},
    {"kind": "starts_with", "value": "Here is"},
    {"kind": "is_json"},
    {"kind": "fits_schema", "json_schema": SCHEMA},
    {"kind": "duration_max", "max_ms": 120_000},
    {"kind": "judge", "rubric": "Mentions '{{topic}}'", "threshold": 0.5},
    {"kind": "contains_json", "json_schema": SCHEMA},
]


class Api:
    """The JSON API as the page calls it (the CSRF cookie and header)."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=60, trust_env=False)
        self.http.get("/").raise_for_status()

    def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {"X-CSRFToken": self.http.cookies.get("csrftoken", "")}
        return self.http.request(method, path, json=body, headers=headers)


def run_grid(
    api: Api,
    *,
    columns: list[dict[str, Any]] = COLUMNS,
    scorers: list[dict[str, Any]] = SCORERS,
    repeats: int = 1,
) -> tuple[str, list[dict[str, Any]]]:
    imported = api.call(
        "POST",
        "/api/import/",
        {"request": {"model": "simulator-1", "max_tokens": 300, "system": "Be brief.",
                     "messages": [{"role": "user", "content": "Explain {{topic}} to a child."}]}},
    )  # fmt: skip
    assert imported.status_code == 201, imported.text
    made = api.call(
        "POST",
        f"/api/conversations/{imported.json()['id']}/grids/",
        {
            "columns": columns,
            "rows": ROWS,
            "scorers": scorers,
            "concurrency": 4,
            "options": {"repeats": repeats},
        },
    )
    assert made.status_code == 201, made.text
    grid_id = made.json()["id"]
    assert api.call("POST", f"/api/grids/{grid_id}/run/", {}).status_code == 202

    def scored() -> list[dict[str, Any]] | None:
        view = api.call("GET", f"/api/grids/{grid_id}/").json()
        cells = [{**cell, "row": row["position"]} for row in view["rows"] for cell in row["cells"]]
        done = all(
            cell["status"] == "complete"
            and len(cell["scores"]) == len(scorers)
            and all(score["passed"] is not None for score in cell["scores"])
            and (repeats == 1 or (cell["repeats"] or {}).get("done") == repeats)
            for cell in cells
        )
        return cells if done else None

    return grid_id, wait_for(scored, what="the grid's cells scored", deadline=120)


def promptfoo_eval(config: str, tmp_path: Path) -> list[dict[str, Any]]:
    (tmp_path / "promptfooconfig.yaml").write_text(config, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "PROMPTFOO_CONFIG_DIR": str(home / ".promptfoo"),
        "PROMPTFOO_DISABLE_TELEMETRY": "1",
        "PROMPTFOO_DISABLE_UPDATE": "1",
        "PROMPTFOO_DISABLE_SHARING": "1",
        "PROMPTFOO_DISABLE_REMOTE_GENERATION": "1",
        "ANTHROPIC_API_KEY": "any key: the simulator takes any in local mode",
    }
    command = [str(PROMPTFOO.path()), "eval", "-c", "promptfooconfig.yaml", "-o", "out.json"]
    command += ["--no-cache", "--no-table", "--no-progress-bar", "--max-concurrency", "4"]
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True)
    # 100: it ran, and some assertion failed (as some must here).
    assert done.returncode in (0, 100), done.stdout[-3000:] + done.stderr[-3000:]
    results: list[dict[str, Any]] = json.loads((tmp_path / "out.json").read_text())["results"][
        "results"
    ]
    return results


def test_promptfoo_runs_the_exported_grid_to_the_same_verdicts(
    live_server_proc: Any, tmp_path: Path
) -> None:
    api = Api(live_server_proc.url)
    grid_id, cells = run_grid(api)
    exported = api.call("GET", f"/api/grids/{grid_id}/promptfoo.yaml?simulator=1")
    assert exported.status_code == 200 and exported.headers["X-Not-Exported"] == "0"
    config = yaml.safe_load(exported.text)
    assert len(config["prompts"]) == 2  # the json column's own system prompt

    results = promptfoo_eval(exported.text, tmp_path)
    labels = [column["label"] for column in COLUMNS]
    theirs = {
        (result["testIdx"], labels.index(result["provider"]["label"])): result for result in results
    }
    assert len(theirs) == len(cells) == len(ROWS) * len(COLUMNS)
    verdicts_seen = set()
    for cell in cells:
        place = (cell["row"], cell["column"])
        result = theirs[place]
        output = result["response"]["output"]
        assert isinstance(output, str), place  # the answer's text, as the grid scores it
        # The grid's JSON cuts a long answer (``answer_cut``); what it shows is promptfoo's start.
        assert output.startswith(cell["answer"]) if cell["answer_cut"] else output == cell["answer"]
        ours = [score["passed"] for score in cell["scores"]]
        components = result["gradingResult"]["componentResults"]
        assert [c["pass"] for c in components] == ours, (
            place,
            [(s["kind"], s["reason"]) for s in cell["scores"]],
            [(c["assertion"]["type"], c.get("reason")) for c in components],
        )
        assert result["success"] is all(ours), place
        verdicts_seen.update(enumerate(ours))
    # Each scorer but the two every answer passes (not_contains, the time bound) both passed
    # and failed somewhere: an agreement on every verdict, not on a constant.
    assert {scorer for scorer, passed in verdicts_seen if not passed} == set(
        range(len(SCORERS))
    ) - {3, 9}


def test_a_grids_repeats_are_promptfoos_each_repeat_a_result_and_a_cell_passes_on_all(
    live_server_proc: Any, tmp_path: Path
) -> None:
    repeats = 3
    scorers = [
        {"kind": "contains", "value": "{{topic}}"},
        {"kind": "contains", "value": "{{topic}}", "ignore_case": True},
        {"kind": "starts_with", "value": "Here is"},
    ]
    api = Api(live_server_proc.url)
    grid_id, cells = run_grid(api, columns=COLUMNS[:1], scorers=scorers, repeats=repeats)
    exported = api.call("GET", f"/api/grids/{grid_id}/promptfoo.yaml?simulator=1")
    assert exported.headers["X-Not-Exported"] == "0"
    assert yaml.safe_load(exported.text)["evaluateOptions"]["repeat"] == repeats

    results = promptfoo_eval(exported.text, tmp_path)
    # promptfoo numbers each repeat of a test as a test: row r's are r*N to r*N+N-1.
    theirs: dict[int, list[dict[str, Any]]] = {}
    for result in results:
        theirs.setdefault(result["testIdx"] // repeats, []).append(result)
    assert sorted(theirs) == [cell["row"] for cell in cells]
    for cell in cells:
        runs = cell["repeats"]["runs"]
        assert len(runs) == len(theirs[cell["row"]]) == repeats
        first = [score["passed"] for score in runs[0]["scores"]]
        for result in theirs[cell["row"]]:
            components = result["gradingResult"]["componentResults"]
            assert [c["pass"] for c in components] == first, cell["row"]
        # Both pass a cell only when every repeat passed.
        assert cell["passed"] is all(run["passed"] for run in runs)
        assert all(r["success"] for r in theirs[cell["row"]]) is all(first)
    # Some cell fails somewhere and some passes: agreement on verdicts, not on a constant.
    assert {cell["passed"] for cell in cells} == {True, False}
