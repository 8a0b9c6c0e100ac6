// The request editor's Send (static/playground/request-editor.js) under happy-dom: off while
// the page cannot start a run, and saying why beside itself (an action held for the socket
// left it off with no word); on again once the page can.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";

const { RequestEditor } = await import("../../static/playground/request-editor.js");
const { WAITING_TEXT, cannotActReason } = await import("../../static/playground/held-send.js");

const MARKUP = `
  <button type="button" data-action="edit-request">Edit request…</button>
  <dialog data-request-editor data-request-url="/api/conversations/c1/request/">
    <p data-request-error hidden></p>
    <textarea data-request-json></textarea>
    <ul data-request-warnings hidden></ul>
    <ol data-request-diff></ol>
    <span data-request-status></span>
    <button type="button" data-action="reset-request">Reset</button>
    <button type="button" data-action="check-request">Check</button>
    <span data-request-send-why hidden></span>
    <button type="button" data-action="send-request">Send this request</button>
  </dialog>`;

test("Send is off while an action waits for the socket, says so, and comes back when it opens", async () => {
  window.document.body.innerHTML = MARKUP;
  const draft = { model: "m", max_tokens: 64, messages: [{ role: "user", content: "hi" }], stream: true };
  globalThis.fetch = async () =>
    new Response(JSON.stringify({ request: draft }), { status: 200, headers: { "Content-Type": "application/json" } });
  let state = { held: null, connection: "connecting" };
  const dialog = window.document.querySelector("[data-request-editor]");
  const editor = new RequestEditor(dialog, {
    openers: window.document.querySelectorAll("[data-action='edit-request']"),
    turn: () => ({ content: "hi" }),
    blocked: () => cannotActReason(state),
    onSend: () => {},
  });
  await editor.open(window.document.querySelector("[data-action='edit-request']"));
  const send = dialog.querySelector("[data-action='send-request']");
  const why = dialog.querySelector("[data-request-send-why]");
  assert.equal(dialog.dataset.requestState, "ready");
  assert.equal(send.disabled, false); // connecting, nothing held: a send would be held
  assert.equal(why.hidden, true);
  state = { held: { action: "send", content: "hi" }, connection: "connecting" };
  editor.refresh();
  assert.equal(send.disabled, true);
  assert.equal(why.hidden, false);
  assert.equal(why.textContent, WAITING_TEXT);
  assert.equal(send.title, WAITING_TEXT);
  state = { held: null, connection: "open" }; // the hello sent the held action
  editor.refresh();
  assert.equal(send.disabled, false);
  assert.equal(why.hidden, true);
  assert.equal(send.title, "");
});
