// An action step mode or replay made by itself (static/playground/step-mode.js, replay.js),
// refused: the server's error frame, or held for a connection that never opened. The reducer
// counts the refusal (held-send.js refuse); each module then stops waiting for a run that will
// not come (it said "sending…" / "Replaying…" for good) and does not send again by itself.
// Under happy-dom, with the page's state as debugger-tools.js hands it to them.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";
import { run } from "./reducer-support.mjs";

const { StepMode } = await import("../../static/playground/step-mode.js");
const { ReplayView } = await import("../../static/playground/replay.js");
const { canAct } = await import("../../static/playground/held-send.js");
const { initialState } = await import("../../static/playground/state.js");

const text = (t) => [{ type: "text", text: t }];
const call = { type: "tool_use", id: "t1", name: "get_weather", input: { city: "Paris" } };
const page = (messages = []) => initialState({ id: "c1", title: "", settings: {}, profile: "p", model: "m", messages, last_run: null });
const connection = (state, detail = {}) => ({ type: "connection", connection: state, detail });
const hello = { type: "hello", conversation_id: "c1", live_group: null };
const refusedBy = (action) => ({ type: "error", action, error: { code: "busy", message: "a run is already live" } });

test("a refusal is counted with its action's name, however it came, and shown once", () => {
  const calls = page([{ id: 1, role: "user", content: text("q"), run: null }, { id: 2, role: "assistant", content: [call], run: null }]);
  const results = { type: "tool_results", results: [{ tool_use_id: "t1", content: "18" }], text: "" };
  const byServer = run(calls, results, connection("open"), hello, refusedBy("tool_results"));
  assert.deepEqual(byServer.state.refused, { action: "tool_results", count: 1 });
  assert.deepEqual(byServer.effects.filter((e) => e.do === "showError").at(-1), { do: "showError", text: "a run is already live" });
  const neverOpened = run(page(), { type: "send", text: "hi" }, connection("closed", { retryInMs: 500, attempt: 1 }));
  assert.deepEqual(neverOpened.state.refused, { action: "send", count: 1 });
  const again = run(neverOpened.state, connection("open"), hello, { type: "send", text: "hi" }, refusedBy("send"));
  assert.deepEqual(again.state.refused, { action: "send", count: 2 });
});

const STEP_MARKUP = `
  <div data-step-mode data-step-state="off">
    <input type="checkbox" data-step-enabled>
    <input type="number" value="10" data-step-limit>
    <input type="checkbox" data-step-pause>
    <button type="button" data-action="step-continue" hidden>Continue</button>
    <p data-step-status></p>
  </div>`;

test("step mode's results refused come back to stopped, the step not counted, and Continue sends them again", async () => {
  window.document.body.innerHTML = STEP_MARKUP;
  window.localStorage.clear();
  const root = window.document.querySelector("[data-step-mode]");
  let submitted = 0;
  const step = new StepMode(root, {
    conversationId: "c1",
    mocks: { mocks: [{ tool: "get_weather", content: "18 °C" }], fill() {} },
    toolResults: { pending: true, submit: () => (submitted += 1) },
  });
  root.querySelector("[data-step-enabled]").checked = true;
  const calls = [call];
  // Held for the socket (canAct false while it is), then refused at hello.
  step.consider({ calls, running: false, canAct: true, refused: null });
  await Promise.resolve();
  assert.equal(submitted, 1);
  assert.equal(root.dataset.stepState, "sending");
  step.consider({ calls, running: false, canAct: false, refused: null });
  assert.equal(root.dataset.stepState, "sending");
  step.consider({ calls, running: false, canAct: true, refused: { action: "tool_results", count: 1 } });
  assert.equal(root.dataset.stepState, "stopped");
  assert.equal(root.dataset.stepReason, "refused");
  assert.equal(root.dataset.stepSent, "0");
  assert.equal(root.querySelector("[data-action='step-continue']").hidden, false);
  step.consider({ calls, running: false, canAct: true, refused: { action: "tool_results", count: 1 } });
  await Promise.resolve();
  assert.equal(submitted, 1); // not sent again by itself
  root.querySelector("[data-action='step-continue']").click();
  await Promise.resolve();
  assert.equal(submitted, 2);
  assert.equal(root.dataset.stepState, "sending");
});

const REPLAY_MARKUP = `
  <section data-replay-view data-state="off" hidden>
    <a data-replay-source-link href="#">the source</a>
    <p data-replay-status></p>
    <table data-replay-table></table>
  </section>`;

test("replay's turn refused comes back from Replaying… to refused, and is not sent again by itself", async () => {
  window.document.body.innerHTML = REPLAY_MARKUP;
  const source = {
    id: "s1", title: "Source", url: "/c/s1/", profile: "p", model: "m",
    messages: [{ id: 1, role: "user", content: text("Tell me about bridges") }, { id: 2, role: "assistant", content: text("Bridges…") }],
  };
  globalThis.fetch = async () => new Response(JSON.stringify(source), { status: 200, headers: { "Content-Type": "application/json" } });
  const root = window.document.querySelector("[data-replay-view]");
  const sent = [];
  const view = new ReplayView(root, { sourceId: "s1", urls: { api_conversations: "/api/conversations/" }, onSend: (content) => sent.push(content) });
  await view.load();
  // The page as debugger-tools.js sees it: the turn held for the socket, then refused at hello.
  const held = run(page(), { type: "send", text: source.messages[0].content });
  view.consider({ messages: [], running: false, canAct: true, pending: 0, refused: null });
  assert.equal(sent.length, 1);
  view.consider({ messages: [], running: false, canAct: canAct(held.state), pending: 0, refused: held.state.refused });
  assert.equal(root.dataset.state, "running");
  const refused = run(held.state, connection("open"), hello, refusedBy("send")).state;
  view.consider({ messages: refused.messages, running: false, canAct: canAct(refused), pending: 0, refused: refused.refused });
  assert.equal(root.dataset.state, "refused");
  assert.match(root.querySelector("[data-replay-status]").textContent, /refused/);
  view.consider({ messages: refused.messages, running: false, canAct: canAct(refused), pending: 0, refused: refused.refused });
  assert.equal(sent.length, 1);
  assert.equal(root.dataset.state, "refused");
});
