// An action made before the socket is open (static/playground/held-send.js, through state.js's
// reducer): held, sent exactly once at the server's hello on the socket that opened, refused with
// its text kept when the attempt ends without one. Every state and input here is deep-frozen: a mutation throws.
import assert from "node:assert/strict";
import { test } from "node:test";

import { canAct, forgetRefusedSend, HELD_TEXT, NOT_SENT } from "../../static/playground/held-send.js";
import { blockedReason, initialState, rootData } from "../../static/playground/state.js";
import { run } from "./reducer-support.mjs";

const user = (id, text) => ({ id, role: "user", content: [{ type: "text", text }], run: null });
const page = (messages = []) => initialState({ id: "c1", title: "", settings: {}, profile: "p", model: "m", messages, last_run: null });
const connection = (state, detail = {}) => ({ type: "connection", connection: state, detail });
const hello = { type: "hello", conversation_id: "c1", live_group: null };
const send = { type: "send", text: "hello" };
const SEND = { action: "send", content: "hello" };
const sockets = (effects) => effects.filter((effect) => effect.do === "socket").map((effect) => effect.action);

test("a send while the page's socket is connecting is held, not sent and not refused", () => {
  const { state, effects } = run(page(), send);
  assert.deepEqual(sockets(effects), []);
  assert.equal(effects.some((effect) => effect.do === "showError" && effect.text !== ""), false);
  assert.deepEqual(state.held, SEND);
  assert.equal(state.pendingSend, "hello");
  assert.equal(rootData(state).sendHeld, "send");
  assert.equal(blockedReason(state), HELD_TEXT); // Send says why nothing more goes meanwhile
  assert.deepEqual(effects.find((effect) => effect.do === "announce"), { do: "announce", text: HELD_TEXT });
});

test("the held send goes once the socket opens and the server says hello, and never again", () => {
  const held = run(page(), send).state;
  assert.deepEqual(sockets(run(held, connection("open")).effects), []); // not before hello
  const opened = run(held, connection("open"), hello);
  assert.deepEqual(sockets(opened.effects), [SEND]);
  assert.equal(opened.state.held, null);
  assert.equal(opened.state.pendingSend, "hello"); // cleared by run.started, as any send
  assert.equal(rootData(opened.state).sendHeld, null);
  // A drop and a reopen later send nothing of it.
  const again = run(opened.state, connection("closed", { retryInMs: 500 }), connection("connecting", { attempt: 1 }), connection("open"), hello);
  assert.deepEqual(sockets(again.effects), []);
  // Its run.started stores the turn and clears the composer, as for a send made while open.
  const started = run(opened.state, { type: "run.started", run: { id: "r1", profile: "p", model: "m" }, user_message: user(1, "hello") });
  assert.equal(started.did[0], "composerSent");
  assert.equal(started.state.pendingSend, null);
});

for (const [why, failed] of [
  ["closes before it opens", [connection("closed", { retryInMs: 500, attempt: 1 })]],
  ["is refused for good", [connection("refused", { code: 4404 })]],
  // A server that is stopping accepts, then closes with 4503 and no hello.
  ["opens and closes with no hello", [connection("open"), connection("closed", { retryInMs: 500, attempt: 1 })]],
]) {
  test(`a held send whose socket ${why} is refused with its text kept, and not sent later`, () => {
    const { state, effects } = run(page(), send, ...failed);
    assert.deepEqual(sockets(effects), []);
    assert.deepEqual(effects.filter((effect) => effect.do === "showError").at(-1), { do: "showError", text: NOT_SENT });
    assert.equal(effects.some((effect) => effect.do === "composerSent"), false); // the text stays in the box
    assert.equal(state.held, null);
    assert.equal(state.pendingSend, null);
    assert.equal(rootData(state).lastError, "not_connected");
    assert.equal(rootData(state).sendHeld, null);
    const later = run(state, connection("connecting", { attempt: 1 }), connection("open"), hello);
    assert.deepEqual(sockets(later.effects), []);
  });
}

test("a send while the socket waits to try again asks it to try now, and goes once it opens", () => {
  const dropped = run(page(), connection("open"), connection("closed", { retryInMs: 8000, attempt: 4 })).state;
  assert.equal(blockedReason(dropped), ""); // Send stays usable while the page reconnects
  const held = run(dropped, send);
  assert.equal(held.did[0], "reconnect");
  assert.deepEqual(sockets(held.effects), []);
  const reopened = run(held.state, connection("connecting", { attempt: 4 }), connection("open"), hello);
  assert.deepEqual(sockets(reopened.effects), [SEND]);
});

test("a send while connecting does not ask for another connection (one is being made)", () => {
  assert.equal(run(page(), send).did.includes("reconnect"), false);
  assert.equal(run(page(), connection("connecting", { attempt: 2 }), send).did.includes("reconnect"), false);
});

test("one action is held at a time: a second is refused and the first still goes once", () => {
  const held = run(page(), send).state;
  const second = run(held, { type: "send", text: "again" });
  assert.deepEqual(sockets(second.effects), []);
  assert.match(second.effects.at(-1).text, /already waiting/);
  assert.deepEqual(second.state.held, SEND);
  assert.equal(second.state.pendingSend, "hello");
  assert.deepEqual(sockets(run(second.state, connection("open"), hello).effects), [SEND]);
});

test("Run, Continue, tool results, a compare and an edit's regenerate wait for the socket alike", () => {
  const prefill = { id: 2, role: "assistant", content: [{ type: "text", text: "Once" }], prefill: true, run: null };
  const cases = [
    [page([user(1, "q")]), { type: "run" }, { action: "regenerate" }],
    [page([user(1, "q"), prefill]), { type: "continue" }, { action: "continue" }],
    [page(), { type: "tool_results", results: [], text: "" }, { action: "tool_results", results: [], text: "" }],
    [page(), { type: "compare", content: "q", columns: [{}, {}] }, { action: "compare", content: "q", columns: [{}, {}] }],
    [page([user(1, "q")]), { type: "edited", conversation: { messages: [user(1, "q2")] } }, { action: "regenerate" }],
  ];
  for (const [state, input, action] of cases) {
    const held = run(state, input);
    assert.deepEqual(sockets(held.effects), [], input.type);
    assert.deepEqual(held.state.held, action, input.type);
    assert.deepEqual(sockets(run(held.state, connection("open"), hello).effects), [action], input.type);
  }
});

test("a stop is never held: it goes to the socket (which refuses it while closed)", () => {
  const live = run(page(), connection("open"), { type: "run.started", run: { id: "r1", profile: "p", model: "m" }, user_message: null }, connection("closed", { retryInMs: 500 })).state;
  const { state, effects } = run(live, { type: "stop" });
  assert.deepEqual(sockets(effects), [{ action: "stop" }]);
  assert.equal(state.held, null);
});

test("a hello with a live run resumes it first; the held send then goes (and the server refuses it as busy)", () => {
  const live = { ...hello, live_group: { group: null, columns: [{ run_id: "r1", last_seq: 3, column: 0 }] } };
  const { state, effects } = run(page(), send, connection("open"), live);
  assert.deepEqual(sockets(effects), [{ action: "resume", run_id: "r1", after_seq: 0 }, SEND]);
  assert.equal(state.held, null);
  const busy = run(state, { type: "error", action: "send", error: { code: "busy", message: "A run is live" } });
  assert.equal(busy.state.pendingSend, null);
  assert.equal(busy.did.includes("composerSent"), false); // the text stays in the box
});

test("canAct: an action may be made (sent, or held) unless one is held or the socket is refused for good", () => {
  for (const state of ["connecting", "open", "closed"]) assert.equal(canAct(run(page(), connection(state)).state), true, state);
  assert.equal(canAct(run(page(), connection("refused", { code: 4404 })).state), false);
  const held = run(page(), send).state;
  assert.equal(canAct(held), false); // one held at a time: Send results, the request editor wait too
  assert.equal(canAct(run(held, connection("open"), hello).state), true); // it went
  assert.equal(canAct(run(held, connection("closed", { retryInMs: 500 })).state), true); // refused, text kept: may go again
});

test("a refused action that carried the composer's text forgets it was pending; any other leaves it", () => {
  const pending = { pendingSend: "hello", held: null };
  for (const action of ["send", "send_request", "compare"]) assert.equal(forgetRefusedSend(pending, action).pendingSend, null, action);
  for (const action of ["regenerate", "continue", "tool_results", "stop", "resume"]) assert.equal(forgetRefusedSend(pending, action), pending, action);
});

for (const [door, refusal] of [
  ["the socket refuses it (closed as it went)", [connection("open"), hello, send, { type: "refused", action: "send" }]],
  ["the server refuses it (an error frame)", [connection("open"), hello, send, { type: "error", action: "send", error: { code: "busy", message: "A run is live" } }]],
  ["it was held and its attempt failed", [send, connection("closed", { retryInMs: 500 })]],
]) {
  test(`a send refused because ${door}: not pending any more, its text left in the box`, () => {
    const { state, did } = run(page(), ...refusal);
    assert.equal(state.pendingSend, null);
    assert.equal(did.includes("composerSent"), false);
  });
}

// #3: the socket dropped after a send went out and its run started, before its run.started came.
const started = (id, message, extra = {}) => ({ type: "run.started", run: { id, profile: "p", model: "m" }, user_message: message, ...extra });
const liveHello = (runId) => ({ ...hello, live_group: { group: null, columns: [{ run_id: runId, last_seq: 4, column: 0 }] } });
const dropAndReopen = [connection("closed", { retryInMs: 500, attempt: 1 }), connection("connecting", { attempt: 1 }), connection("open")];

test("a send whose run.started was lost with the socket is answered by the resumed one: turn stored, composer cleared", () => {
  const sent = run(page(), connection("open"), hello, send, ...dropAndReopen, liveHello("r1"));
  assert.deepEqual(sockets(sent.effects), [SEND, { action: "resume", run_id: "r1", after_seq: 0 }]);
  assert.equal(sent.state.pendingSend, "hello");
  const resumed = run(sent.state, started("r1", user(7, "hello")));
  assert.equal(resumed.state.pendingSend, null);
  assert.equal(resumed.did.includes("composerSent"), true);
  assert.deepEqual(resumed.state.messages.map((m) => m.id), [7]); // the person's turn, above its answer
  assert.deepEqual(resumed.effects.find((e) => e.do === "announce"), { do: "announce", text: "Resuming the live answer" });
});

test("a resumed run.started leaves the composer alone when no send waits on it", () => {
  // A reload (no send pending; the turn is the page's already).
  const reload = run(page([user(7, "q")]), connection("open"), liveHello("r1"), started("r1", user(7, "q")));
  assert.equal(reload.did.includes("composerSent"), false);
  // A send whose start came before the drop: cleared then, not again.
  const seen = run(page(), connection("open"), hello, send, started("r1", user(7, "hello")), ...dropAndReopen, liveHello("r1"));
  assert.equal(seen.did.filter((d) => d === "composerSent").length, 1);
  const again = run(seen.state, { type: "send", text: "typed meanwhile" }, started("r1", user(7, "hello")));
  assert.equal(again.state.pendingSend, "typed meanwhile"); // r1 is known: not this send's
  // A resumed run whose user turn the page has: not the pending send's.
  const other = run(page([user(7, "q")]), connection("open"), hello, send, ...dropAndReopen, liveHello("r1"), started("r1", user(7, "q")));
  assert.equal(other.state.pendingSend, "hello");
  assert.equal(other.did.includes("composerSent"), false);
});

test("replay's next turn and step mode's results, made while the socket (re)connects, are held like a typed send, one at a time", () => {
  // What replay.js and step-mode.js dispatch (a loop's user content; the cards' results), gated
  // by canAct as Send is: held, so neither makes another meanwhile, and each goes once at hello.
  const content = [{ type: "text", text: "Use get_weather for Paris" }];
  const results = [{ type: "tool_result", tool_use_id: "t1", content: "18 °C" }];
  const calls = { id: 2, role: "assistant", content: [{ type: "tool_use", id: "t1", name: "get_weather", input: {} }], run: null };
  const cases = [
    ["replay", page(), { type: "send", text: content }, { action: "send", content }],
    ["step mode", page([user(1, "q"), calls]), { type: "tool_results", results, text: "" }, { action: "tool_results", results, text: "" }],
  ];
  for (const [who, state, input, action] of cases) {
    for (const before of [[], [connection("open"), hello, connection("closed", { retryInMs: 500, attempt: 1 }), connection("connecting", { attempt: 1 })]]) {
      const from = run(state, ...before).state;
      assert.equal(canAct(from), true, who);
      const held = run(from, input);
      assert.deepEqual(sockets(held.effects), [], who);
      assert.deepEqual(held.state.held, action, who);
      assert.equal(canAct(held.state), false, who); // replay and step mode wait, as Send does
      assert.deepEqual(sockets(run(held.state, connection("open"), hello).effects), [action], who);
    }
  }
});

// A run that started and ended while the socket was away (another tab's, the API's, or a send
// whose socket dropped before its start came back): the hello's last_message_id is not the
// page's last turn, and the page reads its turns again ("reread").
const answerTo = (id, runId) => ({ id, position: id - 1, role: "assistant", content: [{ type: "text", text: "an answer" }], run: { id: runId, status: "complete", model: "m" } });
const at = (message) => ({ ...message, position: message.id - 1 });
const stored = (...messages) => ({ id: "c1", title: "Tides", settings: {}, profile: "p", model: "m", messages, last_run: null });
const away = [connection("closed", { retryInMs: 500, attempt: 1 }), connection("connecting", { attempt: 1 }), connection("open")];
const helloAt = (lastMessageId, liveGroup = null) => ({ ...hello, live_group: liveGroup, last_message_id: lastMessageId });

test("a hello whose path ends elsewhere than the page's has the turns read again; the same end, or a live group, does not", () => {
  const shown = run(page([at(user(1, "q")), answerTo(2, "r0")]), connection("open"), helloAt(2)).state;
  assert.equal(run(shown, ...away, helloAt(2)).did.includes("reread"), false);
  assert.equal(run(shown, ...away, { ...hello, live_group: null }).did.includes("reread"), false); // an older server
  assert.equal(run(shown, ...away, helloAt(4)).did.includes("reread"), true);
  const empty = run(page(), connection("open"), helloAt(null));
  assert.equal(empty.did.includes("reread"), false);
  // A live group is resumed: its run.started brings its turn, as before.
  const live = run(shown, ...away, helloAt(3, { group: null, columns: [{ run_id: "r1", last_seq: 2, column: 0 }] }));
  assert.equal(live.did.includes("reread"), false);
});

test("the turns read again show the run that ended while away and clear the send it answered", () => {
  const sent = run(page([at(user(1, "q")), answerTo(2, "r0")]), connection("open"), helloAt(2), send);
  assert.equal(sent.state.pendingSend, "hello");
  // The socket dropped before run.started came back; the run ended before the page was back.
  const back = run(sent.state, ...away, helloAt(4));
  assert.equal(back.did.at(-1), "reread");
  const read = stored(at(user(1, "q")), answerTo(2, "r0"), at(user(3, "hello")), answerTo(4, "r1"));
  const reread = run(back.state, { type: "reread", conversation: read });
  assert.deepEqual(reread.state.messages.map((m) => m.id), [1, 2, 3, 4]);
  assert.equal(reread.state.pendingSend, null);
  assert.deepEqual(reread.effects[0], { do: "composerSent", content: "hello" }); // only if the box still holds it
  assert.deepEqual(reread.did.slice(1), ["draw", "title"]);
  assert.equal(reread.state.conversation.title, "Tides");
});

test("turns another tab added while away leave a pending send that they do not hold pending", () => {
  const sent = run(page([at(user(1, "q")), answerTo(2, "r0")]), connection("open"), helloAt(2), send).state;
  const read = stored(at(user(1, "q")), answerTo(2, "r0"), at(user(3, "another tab's question")), answerTo(4, "r1"));
  const reread = run(sent, ...away, helloAt(4), { type: "reread", conversation: read });
  assert.deepEqual(reread.state.messages.map((m) => m.id), [1, 2, 3, 4]);
  assert.equal(reread.state.pendingSend, "hello");
  assert.equal(reread.did.includes("composerSent"), false);
});

test("a held send's run that started before the read came back stays on screen after the turns read", () => {
  // Typed while reconnecting: held, sent at the hello that also asks for the read; its
  // run.started comes first, then the read (made before the run started).
  const shown = run(page([at(user(1, "q")), answerTo(2, "r0")]), connection("open"), helloAt(2)).state;
  const heldSend = run(shown, ...away.slice(0, 2), send, connection("open"), helloAt(4));
  assert.deepEqual(heldSend.did.filter((d) => d === "socket" || d === "reread"), ["socket", "reread"]);
  const started = run(heldSend.state, { type: "run.started", run: { id: "r2", profile: "p", model: "m" }, user_message: at(user(5, "hello")) }).state;
  assert.equal(started.pendingSend, null);
  const read = stored(at(user(1, "q")), answerTo(2, "r0"), at(user(3, "another tab's question")), answerTo(4, "r1"));
  const reread = run(started, { type: "reread", conversation: read });
  assert.deepEqual(reread.state.messages.map((m) => m.id), [1, 2, 3, 4, 5]);
  assert.equal(reread.state.orphanRun, null);
  assert.equal(reread.state.live.columns[0].id, "r2");
  // A checkpoint of the live run in a later read is its live turn's, not a stored one.
  const later = stored(at(user(1, "q")), answerTo(2, "r0"), at(user(3, "x")), answerTo(4, "r1"), at(user(5, "hello")), answerTo(6, "r2"));
  assert.deepEqual(run(started, { type: "reread", conversation: later }).state.messages.map((m) => m.id), [1, 2, 3, 4, 5]);
});
