import { test } from "node:test";
import assert from "node:assert/strict";

import { chartLines, compareLines, confirmText, experimentLine, flipWord } from "../../static/playground/grid/experiment-view.js";

test("the chart puts each column's pass rate over the experiments, oldest first", () => {
  const experiments = [
    { number: 3, pass_rates: [1, null] },
    { number: 2, pass_rates: [0.5, 0] },
    { number: 1, pass_rates: [0, 1] },
  ];
  const [first, second] = chartLines(experiments, { width: 100, height: 10 });
  assert.deepEqual(first.map((p) => [p.number, p.x, p.y]), [[1, 0, 10], [2, 50, 5], [3, 100, 0]]);
  // An experiment without a rate for the column (nothing judged) is left out, not drawn as 0.
  assert.deepEqual(second.map((p) => [p.number, p.y]), [[1, 0], [2, 10]]);
  assert.deepEqual(chartLines([{ number: 1, pass_rates: [0.5] }], { width: 100, height: 10 }), [[{ x: 50, y: 5, number: 1, rate: 0.5 }]]);
});

test("an experiment's line says its pass rate, what ran and its cost, or that it runs", () => {
  const totals = { pass_rate: 0.5, passed: 1, judged: 2, ran: 2, cost: null, currency: null, unpriced: 2 };
  assert.equal(experimentLine({ number: 2, name: "Words #2", status: "finished", totals }), "#2 · Words #2 · pass 50% (1/2) · 2 cell(s) run · no price set");
  assert.equal(experimentLine({ number: 3, name: "Words #3", status: "finished", totals: { ...totals, cost: "0.0012", currency: "USD", unpriced: 0 } }), "#3 · Words #3 · pass 50% (1/2) · 2 cell(s) run · 0.0012 USD");
  assert.equal(experimentLine({ number: 4, name: "Words #4", status: "running", totals: null }), "#4 · Words #4 · running");
});

test("an experiment against its baseline says its flips and each column's deltas", () => {
  const compare = {
    experiment: 2,
    baseline: 1,
    pass_to_fail: 1,
    fail_to_pass: 0,
    unmatched: 0,
    cells: [],
    columns: [{ column: 0, pass_rate: { before: 0.5, after: 0, delta: -0.5 }, scorers: { clean: { name: "Clean", delta: -0.5 } }, cost: { delta: null }, median_ms: { delta: 40 } }],
  };
  assert.deepEqual(compareLines(compare, [{ label: "plain" }]), ["#2 against #1: 1 pass→fail, 0 fail→pass", "plain: pass 50% → 0% (-50 pts) · Clean -50 pts · median +40 ms"]);
  assert.match(compareLines({ ...compare, unmatched: 2 }, [])[0], /2 cell\(s\) in one only$/);
  assert.equal(compareLines({ ...compare, baseline_label: "v2 of #2" }, [])[0], "#2 against v2 of #2: 1 pass→fail, 0 fail→pass");
  assert.equal(flipWord("pass_to_fail"), "pass → fail");
  assert.equal(flipWord(null), "");
});

test("a re-run asks first, saying its upstream calls; a first run does not", () => {
  assert.equal(confirmText({ cells: 2, judges: 0, calls: 2, answered: 0 }), null);
  assert.equal(confirmText({ cells: 4, judges: 2, calls: 6, answered: 4 }), "Run 4 cell(s) again? This makes 6 upstream call(s) (4 answer(s) and 2 judge call(s)); 4 earlier answer(s) stay in their experiment.");
});
