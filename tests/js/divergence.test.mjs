// A replay against its source (static/playground/divergence.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { answersOf, compareLoops, fixturesOf, loopsOf } from "../../static/playground/divergence.js";

const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
const calls = (...list) => ({ role: "assistant", content: [{ type: "text", text: "calling" }, ...list.map(([id, name, input]) => ({ type: "tool_use", id, name, input }))] });
const results = (...list) => ({ role: "user", content: list.map(([id, content, isError]) => ({ type: "tool_result", tool_use_id: id, content, ...(isError ? { is_error: true } : {}) })) });
const answer = (text) => ({ role: "assistant", content: [{ type: "text", text }] });

const SOURCE = [
  user("Weather and time in Paris"),
  calls(["a", "get_weather", { location: "Paris" }], ["b", "get_time", { city: "Paris" }]),
  results(["a", "18C"], ["b", "9am"]),
  calls(["c", "get_weather", { location: "Paris", days: 2 }]),
  results(["c", "rain", true]),
  answer("18C at 9am"),
];

test("loops: a user turn, its steps of calls, the final answer", () => {
  const [loop] = loopsOf(SOURCE);
  assert.equal(loop.user, "Weather and time in Paris");
  assert.deepEqual(loop.steps.map((step) => step.map((c) => c.name)), [["get_weather", "get_time"], ["get_weather"]]);
  assert.equal(loop.final, "18C at 9am");
});

test("fixtures: each answered call keyed by tool and whole input, is_error kept, repeats once", () => {
  const fixtures = fixturesOf([...SOURCE, user("again"), calls(["d", "get_weather", { location: "Paris" }]), results(["d", "other"])]);
  assert.deepEqual(
    fixtures.map((f) => [f.tool, f.match, f.content, f.is_error]),
    [
      ["get_weather", { location: "Paris" }, "18C", false],
      ["get_time", { city: "Paris" }, "9am", false],
      ["get_weather", { location: "Paris", days: 2 }, "rain", true],
    ],
  );
});

test("the same decisions do not diverge", () => {
  const [loop] = compareLoops(SOURCE, SOURCE);
  assert.equal(loop.diverged, false);
  assert.equal(loop.final.same, true);
});

test("divergence: order, input, count, a missing step and the final answer are named", () => {
  const replay = [
    user("Weather and time in Paris"),
    calls(["x", "get_time", { city: "Paris" }], ["y", "get_weather", { location: "Paris" }]),
    results(["x", "9am"], ["y", "18C"]),
    calls(["z", "get_weather", { location: "Paris", days: 3 }], ["w", "get_time", { city: "Paris" }]),
    results(["z", "sun"], ["w", "9am"]),
    calls(["v", "get_time", { city: "Rome" }]),
    results(["v", "8am"]),
    answer("different"),
  ];
  const [loop] = compareLoops(SOURCE, replay);
  assert.equal(loop.diverged, true);
  assert.deepEqual(loop.steps[0].notes, ["order: get_weather, get_time vs get_time, get_weather"]);
  assert.deepEqual(loop.steps[1].notes, ["count: 1 vs 2", "tools: get_weather vs get_weather, get_time", "get_weather input ~ days: 2 → 3"]);
  assert.deepEqual(loop.steps[2].notes, ["only in the replay"]);
  assert.deepEqual(loop.final, { source: "18C at 9am", replay: "different", same: false });
});

test("a loop not replayed yet is marked so", () => {
  const [loop] = compareLoops(SOURCE, []);
  assert.equal(loop.replayed, false);
  assert.deepEqual(loop.steps.map((s) => s.notes), [["only in the source"], ["only in the source"]]);
});

test("each replayed call is marked: run again on its server, from the recording, or otherwise", () => {
  const replay = [
    user("Weather and time in Paris"),
    calls(["x", "get_weather", { location: "Paris" }], ["y", "get_time", { city: "Paris" }]),
    results(["x", [{ type: "text", text: "18C" }]], ["y", "9am"]),
    calls(["z", "get_weather", { location: "Paris", days: 2 }]),
    results(["z", "rain"]), // the recording said is_error: answered otherwise
    calls(["w", "get_time", { city: "Rome" }]),
  ];
  const answers = answersOf(replay, { ranAgain: new Set(["y"]), fixtures: fixturesOf(SOURCE) });
  assert.deepEqual([...answers], [["x", "recorded"], ["y", "rerun"], ["z", "other"]]);
  const [loop] = compareLoops(SOURCE, replay, { answers });
  assert.deepEqual(loop.steps.map((step) => step.answers), [["recorded", "rerun"], ["other"], [null]]);
});

test("with no marks given, the replay's calls are unmarked", () => {
  const [loop] = compareLoops(SOURCE, SOURCE);
  assert.deepEqual(loop.steps.map((step) => step.answers), [[null, null], [null]]);
});
