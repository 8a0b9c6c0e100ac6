// A compare's frames through the page's reducer (state.js, folding with compare-state.js): the
// columns live in the state, compare.js is told only what to draw. Inputs are deep-frozen.
import assert from "node:assert/strict";
import { test } from "node:test";

import { compareLive, liveStats } from "../../static/playground/compare-state.js";
import { initialState } from "../../static/playground/state.js";
import { run } from "./reducer-support.mjs";

const page = () => initialState({ id: "c1", title: "", settings: {}, profile: "p", model: "m", messages: [], last_run: null });
const user = { id: 1, role: "user", content: [{ type: "text", text: "q" }], run: null };
const column = (id, index, group = "g1") => ({ id, profile: "p", model: `m${index}`, compare: { group, column: index, columns: 2 } });
const started = (id, index, extra = {}) => ({ type: "run.started", run: column(id, index), user_message: null, ...extra });
const delta = (seq, t, text) => ({ seq, t, type: "content_block_delta", data: { delta: { type: "text_delta", text } } });
const finished = (runId, fields = {}) => ({ type: "run.finished", run_id: runId, status: "complete", message: null, ...fields });
const SENT = [{ profile: "p", model: "m0" }, { profile: "p", model: "m1", max_tokens: 700 }];

test("a compare is sent through the reducer, its settings kept for the columns' headers", () => {
  const { state, effects } = run(page(), { type: "compare", content: "q", columns: SENT });
  assert.deepEqual(state.compareSent, SENT);
  assert.deepEqual(effects, [{ do: "socket", action: { action: "compare", content: "q", columns: SENT } }]);
});

test("a column's start draws it once; the user's turn (with the first) clears the composer and reloads", () => {
  const sent = run(page(), { type: "compare", content: "q", columns: SENT }).state;
  const first = run(sent, started("r0", 0, { user_message: user }));
  assert.deepEqual(first.did, ["compareColumn", "composerSent", "reload", "controls"]);
  assert.deepEqual(first.effects[0], { do: "compareColumn", run: column("r0", 0), index: 0, count: 2, fresh: true, sent: SENT[0] });
  const second = run(first.state, started("r1", 1));
  assert.equal(second.effects[0].fresh, false);
  assert.deepEqual(second.state.compare.columns.map((c) => c.runId), ["r0", "r1"]);
  // A resume's run.started of a column already drawn draws nothing again; the lone run is untouched.
  assert.deepEqual(run(second.state, started("r1", 1)).did, ["controls"]);
  assert.equal(second.state.live, null);
});

test("a column's events feed its live line numbers; a replayed seq is not counted twice", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  const one = run(live, { type: "run.events", run_id: "r1", events: [delta(1, 40, "abcd"), delta(2, 90, "efgh")] });
  assert.deepEqual(one.did, ["compareEvents", "controls"]);
  const again = run(one.state, { type: "run.events", run_id: "r1", events: [delta(2, 90, "efgh"), delta(3, 140, "ij")] }).state;
  const folded = again.compare.columns.find((c) => c.runId === "r1");
  assert.deepEqual([folded.lastSeq, folded.firstTokenMs, folded.lastMs, folded.chars], [3, 40, 140, 10]);
  assert.equal(again.lastSeq, null); // the lone run's mirror is not a column's
});

test("a column waiting for a slot says so on its live line until its first event", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  const waiting = run(live, { type: "run.waiting", run_id: "r1", profile: "anthropic", waiting: true });
  assert.deepEqual(waiting.did, ["compareEvents", "controls"]);
  const column = waiting.state.compare.columns.find((c) => c.runId === "r1");
  assert.equal(liveStats(column), "Waiting for a free slot on anthropic");
  const streaming = run(waiting.state, { type: "run.events", run_id: "r1", events: [delta(1, 40, "abcd")] }).state;
  assert.equal(streaming.compare.columns.find((c) => c.runId === "r1").waiting, null);
  assert.equal(liveStats({ firstTokenMs: null }), "Waiting for the first token…");
});

test("the last column's end makes the compare done; stop while live stops every column", () => {
  const live = run(page(), started("r0", 0), started("r1", 1)).state;
  assert.ok(compareLive(live));
  assert.deepEqual(run(live, { type: "stop" }).effects, [{ do: "socket", action: { action: "stop" } }]);
  const one = run(live, finished("r0", { status: "stopped", message: { id: 7 } }));
  assert.deepEqual(one.did, ["compareFinished", "controls"]);
  const both = run(one.state, finished("r1"));
  assert.deepEqual(both.did, ["compareFinished", "compareDone", "controls"]);
  assert.ok(!compareLive(both.state));
  assert.deepEqual(both.state.compare.columns.map((c) => [c.status, c.messageId]), [["stopped", 7], ["complete", null]]);
  assert.deepEqual(run(both.state, { type: "stop" }).effects, []);
  assert.equal(run(both.state, { type: "compare.dismissed" }).state.compare, null);
});

test("hello resumes each column of the live compare, from the seq each was drawn to", () => {
  const live = run(page(), started("r0", 0), { type: "run.events", run_id: "r0", events: [delta(4, 10, "a")] }).state;
  const active = { group: "g1", columns: [{ run_id: "r0", last_seq: 9, column: 0 }, { run_id: "r1", last_seq: 9, column: 1 }] };
  const { effects } = run(live, { type: "hello", live_group: active });
  assert.deepEqual(
    effects.filter((e) => e.do === "socket").map((e) => e.action),
    [
      { action: "resume", run_id: "r0", after_seq: 4 },
      { action: "resume", run_id: "r1", after_seq: 0 },
    ],
  );
  // Gone meanwhile: the columns not seen ending are resumed (the server replays their end).
  const gone = run(live, { type: "hello", live_group: null }).effects;
  assert.deepEqual(gone.filter((e) => e.do === "socket").map((e) => e.action), [{ action: "resume", run_id: "r0", after_seq: 4 }]);
});
