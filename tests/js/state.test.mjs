// The conversation page's reducer (static/playground/state.js): frames and actions in, the new
// state and its effects out. Every state and input here is deep-frozen: a mutation throws.
import assert from "node:assert/strict";
import { test } from "node:test";

import { blockedReason, canContinue, canRun, connectionText, continueHint, findOrphan, initialState, NOT_CONNECTED, pendingCalls, retryText, rootData, runChoices, runHint, STALL_AFTER_MS, stallText, step, unansweredResults, waitText } from "../../static/playground/state.js";
import { run } from "./reducer-support.mjs";

const user = (id, text) => ({ id, role: "user", content: [{ type: "text", text }], run: null });
const answer = (id, runId, extra = {}) => ({ id, role: "assistant", content: [{ type: "text", text: "hi" }], run: { id: runId, status: "complete", model: "m", stop_reason: "end_turn", ...extra } });
const page = (messages = [], last_run = null) => initialState({ id: "c1", title: "", settings: {}, profile: "p", model: "m", messages, last_run });
const RUN = { id: "r1", profile: "p", model: "m" };
const open = { type: "connection", connection: "open" };
const events = (runId, ...seqs) => ({ type: "run.events", run_id: runId, events: seqs.map((seq) => ({ seq, t: seq, type: "ping", data: { type: "ping" } })) });
const finished = (runId, fields = {}) => ({ type: "run.finished", run_id: runId, status: "complete", stop_reason: "end_turn", message: null, ...fields });
/** The live group of one column (live-group.js), as the reducer folds a lone run. */
const groupOf = (column) => ({ group: null, count: 1, columns: [{ id: "r1", index: 0, lastSeq: 0, profile: "p", model: "m", firstTokenMs: null, lastMs: 0, chars: 0, done: false, status: null, messageId: null, waiting: null, ...column }] });
const liveColumn = (state) => state.live.columns[0];

test("send: the text waits for run.started, which stores it and clears the composer", () => {
  const sent = run(page(), open, { type: "send", text: "hello" });
  assert.equal(sent.state.pendingSend, "hello");
  assert.deepEqual(sent.effects.at(-1), { do: "socket", action: { action: "send", content: "hello" } });

  const started = run(sent.state, { type: "run.started", run: RUN, user_message: user(1, "hello") });
  assert.equal(started.state.pendingSend, null);
  assert.deepEqual(started.state.messages.map((m) => m.id), [1]);
  assert.deepEqual(started.did, ["composerSent", "startLive", "follow", "announce"]);
  assert.deepEqual(started.effects[1], { do: "startLive", run: RUN, index: 0, count: 1, fresh: true, sent: null });
  assert.equal(started.effects.at(-1).text, "Waiting for the answer");
  // A send is a group of one column.
  assert.deepEqual(started.state.live, groupOf({}));
});

test("a send the socket refused gives the text back and says why", () => {
  const { state, effects } = run(page(), open, { type: "send", text: "hello" }, { type: "refused", action: "send" });
  assert.equal(state.pendingSend, null);
  assert.deepEqual(effects.at(-1), { do: "showError", text: NOT_CONNECTED });
});

test("hello with a live run resumes it from 0 on a fresh page", () => {
  const { state, effects } = run(page(), { type: "hello", live_group: { group: null, columns: [{ run_id: "r1", last_seq: 40, column: 0 }] } });
  assert.deepEqual(state.resuming, { r1: 0 });
  assert.deepEqual(effects, [{ do: "socket", action: { action: "resume", run_id: "r1", after_seq: 0 } }]);
});

test("a reconnect resumes from the last seq drawn, and the replay is not a new turn", () => {
  const before = run(page([user(1, "q")]), { type: "run.started", run: RUN, user_message: null }, events("r1", 1, 2, 3));
  assert.equal(liveColumn(before.state).lastSeq, 3);

  const again = run(before.state, { type: "hello", live_group: { group: null, columns: [{ run_id: "r1", last_seq: 9, column: 0 }] } });
  assert.deepEqual(again.effects[0].action, { action: "resume", run_id: "r1", after_seq: 3 });

  // The answer to the resume: known to be one (the page asked), so nothing is dropped or added.
  const resumed = run(again.state, { type: "run.started", run: RUN, user_message: null });
  assert.deepEqual(resumed.state.messages.map((m) => m.id), [1]);
  assert.equal(liveColumn(resumed.state).lastSeq, 3);
  assert.deepEqual(resumed.did, ["announce"]); // the column is drawn already
  assert.equal(resumed.effects.at(-1).text, "Resuming the live answer");
});

test("a run that ended while away is resumed from its last seq (the server replays the tail)", () => {
  const live = run(page(), { type: "run.started", run: RUN, user_message: null }, events("r1", 1, 2));
  const { effects } = run(live.state, { type: "hello", live_group: null });
  assert.deepEqual(effects[0].action, { action: "resume", run_id: "r1", after_seq: 2 });
});

test("regenerate's run.started drops the last assistant turn; a resume of another run would not", () => {
  const stored = page([user(1, "q"), answer(2, "r0")]);
  const { state } = run(stored, { type: "regenerate" }, { type: "run.started", run: RUN, user_message: null });
  assert.deepEqual(state.messages.map((m) => m.id), [1]);

  const resumed = run(stored, { type: "hello", live_group: { group: null, columns: [{ run_id: "r1", last_seq: 0, column: 0 }] } }, { type: "run.started", run: RUN, user_message: null });
  assert.deepEqual(resumed.state.messages.map((m) => m.id), [1, 2]);
});

test("a checkpoint of the live run among the stored messages gives way to the live turn", () => {
  const stored = page([user(1, "q"), answer(2, "r1", { status: "running" })]);
  const { state } = run(stored, { type: "hello", live_group: { group: null, columns: [{ run_id: "r1", last_seq: 0, column: 0 }] } }, { type: "run.started", run: RUN, user_message: null });
  assert.deepEqual(state.messages.map((m) => m.id), [1]);
});

test("tool results stored by run.started clear the cards' drafts, not the composer", () => {
  const calls = { id: 2, role: "assistant", content: [{ type: "tool_use", id: "t1", name: "f", input: {} }], run: null };
  const waiting = run(page([user(1, "q"), calls]), open);
  assert.deepEqual(pendingCalls(waiting.state).map((c) => c.id), ["t1"]);
  assert.match(blockedReason(waiting.state), /waiting for tool results/);
  const results = { id: 3, role: "user", content: [{ type: "tool_result", tool_use_id: "t1", content: "ok" }], run: null };
  const { did } = run(waiting.state, { type: "tool_results", results: [], text: null }, { type: "run.started", run: RUN, user_message: results });
  assert.deepEqual(did, ["socket", "toolResultsDone", "startLive", "follow", "announce"]);
});

test("events: only the live run's, the first announced, the last seq mirrored", () => {
  const live = run(page(), { type: "run.started", run: RUN, user_message: null }).state;
  const first = run(live, events("r1", 1, 2));
  assert.deepEqual(first.did, ["events", "announce", "scroll"]);
  assert.equal(rootData(first.state).lastSeq, "2");
  const next = run(first.state, events("r1", 3));
  assert.deepEqual(next.did, ["events", "scroll"]);
  assert.equal(run(next.state, events("other", 4)).effects.length, 0);
  assert.equal(run(next.state, events("r1")).effects.length, 0);
});

test("run.finished with a message stores it; counts, status and idle are mirrored", () => {
  const live = run(page([user(1, "q")]), { type: "run.started", run: RUN, user_message: null }, { type: "stop" }).state;
  assert.equal(rootData(live).stopping, "true");
  const { state, did } = run(live, finished("r1", { status: "stopped", message: answer(2, "r1") }));
  assert.deepEqual(did, ["finishLive", "draw", "runEnded", "announce", "scroll", "groupEnded"]);
  assert.deepEqual(state.messages.map((m) => m.id), [1, 2]);
  assert.deepEqual(rootData(state), {
    runState: "idle", retrying: null, waiting: null, connection: "connecting", liveUpdates: null, lastSeq: null, saveState: null,
    stopping: null, sendHeld: null, lastStatus: "stopped", lastError: null, finishedRuns: "1",
  });
});

test("Redis away: hello or a live_updates frame pauses live updates, the connection line says so", () => {
  const open = run(page([user(1, "q")]), { type: "connection", connection: "open" }).state;
  assert.equal(connectionText(open.connection, open.connectionDetail, open.liveUpdates), "Connected");
  const paused = run(open, { type: "live_updates", state: "paused" }).state;
  assert.equal(rootData(paused).liveUpdates, "paused");
  assert.match(connectionText(paused.connection, paused.connectionDetail, paused.liveUpdates), /^Connected; live updates paused .*Redis/);
  const back = run(paused, { type: "live_updates", state: "live" }).state;
  assert.equal(rootData(back).liveUpdates, null);
  // A socket opened during the outage hears it in hello; a later hello clears it.
  const hello = (updates) => ({ type: "hello", conversation_id: "c", live_group: null, live_updates: updates });
  const helloPaused = run(open, hello("paused")).state;
  assert.equal(helloPaused.liveUpdates, "paused");
  assert.equal(run(helloPaused, hello("live")).state.liveUpdates, "live");
});

test("run.finished with no message keeps the run's outcome as the orphan turn", () => {
  const live = run(page([user(1, "q")]), { type: "run.started", run: RUN, user_message: null }).state;
  const error = { code: "upstream_http_status", message: "429" };
  const { state, effects } = run(live, finished("r1", { status: "failed", error }));
  assert.deepEqual(state.orphanRun, { id: "r1", status: "failed", stop_reason: "end_turn", usage: undefined, timings: undefined, error, kept_content: null, profile: "p", model: "m" });
  assert.equal(effects.find((e) => e.do === "announce").text, "The run failed");
  assert.deepEqual(runChoices(state), [{ id: "r1", label: "failed · m" }]);
});

test("the inspector's runs are numbered as runs, oldest first, the live one next", () => {
  const withRun = (message, id, status) => ({ ...message, run: { id, status, model: "m", stop_reason: "end_turn" } });
  const state = {
    ...page([user(1, "a"), withRun(answer(2, "b"), "r1", "complete"), user(3, "c"), withRun(answer(4, "d"), "r2", "stopped")]),
    live: groupOf({ id: "r3" }),
  };
  assert.deepEqual(
    runChoices(state).map((choice) => choice.label),
    ["Run 3 · live · m", "Run 2 · stopped · m · end_turn", "Run 1 · complete · m · end_turn"],
  );
});

test("run.saving marks the end as not saved until run.finished", () => {
  const live = run(page(), { type: "run.started", run: RUN, user_message: null }).state;
  const saving = run(live, { type: "run.saving", run_id: "r1" });
  assert.equal(rootData(saving.state).saveState, "pending");
  assert.equal(rootData(run(saving.state, finished("r1")).state).saveState, null);
  assert.equal(run(live, { type: "run.saving", run_id: "other" }).effects.length, 0);
});

test("a refused resume drops the live run and reloads what is stored", () => {
  const asked = run(page(), { type: "hello", live_group: { group: null, columns: [{ run_id: "r1", last_seq: 0, column: 0 }] } }).state;
  const { state, effects } = run(asked, { type: "error", action: "resume", error: { code: "not_found" } });
  assert.equal(state.resuming, null);
  assert.deepEqual(effects, [{ do: "reload" }]);
  const reloaded = run(state, { type: "reloaded", conversation: { id: "c1", title: "T", messages: [user(1, "q")], last_run: { id: "r1", status: "failed", model: "m" } } });
  assert.equal(reloaded.state.orphanRun.id, "r1");
  assert.equal(reloaded.state.conversation.title, "T");
});

test("other refusals are shown with their field and give back a pending send", () => {
  const sent = run(page(), { type: "send", text: "x" }).state;
  const { state, effects } = run(sent, { type: "error", action: "send", error: { code: "invalid_request", message: "too long", field: "content" } });
  assert.equal(state.pendingSend, null);
  assert.equal(rootData(state).lastError, "invalid_request");
  assert.deepEqual(effects, [{ do: "showError", text: "too long (content)" }]);
});

test("stop does nothing when no run is live", () => {
  assert.deepEqual(run(page(), { type: "stop" }).effects, []);
});

test("edit and resend: the stored conversation comes back, drawn, then regenerate is sent", () => {
  const opened = run(page([user(1, "q")], { id: "r0", status: "failed", model: "m" }), open).state;
  const { state, effects } = run(opened, { type: "edited", conversation: { messages: [user(1, "q2")] } });
  assert.equal(state.orphanRun, null);
  assert.deepEqual(effects, [{ do: "draw" }, { do: "socket", action: { action: "regenerate" } }]);
});

test("the connection line says when the socket retries", () => {
  const closed = run(page(), { type: "connection", connection: "closed", detail: { retryInMs: 1500 } }).state;
  assert.equal(connectionText(closed.connection, closed.connectionDetail), "Disconnected; retrying in 2 s");
  const again = run(closed, { type: "connection", connection: "connecting", detail: { attempt: 1 } }).state;
  assert.equal(connectionText(again.connection, again.connectionDetail), "Reconnecting…");
  assert.equal(connectionText("connecting", {}), "Connecting…");
});

test("the composer says why it cannot send", () => {
  assert.match(blockedReason(run(page(), { type: "connection", connection: "refused" }).state), /Not allowed/);
  assert.equal(blockedReason(page()), ""); // connecting: a send waits for the socket (held-send.test.mjs)
  assert.equal(blockedReason(run(page(), open).state), "");
  // An unanswered last turn blocks nothing: Run answers it, Send goes alone, Add to it joins.
  const unanswered = run(page([user(1, "q")]), open).state;
  assert.equal(blockedReason(unanswered), "");
  assert.equal(canRun(unanswered), true);
  assert.match(runHint(unanswered), /no answer yet: Run it as it is.*Send sends your new text alone.*Add to it joins/);
  assert.equal(unansweredResults(unanswered), false);
  assert.equal(canRun(run(page([user(1, "q"), answer(2, "r1")]), open).state), false);
});

test("text after unanswered tool results says it goes with them", () => {
  const results = { ...user(3, "x"), content: [{ type: "tool_result", tool_use_id: "t1", content: "rain" }] };
  const state = run(page([user(1, "q"), answer(2, "r1"), results]), open).state;
  assert.equal(unansweredResults(state), true);
  assert.match(runHint(state), /tool results have no answer yet.*goes with them/);
});

test("Send names the choice for an unanswered turn only when one is made", () => {
  const state = run(page([user(1, "q")]), open).state;
  assert.deepEqual(run(state, { type: "send", text: "more" }).effects, [{ do: "socket", action: { action: "send", content: "more" } }]);
  assert.deepEqual(run(state, { type: "send", text: "more", unanswered: "join" }).effects, [
    { do: "socket", action: { action: "send", content: "more", unanswered: "join" } },
  ]);
});

test("Run answers an unanswered last turn with a regenerate, and only then", () => {
  const unanswered = run(run(page([user(1, "q")]), open).state, { type: "run" });
  assert.deepEqual(unanswered.effects, [{ do: "socket", action: { action: "regenerate" } }]);
  assert.deepEqual(run(run(page([user(1, "q"), answer(2, "r1")]), open).state, { type: "run" }).effects, []);
});

test("run.retrying before the first event is shown, and the first event clears it", () => {
  const live = run(page([user(1, "q")]), open, { type: "run.started", run: RUN, user_message: null }).state;
  const retry = { type: "run.retrying", run_id: "r1", attempt: 2, attempts: 3, retry_in_ms: 2000, reason: "HTTP 529" };
  const retrying = run(live, retry);
  assert.deepEqual(retrying.did, ["liveNote", "announce"]);
  assert.equal(rootData(retrying.state).retrying, "2");
  assert.equal(retryText(retrying.state.retrying), "The upstream refused (HTTP 529): retrying in 2 s, attempt 2 of 3");
  assert.equal(retryText(retrying.state.retrying, 1200), "The upstream refused (HTTP 529): retrying in 2 s, attempt 2 of 3");
  assert.equal(retryText(retrying.state.retrying, 900), "The upstream refused (HTTP 529): retrying in 1 s, attempt 2 of 3");
  const streaming = run(retrying.state, events("r1", 1));
  assert.equal(streaming.state.retrying, null);
  assert.ok(streaming.did.includes("liveNote"));
  // Another run's retry, or one after the stream began, changes nothing.
  assert.deepEqual(run(live, { ...retry, run_id: "other" }).effects, []);
  assert.deepEqual(run(streaming.state, retry).effects, []);
});

test("run.waiting: every slot of the profile taken is shown until the wait or the first event ends it", () => {
  const live = run(page([user(1, "q")]), open, { type: "run.started", run: RUN, user_message: null }).state;
  const wait = { type: "run.waiting", run_id: "r1", profile: "anthropic", waiting: true };
  const waiting = run(live, wait);
  assert.deepEqual(waiting.did, ["liveNote", "announce"]);
  assert.equal(rootData(waiting.state).waiting, "anthropic");
  assert.equal(waitText(waiting.state.waiting), "Waiting for a free slot on anthropic");
  // The slot came: the note goes at once, before any event (a slow upstream is named as such).
  const taken = run(waiting.state, { ...wait, waiting: false });
  assert.equal(taken.state.waiting, null);
  assert.deepEqual(taken.did, ["liveNote"]);
  // Or the first event ends it; a retry replaces it; another run's changes nothing.
  assert.equal(run(waiting.state, events("r1", 1)).state.waiting, null);
  const retry = { type: "run.retrying", run_id: "r1", attempt: 2, attempts: 3, retry_in_ms: 2000 };
  assert.equal(run(waiting.state, retry).state.waiting, null);
  assert.deepEqual(run(live, { ...wait, run_id: "other" }).effects, []);
});

test("a silent upstream is named after STALL_AFTER_MS, not before", () => {
  assert.equal(stallText(STALL_AFTER_MS - 1), "");
  assert.match(stallText(12_400), /^No data from the upstream for 12 s/);
});

test("a heartbeat that went unanswered reads as a lost connection", () => {
  assert.match(connectionText("closed", { retryInMs: 1500, reason: "heartbeat" }), /^Connection lost .*retrying in 2 s$/);
});

test("an orphan run is shown only when no message holds it and the last turn is the user's", () => {
  const failed = { id: "r0", status: "failed" };
  assert.equal(findOrphan(failed, [user(1, "q")]), failed);
  assert.equal(findOrphan(failed, [user(1, "q"), answer(2, "r9")]), null);
  assert.equal(findOrphan({ ...failed, status: "running" }, [user(1, "q")]), null);
  assert.equal(findOrphan(failed, [user(1, "q"), answer(2, "r0")]), null);
  const kept = { ...failed, kept_content: { content: [], reason: "changed" } };
  assert.equal(findOrphan(kept, [user(1, "q"), answer(2, "r9")]), kept);
});

test("renames and saved settings change the conversation, nothing else", () => {
  const renamed = run(page(), { type: "renamed", title: "Tides" });
  assert.equal(renamed.state.conversation.title, "Tides");
  assert.deepEqual(renamed.effects, [{ do: "title" }]);
  const saved = run(page(), { type: "settings.saved", conversation: { settings: { a: 1 }, profile: "q", model: "n" } });
  assert.deepEqual([saved.state.conversation.profile, saved.state.conversation.model], ["q", "n"]);
});

test("a frame a newer server sends changes nothing", () => {
  const state = page();
  const next = step(state, { type: "run.something_new" });
  assert.equal(next.state, state);
  assert.deepEqual(next.effects, []);
});

test("send_request: the edited body goes with its turn; a refusal gives the text back", () => {
  const request = { model: "m", messages: [], stream: true };
  const sent = run(page(), open, { type: "send_request", turn: { content: "hi" }, request });
  assert.equal(sent.state.pendingSend, "hi");
  assert.deepEqual(sent.effects.at(-1), { do: "socket", action: { action: "send_request", content: "hi", request } });
  const refused = run(sent.state, { type: "error", action: "send_request", error: { code: "invalid_request", message: "no", field: "temperature" } });
  assert.equal(refused.state.pendingSend, null);

  const results = [{ tool_use_id: "t1", content: "18C" }];
  const answered = run(page(), open, { type: "send_request", turn: { results, text: null }, request });
  assert.equal(answered.state.pendingSend, null);
  assert.deepEqual(answered.effects.at(-1).action, { action: "send_request", results, text: null, request });
});

test("a stored message replaces the one at its position and what follows (an alternative of it)", () => {
  const at = (message, position) => ({ ...message, position });
  const state = page([at(user(1, "hello"), 0), at(answer(2, "r0"), 1)]);
  const started = run(state, open, { type: "run.started", run: RUN, user_message: at(user(3, "hello, more"), 0) });
  assert.deepEqual(started.state.messages.map((m) => m.id), [3]);
});

test("switched: the server's branch is drawn, the title follows, and the turn's place is said", () => {
  const branch = { index: 0, count: 3, ids: [2, 4, 5] };
  const conversation = { id: "c1", title: "New", settings: {}, messages: [{ ...user(1, "hello"), position: 0 }, { ...answer(2, "r0"), position: 1, branch }], last_run: null };
  const switched = run(page([user(1, "hello"), answer(5, "r2")]), { type: "switched", conversation, position: 1 });
  assert.deepEqual(switched.state.messages.map((m) => m.id), [1, 2]);
  assert.equal(switched.state.conversation.title, "New");
  assert.deepEqual(switched.did, ["draw", "title", "announce"]);
  assert.equal(switched.effects.at(-1).text, "Showing 1 of 3");
});

test("continue: offered after pause_turn, max_tokens or a prefill, never on a turn that calls tools", () => {
  const connected = (messages) => run(page(messages), open).state;
  const paused = connected([user(1, "q"), answer(2, "r1", { stop_reason: "pause_turn" })]);
  assert.equal(canContinue(paused), true);
  assert.match(continueHint(paused), /pause_turn/);
  assert.deepEqual(run(paused, { type: "continue" }).effects, [{ do: "socket", action: { action: "continue" } }]);
  assert.equal(canContinue(connected([user(1, "q"), answer(2, "r1", { stop_reason: "max_tokens" })])), true);
  const prefill = { id: 2, role: "assistant", content: [{ type: "text", text: "{" }], run: null, prefill: true };
  assert.match(continueHint(connected([user(1, "q"), prefill])), /prefill/);
  assert.equal(canContinue(connected([user(1, "q"), answer(2, "r1")])), false);
  const calls = { ...answer(2, "r1", { stop_reason: "max_tokens" }), content: [{ type: "tool_use", id: "t", name: "n", input: {} }] };
  assert.equal(canContinue(connected([user(1, "q"), calls])), false);
  assert.deepEqual(run(connected([user(1, "q"), answer(2, "r1")]), { type: "continue" }).effects, []);
});

test("a continuation's run.started keeps the turn it goes on with, and its end replaces it", () => {
  const paused = { ...answer(2, "r0", { stop_reason: "pause_turn" }), position: 1 };
  const started = run(page([{ ...user(1, "q"), position: 0 }, paused]), open, { type: "run.started", run: RUN, user_message: null, continued_message: paused });
  assert.deepEqual(started.state.messages.map((m) => m.id), [1, 2]); // not dropped as a regenerate's
  const whole = { ...answer(3, "r1"), position: 1, carried_blocks: 1 };
  const ended = run(started.state, finished("r1", { message: whole }));
  assert.deepEqual(ended.state.messages.map((m) => m.id), [1, 3]);
});

test("send with a prefill carries it to the socket", () => {
  const { effects } = run(page(), open, { type: "send", text: "hello", prefill: "Sure," });
  assert.deepEqual(effects.at(-1), { do: "socket", action: { action: "send", content: "hello", prefill: "Sure," } });
});
