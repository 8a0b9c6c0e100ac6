// The token count's schedule (token-schedule.js) on a clock of the test's own: one ask per
// pause, none for a repeated key, and a late answer never overwriting a newer one.
import assert from "node:assert/strict";
import { test } from "node:test";

import { countText, TokenSchedule } from "../../static/playground/token-schedule.js";

/** A manual clock: `run()` fires what is due, in order. */
function clock() {
  let next = 1;
  const due = new Map();
  return {
    timers: {
      set: (fn, delay) => {
        const id = next++;
        due.set(id, { fn, delay });
        return id;
      },
      clear: (id) => due.delete(id),
    },
    pending: () => [...due.values()].map((item) => item.delay),
    run() {
      const items = [...due.values()];
      due.clear();
      for (const item of items) item.fn();
    },
  };
}

/** Answers the test resolves by hand, in any order. */
function asker() {
  const asked = [];
  return {
    asked,
    count: (input) =>
      new Promise((resolve, reject) => {
        asked.push({ input, resolve, reject });
      }),
  };
}

const settle = () => new Promise((resolve) => setImmediate(resolve));

function schedule() {
  const time = clock();
  const upstream = asker();
  const states = [];
  const counter = new TokenSchedule({ count: upstream.count, onState: (s) => states.push(s), delay: 400, timers: time.timers });
  return { time, upstream, states, counter };
}

test("typing asks once, after the pause, for the last text", async () => {
  const { time, upstream, states, counter } = schedule();
  counter.want("a", { content: "a" });
  counter.want("ab", { content: "ab" });
  counter.want("abc", { content: "abc" });
  assert.deepEqual(time.pending(), [400]);
  assert.equal(upstream.asked.length, 0);
  time.run();
  assert.deepEqual(upstream.asked.map((a) => a.input), [{ content: "abc" }]);
  upstream.asked[0].resolve({ input_tokens: 3, estimated: false });
  await settle();
  assert.deepEqual(states.at(-1), { state: "ready", answer: { input_tokens: 3, estimated: false } });
});

test("the same key again asks nothing", () => {
  const { time, upstream, counter } = schedule();
  counter.want("k", {});
  time.run();
  counter.want("k", {});
  assert.deepEqual(time.pending(), []);
  assert.equal(upstream.asked.length, 1);
});

test("a slow answer to an older text never overwrites a newer one", async () => {
  const { time, upstream, states, counter } = schedule();
  counter.want("old", "old");
  time.run();
  counter.want("new", "new");
  time.run();
  upstream.asked[1].resolve({ input_tokens: 20 });
  await settle();
  upstream.asked[0].resolve({ input_tokens: 10 });
  await settle();
  const ready = states.filter((s) => s.state === "ready");
  assert.deepEqual(ready, [{ state: "ready", answer: { input_tokens: 20 } }]);
});

test("an error is told, and a stale error is not", async () => {
  const { time, upstream, states, counter } = schedule();
  counter.want("a", "a");
  time.run();
  counter.want("b", "b");
  time.run();
  upstream.asked[0].reject(new Error("stale"));
  upstream.asked[1].reject(new Error("fresh"));
  await settle();
  const errors = states.filter((s) => s.state === "error").map((s) => s.error.message);
  assert.deepEqual(errors, ["fresh"]);
});

test("clear drops the wait and the answer due, and the same key asks again after it", async () => {
  const { time, upstream, states, counter } = schedule();
  counter.want("a", "a");
  time.run();
  counter.clear();
  upstream.asked[0].resolve({ input_tokens: 1 });
  await settle();
  assert.equal(states.at(-1).state, "idle");
  counter.want("a", "a");
  assert.deepEqual(time.pending(), [400]);
});

test("the words say when a count is an estimate", () => {
  assert.equal(countText({ input_tokens: 1234, estimated: false }), "1,234 input tokens");
  assert.equal(countText({ input_tokens: 1, estimated: false }), "1 input token");
  assert.equal(countText({ input_tokens: 40, estimated: true }), "≈ 40 input tokens, estimated");
});

test("clearing when idle tells nothing", () => {
  const { states, counter } = schedule();
  counter.clear();
  assert.deepEqual(states, []);
  counter.want("a", "a");
  counter.clear();
  counter.clear();
  assert.deepEqual(states.map((s) => s.state), ["waiting", "idle"]);
});
