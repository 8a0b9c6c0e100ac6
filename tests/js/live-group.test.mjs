// A compare's frames through the page's reducer (state.js, folding with live-group.js): a run is
// a group of one to four columns and a compare's are folded by the same steps, with the same
// effects, as a lone run's; compare.js is told only what to draw. Inputs are deep-frozen.
import assert from "node:assert/strict";
import { test } from "node:test";

import { liveStats } from "../../static/playground/live-group.js";
import { initialState } from "../../static/playground/state.js";
import { run } from "./reducer-support.mjs";

// Connected: an action made before the socket opens waits for it (held-send.test.mjs).
const page = () => ({ ...initialState({ id: "c1", title: "", settings: {}, profile: "p", model: "m", messages: [], last_run: null }), connection: "open" });
const user = { id: 1, role: "user", content: [{ type: "text", text: "q" }], run: null };
const column = (id, index, group = "g1") => ({ id, profile: "p", model: `m${index}`, compare: { group, column: index, columns: 2 } });
const started = (id, index, extra = {}) => ({ type: "run.started", run: column(id, index), user_message: null, ...extra });
const delta = (seq, t, text) => ({ seq, t, type: "content_block_delta", data: { delta: { type: "text_delta", text } } });
const finished = (runId, fields = {}) => ({ type: "run.finished", run_id: runId, status: "complete", message: null, ...fields });
const SENT = [{ profile: "p", model: "m0" }, { profile: "p", model: "m1", max_tokens: 700 }];
const columnIn = (state, runId) => state.live.columns.find((c) => c.id === runId);

test("a compare is sent through the reducer, its settings kept for the columns' headers", () => {
  const { state, effects } = run(page(), { type: "compare", content: "q", columns: SENT });
  assert.deepEqual(state.compareSent, SENT);
  assert.equal(state.pendingSend, "q");
  assert.deepEqual(effects, [{ do: "socket", action: { action: "compare", content: "q", columns: SENT } }]);
});

test("a column's start is a lone run's: drawn once, the user's turn (with the first) stored and the composer cleared", () => {
  const sent = run(page(), { type: "compare", content: "q", columns: SENT }).state;
  const first = run(sent, started("r0", 0, { user_message: user }));
  assert.deepEqual(first.did, ["composerSent", "startLive", "follow", "announce"]);
  assert.deepEqual(first.effects[1], { do: "startLive", run: column("r0", 0), index: 0, count: 2, fresh: true, sent: SENT[0] });
  assert.deepEqual(first.state.messages.map((m) => m.id), [1]);
  const second = run(first.state, started("r1", 1));
  assert.deepEqual(second.did, ["startLive"]);
  assert.equal(second.effects[0].fresh, false);
  assert.deepEqual(second.state.live.columns.map((c) => c.id), ["r0", "r1"]);
  assert.deepEqual(second.state.messages.map((m) => m.id), [1]); // the turn is not dropped for the second
  // A resume's run.started of a column already drawn draws nothing again.
  assert.deepEqual(run(second.state, started("r1", 1)).did, []);
});

test("a column's events feed its live line numbers; a replayed seq is not counted twice", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  const one = run(live, { type: "run.events", run_id: "r1", events: [delta(1, 40, "abcd"), delta(2, 90, "efgh")] });
  assert.deepEqual(one.did, ["events", "announce", "scroll"]);
  assert.equal(one.effects[0].count, 2); // page.js draws it in the column
  const again = run(one.state, { type: "run.events", run_id: "r1", events: [delta(2, 90, "efgh"), delta(3, 140, "ij")] }).state;
  const folded = columnIn(again, "r1");
  assert.deepEqual([folded.lastSeq, folded.firstTokenMs, folded.lastMs, folded.chars], [3, 40, 140, 10]);
  assert.equal(columnIn(again, "r0").lastSeq, 0);
});

test("a column waiting for a slot says so on its live line until its first event", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  const waiting = run(live, { type: "run.waiting", run_id: "r1", profile: "anthropic", waiting: true });
  assert.deepEqual(waiting.did, ["liveNote", "announce"]);
  assert.equal(liveStats(columnIn(waiting.state, "r1")), "Waiting for a free slot on anthropic");
  const streaming = run(waiting.state, { type: "run.events", run_id: "r1", events: [delta(1, 40, "abcd")] }).state;
  assert.equal(columnIn(streaming, "r1").waiting, null);
  assert.equal(liveStats({ firstTokenMs: null }), "Waiting for the first token…");
});

test("the last column's end ends the group; stop while live stops every column", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  assert.deepEqual(run(live, { type: "stop" }).effects, [{ do: "socket", action: { action: "stop" } }]);
  const one = run(live, finished("r0", { status: "stopped", message: { id: 7, position: 1 } }));
  assert.deepEqual(one.did, ["finishLive", "runEnded", "announce", "scroll"]);
  assert.deepEqual(columnIn(one.state, "r0"), { ...columnIn(live, "r0"), done: true, status: "stopped", messageId: 7 });
  // A compare's answers are alternatives of one turn: read again at the end, not put in place.
  assert.deepEqual(one.state.messages, []);
  const both = run(one.state, finished("r1"));
  assert.deepEqual(both.did, ["finishLive", "draw", "runEnded", "announce", "scroll", "groupEnded"]);
  assert.deepEqual(both.effects.at(-1), { do: "groupEnded", count: 2 });
  assert.equal(both.state.live, null);
  assert.equal(both.state.orphanRun, null);
  assert.deepEqual(run(both.state, { type: "stop" }).effects, []);
});

test("a column's end before every column started does not end the group", () => {
  const live = run(page(), started("r0", 0)).state;
  const one = run(live, finished("r0"));
  assert.ok(!one.did.includes("groupEnded"));
  assert.equal(one.state.live.columns.length, 1);
});

test("hello resumes each column of the live compare, from the seq each was drawn to", () => {
  const live = run(page(), started("r0", 0), { type: "run.events", run_id: "r0", events: [delta(4, 10, "a")] }).state;
  const active = { group: "g1", columns: [{ run_id: "r0", last_seq: 9, column: 0 }, { run_id: "r1", last_seq: 9, column: 1 }] };
  const { state, effects } = run(live, { type: "hello", live_group: active });
  assert.deepEqual(
    effects.map((e) => e.action),
    [
      { action: "resume", run_id: "r0", after_seq: 4 },
      { action: "resume", run_id: "r1", after_seq: 0 },
    ],
  );
  assert.deepEqual(state.resuming, { r0: 4, r1: 0 });
  // Gone meanwhile: the columns not seen ending are resumed (the server replays their end).
  const gone = run(live, { type: "hello", live_group: null }).effects;
  assert.deepEqual(gone.map((e) => e.action), [{ action: "resume", run_id: "r0", after_seq: 4 }]);
});
