// The budget chip (static/playground/budget-chip.js) under happy-dom, against a fake server that
// answers GET /api/usage/limits/ as playground/usage/views.py does and is held open on demand, so
// a burst of run ends is seen to cost one request in flight and one after it, never one each.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";

const { BudgetChip } = await import("../../static/playground/budget-chip.js");

const limit = (left, fraction) => ({
  id: 1,
  text: "your daily limit of 10,000 tokens (all profiles)",
  left: String(left),
  left_text: `${left.toLocaleString("en")} tokens left today`,
  fraction_left: fraction,
  resets_at: "2030-01-02T00:00:00+00:00",
});

/** A server whose answers wait until `release()`; `asked` counts the requests. */
function heldServer(answers) {
  const state = { asked: 0, waiting: [] };
  globalThis.fetch = async () => {
    state.asked += 1;
    const body = answers[Math.min(state.asked, answers.length) - 1];
    await new Promise((resolve) => state.waiting.push(resolve));
    return new Response(JSON.stringify({ limits: body }), { status: 200, headers: { "Content-Type": "application/json" } });
  };
  state.release = async () => {
    while (state.waiting.length === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    state.waiting.shift()();
  };
  return state;
}

function mount(limits) {
  window.document.body.innerHTML = `<span data-budget-left hidden></span>`;
  const chip = window.document.querySelector("[data-budget-left]");
  return { chip, budget: new BudgetChip(chip, { url: "/api/usage/limits/", limits }) };
}

test("the tightest limit is shown, every limit in its title; none, no chip", () => {
  const { chip } = mount([limit(1200, 0.12), { ...limit(5, 0.5), text: "the monthly limit for everyone of 10 USD (all profiles)", left: "5 USD" }]);
  assert.equal(chip.hidden, false);
  assert.equal(chip.textContent, "1,200 tokens left today");
  assert.equal(chip.dataset.out, "false");
  assert.match(chip.title, /your daily limit of 10,000 tokens \(all profiles\): 1200 left, resets 2030-01-02 00:00 UTC\nthe monthly limit/);
  assert.equal(mount([]).chip.hidden, true);
});

test("runs ending together ask once, then once more for the ends that came meanwhile", async () => {
  const server = heldServer([[limit(900, 0.09)], [limit(0, 0)]]);
  const { chip, budget } = mount([limit(1200, 0.12)]);
  const first = budget.refresh();
  budget.refresh(); // a compare's second column, a grid's next cell: while the first is out
  budget.refresh();
  await server.release();
  await server.release();
  await first;
  assert.equal(server.asked, 2);
  assert.equal(chip.textContent, "0 tokens left today");
  assert.equal(chip.dataset.out, "true");
});

test("with no limit when the page was drawn, nothing is asked", async () => {
  const server = heldServer([[]]);
  const { budget } = mount([]);
  await budget.refresh();
  assert.equal(server.asked, 0);
});
