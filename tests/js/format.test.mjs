// The page's words for values (static/playground/format.js), one copy for every page.
import assert from "node:assert/strict";
import { test } from "node:test";

import { abbreviateBase64, formatMs, pretty, sizeText, usageText } from "../../static/playground/format.js";

test("pretty: indented JSON, nothing for undefined, never a throw", () => {
  assert.equal(pretty({ a: [1] }), '{\n  "a": [\n    1\n  ]\n}');
  assert.equal(pretty(undefined), "");
  const loop = {};
  loop.self = loop;
  assert.equal(pretty(loop), "[object Object]");
});

test("usage: in and out, cache only when used", () => {
  assert.equal(usageText({ input_tokens: 12, output_tokens: 48 }), "in 12 · out 48");
  assert.equal(
    usageText({ input_tokens: 1, output_tokens: 2, cache_read_input_tokens: 5, cache_creation_input_tokens: 3 }),
    "in 1 · out 2 · cache read 5 · cache write 3",
  );
  assert.equal(usageText({ input_tokens: 1, cache_read_input_tokens: 0 }), "in 1");
  assert.equal(usageText(null), "");
  assert.equal(usageText({}), "");
});

test("durations: ms below a second, seconds with two decimals above", () => {
  assert.equal(formatMs(850), "850 ms");
  assert.equal(formatMs(1250), "1.25 s");
  assert.equal(formatMs(undefined), null);
  assert.equal(formatMs(Number.NaN), null);
});

test("files: a long base64 string is shortened for reading, short strings stay whole", () => {
  const data = "iVBORw0KGgoAAAANSUhEUgAA".padEnd(1000, "A") + "==";
  const text = JSON.stringify({ data, signature: "c2lnbmF0dXJl", text: "hello" }, null, 2);
  const shown = abbreviateBase64(text);
  assert.ok(shown.includes('"iVBORw0KGgoAAAANSUhEUgAA… (1,002 base64 characters'));
  assert.ok(!shown.includes(data));
  assert.ok(shown.includes('"c2lnbmF0dXJl"') && shown.includes('"hello"'));
  assert.equal(abbreviateBase64('{"a": "short"}'), '{"a": "short"}');
});

test("sizes: bytes with separators below a megabyte, MB above", () => {
  assert.equal(sizeText(12345), "12,345 bytes");
  assert.equal(sizeText(5 * 1024 * 1024), "5.0 MB");
  assert.equal(sizeText(Number.NaN), "");
});

test("usage says how many of the output tokens were thinking, where the upstream says", () => {
  // output_tokens_details.thinking_tokens was shown nowhere (issue 43 item 19).
  const usage = { input_tokens: 9, output_tokens: 120, output_tokens_details: { thinking_tokens: 96 } };
  assert.equal(usageText(usage), "in 9 · out 120 (thinking 96)");
  assert.equal(usageText({ output_tokens: 3, output_tokens_details: {} }), "out 3");
});
