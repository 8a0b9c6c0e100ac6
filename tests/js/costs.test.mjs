import { test } from "node:test";
import assert from "node:assert/strict";

import { addCost, amountNanos, costText, moneyText, nanosAmount, totalCostText } from "../../static/playground/format.js";

test("a run's cost reads as money, or no price set, or nothing while it runs", () => {
  assert.equal(costText({ amount: "0.0063771", currency: "USD" }), "$0.00638");
  assert.equal(costText({ amount: "12.345", currency: "EUR" }), "€12.35");
  assert.equal(costText({ amount: null, currency: null, unpriced: "no price set for a / b" }), "no price set");
  assert.equal(costText(null), null);
  assert.equal(moneyText("1", "NOT-A-CODE"), "1 NOT-A-CODE");
});

test("amounts add exactly in billionths, however many runs", () => {
  assert.equal(amountNanos("0.000000001"), 1n);
  assert.equal(nanosAmount(amountNanos("12.5")), "12.5");
  let total = null;
  for (let i = 0; i < 10; i += 1) total = addCost(total, { amount: "0.1", currency: "USD" });
  assert.deepEqual(total, { amount: "1", currency: "USD", unpriced_runs: 0 });
  total = addCost(total, { amount: null, currency: null, unpriced: "no price set" });
  assert.equal(total.unpriced_runs, 1);
  assert.equal(totalCostText(total), "$1.00 + 1 run with no price set");
  assert.equal(totalCostText({ amount: null, currency: "USD", unpriced_runs: 2 }), "no price set");
  assert.equal(totalCostText({ amount: null, currency: "USD", unpriced_runs: 0 }), "");
  assert.deepEqual(addCost(total, null), total);
});
