import { test } from "node:test";
import assert from "node:assert/strict";

import * as view from "../../static/playground/grid/grid-view.js";

const { changesLine, columnChanges, gridIsLive, metricsLine, pastedRows, schemaLine, scoreLines, scorerRatesLine, summaryLine, verdictWord } = view;

test("a cell's metrics read in order and say nothing before it ran", () => {
  assert.equal(metricsLine({ ttft_ms: null, duration_ms: null, tokens_per_s: null, usage: null }), "");
  const line = metricsLine({ ttft_ms: 120, duration_ms: 1500, tokens_per_s: 45.5, usage: { input_tokens: 12, output_tokens: 80 } });
  assert.equal(line, "TTFT 120 ms · 1.50 s · 45.5 tok/s · in 12 · out 80");
});

test("a schema check names each failure by its path", () => {
  assert.equal(schemaLine(null), null);
  assert.deepEqual(schemaLine({ fits: true, problems: [] }), { fits: true, text: "schema: fits" });
  const failed = schemaLine({ fits: false, problems: [{ path: "$.age", message: "'x' is not of type 'integer'" }] });
  assert.equal(failed.fits, false);
  assert.equal(failed.text, "schema: 1 failed: $.age 'x' is not of type 'integer'");
});

test("a column's summary says pass rate, median, tokens and ratings", () => {
  const line = summaryLine({ cells: 4, done: 3, passed: 2, pass_rate: 0.667, median_ms: 900, input_tokens: 30, output_tokens: 90, good: 1, bad: 1 });
  assert.equal(line, "3/4 done · pass 67% · median 900 ms · in 30 · out 90 tok · good 1 · bad 1");
  assert.equal(summaryLine({ cells: 2, done: 0, pass_rate: null, median_ms: null, input_tokens: 0, output_tokens: 0, good: 0, bad: 0 }), "0/2 done");
});

test("pasted test cases are JSON Lines when they open an object, else CSV", () => {
  assert.deepEqual(pastedRows('\n{"topic": "owls"}\n'), { jsonl: '\n{"topic": "owls"}\n' });
  assert.deepEqual(pastedRows("topic\nowls\n"), { csv: "topic\nowls\n" });
  assert.equal(pastedRows("  \n"), null);
});

test("a column's blank fields change nothing and numbers are numbers", () => {
  assert.deepEqual(columnChanges({ model: "", system: "Be terse.", temperature: "0.2", max_tokens: "" }), {
    system: "Be terse.",
    temperature: 0.2,
  });
  assert.equal(changesLine({}), "the conversation's settings");
  assert.equal(changesLine({ system: "x", temperature: 0.2 }), "system prompt changed · temperature 0.2");
});

test("a grid is live while a cell is queued or running", () => {
  const grid = (status) => ({ rows: [{ cells: [{ status: "complete" }, { status }] }] });
  assert.equal(gridIsLive(grid("running")), true);
  assert.equal(gridIsLive(grid("queued")), true);
  assert.equal(gridIsLive(grid("failed")), false);
});

test("a grid whose job goes on is live with no cell running (a loop between two turns)", () => {
  assert.equal(gridIsLive({ running: true, rows: [{ cells: [{ status: "complete", scores: [] }] }] }), true);
});

test("a loop gone on by hand keeps the grid live until its whole loop is scored", () => {
  const grid = (status) => ({ rows: [{ cells: [{ status, scores: [] }] }] });
  assert.equal(gridIsLive(grid("scoring")), true);
  assert.equal(gridIsLive(grid("complete")), false);
});

test("a cell's verdict and each scorer's reason, and a column's rate per scorer", () => {
  const scores = [
    { scorer: "a", name: "Contains", kind: "contains", passed: true, score: null, reason: "contains 'Paris'" },
    { scorer: "b", name: "Judge", kind: "judge", passed: false, score: 0.333333, reason: "does not mention 'tides'" },
    { scorer: "c", name: "Judge 2", kind: "judge", passed: null, score: null, reason: "judging…" },
  ];
  assert.deepEqual(scoreLines(scores).map((line) => line.text), [
    "✓ Contains: contains 'Paris'",
    "✗ Judge 0.33: does not mention 'tides'",
    "… Judge 2: judging…",
  ]);
  assert.equal(verdictWord({ status: "complete", passed: false, scores }), "failed");
  assert.equal(verdictWord({ status: "complete", passed: null, scores }), "judging…");
  assert.equal(verdictWord({ status: "not_run", passed: null, scores: [] }), "");
  const summary = { scorers: { a: { name: "Contains", judged: 2, passed: 2, pass_rate: 1 }, b: { name: "Judge", judged: 0, passed: 0, pass_rate: null } } };
  assert.equal(scorerRatesLine(summary), "Contains 100% · Judge —");
  // A scorer id that reads as an integer comes first among a parsed object's keys: the line
  // still follows the scorers' order (position), as the server sent it.
  const numericId = JSON.parse('{"abcdef01": {"name": "Contains", "position": 0, "judged": 2, "passed": 2, "pass_rate": 1}, "12345678": {"name": "Judge", "position": 1, "judged": 1, "passed": 0, "pass_rate": 0}}');
  assert.deepEqual(Object.keys(numericId), ["12345678", "abcdef01"]);
  assert.equal(scorerRatesLine({ scorers: numericId }), "Contains 100% · Judge 0%");
  const priced = { cells: 2, done: 2, pass_rate: 0.5, median_ms: null, input_tokens: 0, output_tokens: 0, good: 0, bad: 0, cost: { amount: "0.0042", currency: "USD", unpriced: 1 } };
  assert.equal(summaryLine(priced), "2/2 done · pass 50% · $0.0042 + 1 with no price set");
  assert.equal(metricsLine({ ttft_ms: null, duration_ms: null, tokens_per_s: null, usage: null, cost: { amount: null } }), "no price set");
});
