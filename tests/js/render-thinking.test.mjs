// Thinking blocks (render/blocks.js under a DOM): open while streaming, "Thought for N s" when
// done, the person's choice kept. Moved from Chromium (tests/browser/test_render_thinking.py):
// nothing here needs a browser.
import assert from "node:assert/strict";
import { test } from "node:test";

import { newTurn, renderMessage, Stream, textOf } from "./dom-support.mjs";

// A person's choice is remembered per message (and kept in localStorage); each test's turn is
// a message of its own, as each had a fresh page in Chromium.
let turns = 0;
const thinkingStream = (id = `msg_think_${++turns}`) =>
  new Stream()
    .messageStart(id)
    .start(0, { type: "thinking", thinking: "", signature: "" })
    .thinking(0, "Let me think ");

test("thinking is open while streaming", () => {
  const live = newTurn();
  live.apply(thinkingStream().take());

  const thinking = live.element.querySelector(".pg-thinking");
  assert.equal(thinking.dataset.thinking, "open");
  assert.equal(textOf(thinking.querySelector("summary")), "Thinking…");
  assert.equal(textOf(thinking.querySelector(".pg-thinking-body")), "Let me think");
  assert.equal(thinking.querySelectorAll(".pg-live").length, 1);
});

test("thinking collapses to its duration", () => {
  const live = newTurn();
  const stream = thinkingStream().thinking(0, "about it.", 2500);
  stream.delta(0, { type: "signature_delta", signature: "sig" }).stop(0, 500);
  live.apply(stream.take());

  const thinking = live.element.querySelector(".pg-thinking");
  assert.equal(thinking.dataset.thinking, "closed");
  assert.equal(textOf(thinking.querySelector("summary")), "Thought for 3 s");
  assert.equal(thinking.querySelectorAll(".pg-live").length, 0);
  assert.equal(thinking.open, false);
});

test("thinking is kept open when the person opened it", () => {
  const live = newTurn();
  const stream = thinkingStream();
  live.apply(stream.take());
  const thinking = live.element.querySelector(".pg-thinking");
  const summary = thinking.querySelector("summary");
  summary.click(); // closes it
  assert.equal(thinking.dataset.thinking, "closed");
  summary.click(); // and opens it again: a choice made while it streamed
  assert.equal(thinking.dataset.thinking, "open");

  live.apply(stream.thinking(0, "done").stop(0).end().take());
  live.finish();

  assert.match(textOf(thinking.querySelector("summary")), /Thought for/);
  assert.equal(thinking.dataset.thinking, "open");
});

test("the choice survives rendering the stored turn", () => {
  const live = newTurn();
  live.apply(thinkingStream("msg_kept").thinking(0, "done").stop(0, 1200).end().take());
  live.finish();
  const shown = live.element.querySelector(".pg-thinking");
  assert.equal(shown.dataset.thinking, "closed");
  shown.querySelector("summary").click();
  assert.equal(shown.dataset.thinking, "open");

  const stored = renderMessage(live.turn.message).querySelector(".pg-thinking");

  assert.equal(stored.dataset.thinking, "open");
  assert.equal(textOf(stored.querySelector("summary")), "Thought for 1 s");
});

test("thinking cut off is collapsed at finish", () => {
  const live = newTurn();
  live.apply(thinkingStream().take());
  live.finish({ status: "stopped", stop_reason: "" });

  const thinking = live.element.querySelector(".pg-thinking");
  assert.equal(thinking.dataset.state, "incomplete");
  assert.equal(thinking.dataset.thinking, "closed");
});

test("redacted thinking shows no content", () => {
  const message = {
    role: "assistant",
    content: [{ type: "redacted_thinking", data: "SECRET-OPAQUE-DATA" }],
  };
  const turn = renderMessage(message);

  const redacted = turn.querySelector("[data-block-type='redacted_thinking']");
  assert.equal(textOf(redacted.querySelector("summary")), "Thinking redacted");
  assert.equal(redacted.hasAttribute("open"), false);
  assert.doesNotMatch(turn.textContent, /SECRET-OPAQUE-DATA/);
});

// Thinking with display "omitted" (Anthropic: only the signature comes, the text is left out)
// drew an empty box; it says so, live and stored (issue 43 item 19).
test("a thinking block whose text the API left out says so, live and stored", () => {
  const live = newTurn();
  const stream = new Stream()
    .messageStart(`msg_omitted_${++turns}`)
    .start(0, { type: "thinking", thinking: "", signature: "" })
    .delta(0, { type: "signature_delta", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" })
    .stop(0, 300);
  live.apply(stream.take());
  const thinking = live.element.querySelector(".pg-thinking");
  assert.equal(thinking.dataset.thinkingText, "omitted");
  assert.match(textOf(thinking.querySelector(".pg-thinking-body")), /left the reasoning out/);

  const block = { type: "thinking", thinking: "", signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3h" };
  const stored = renderMessage({ role: "assistant", content: [block] }).querySelector(".pg-thinking");
  assert.equal(stored.dataset.thinkingText, "omitted");
  assert.match(textOf(stored.querySelector(".pg-thinking-body")), /signature is kept/);

  const none = renderMessage({ role: "assistant", content: [{ type: "thinking", thinking: "", signature: "" }] });
  assert.equal(none.querySelector(".pg-thinking").dataset.thinkingText, "none");
  // A block with text is drawn as ever.
  const full = renderMessage({ role: "assistant", content: [{ type: "thinking", thinking: "Hm.", signature: "s" }] });
  assert.equal(full.querySelector(".pg-thinking").dataset.thinkingText, undefined);
});
