// The usage words of a turn's footer and of the share page's run line (static/playground/turn-meta.js):
// the upstream's counts, or an estimate, marked, when a run cut short never sent its output count.
import assert from "node:assert/strict";
import { test } from "node:test";

import { MIN_RATE_SPAN_MS, tokensPerSecond, usageWords } from "../../static/playground/turn-meta.js";

const text = (chars) => [{ type: "text", text: "x".repeat(chars) }];

test("a run stopped before the upstream's count shows an estimate, never out 0 under text", () => {
  const stopped = { status: "stopped", usage: { input_tokens: 14, output_tokens: 0 } };
  assert.deepEqual(usageWords(stopped, text(80)), { text: "in 14 · out ≈20 (estimated)", estimated: true });
});

test("a complete run, or one whose count came, shows the upstream's counts", () => {
  const complete = { status: "complete", usage: { input_tokens: 14, output_tokens: 19 } };
  assert.deepEqual(usageWords(complete, text(80)), { text: "in 14 · out 19", estimated: false });
  const counted = { status: "stopped", usage: { input_tokens: 14, output_tokens: 18 } };
  assert.equal(usageWords(counted, text(80)).estimated, false);
  // No answer shown: nothing to estimate from.
  assert.equal(usageWords({ status: "failed", usage: { input_tokens: 3, output_tokens: 0 } }, []).text, "in 3 · out 0");
});

test("a speed is given over a generation long enough to measure, not for an answer in one burst", () => {
  const run = (firstTokenMs, durationMs) => ({ usage: { output_tokens: 196 }, timings: { first_token_ms: firstTokenMs, duration_ms: durationMs } });
  assert.equal(tokensPerSecond(run(31, 32)), null); // the simulator at full speed: 1 ms, once "196000.0 tok/s"
  assert.equal(tokensPerSecond(run(100, 100 + MIN_RATE_SPAN_MS - 1)), null);
  assert.equal(tokensPerSecond(run(500, 2500)), 98);
  assert.equal(tokensPerSecond({ usage: { output_tokens: 0 }, timings: { first_token_ms: 10, duration_ms: 2000 } }), null);
});
