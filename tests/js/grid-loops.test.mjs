import { test } from "node:test";
import assert from "node:assert/strict";

import { confirmText } from "../../static/playground/grid/experiment-view.js";
import { loopLine, loopSummaryLine, optionsFrom, optionsLine, repeatsLine, trajectoryLines } from "../../static/playground/grid/grid-loops.js";

test("a loop says its turns and how it ended, and nothing for a cell with no loop", () => {
  assert.equal(loopLine({ turns: null, loop_end: null }), null);
  assert.equal(loopLine({ turns: 3, loop_end: "answered" }), "3 turns · answered");
  assert.equal(loopLine({ turns: 1, loop_end: "needs_result" }), "1 turn · needs a result");
  assert.equal(loopLine({ turns: 5, loop_end: "turn_cap" }), "5 turns · stopped at the turn cap");
});

test("each call of a trajectory names its turn, tool, input, result and where it came from", () => {
  const lines = trajectoryLines([
    { turn: 1, name: "get_weather", input: { city: "Lyon" }, result: "Sunny", source: "mock" },
    { turn: 2, name: "search", input: { q: "x" }, result: [{ type: "text", text: "boom" }], is_error: true, source: "mcp" },
    { turn: 2, name: "get_time", input: {}, result: null, source: null, note: "no saved mock answers this call" },
  ]);
  assert.deepEqual(lines.map((line) => line.source), ["mock", "mcp", "none"]);
  assert.equal(lines[0].text, '1. get_weather {"city":"Lyon"} → Sunny (mock)');
  assert.equal(lines[1].text, '2. search {"q":"x"} → [{"type":"text","text":"boom"}] (mcp is_error)');
  assert.equal(lines[2].text, "2. get_time {} → no result (no saved mock answers this call)");
  assert.equal(trajectoryLines(undefined).length, 0);
  const asked = trajectoryLines([
    { turn: 1, name: "s", input: {}, result: "ok", source: "mcp", asked: [{ kind: "sampling", run: { id: "1a2b3c4d5e", profile: "simulator", model: "simulator-1" } }] },
    { turn: 1, name: "s", input: {}, result: "no", source: "mcp", asked: [{ kind: "sampling", refused: "the grid names no sampling profile" }, { kind: "elicitation", action: "decline" }] },
  ]);
  assert.equal(asked[0].text, "1. s {} → ok (mcp) · sampling answered on simulator/simulator-1 (run 1a2b3c4d)");
  assert.equal(asked[1].text, "1. s {} → no (mcp) · sampling refused: the grid names no sampling profile · elicitation declined");
  const long = trajectoryLines([{ turn: 1, name: "t", input: "i", result: "r".repeat(200), source: "mock" }]);
  assert.ok(long[0].text.includes(`${"r".repeat(80)}…`));
});

test("repeats read k/N passed, unstable, and the spread of latency and tokens", () => {
  assert.equal(repeatsLine(null), null);
  const line = repeatsLine({ asked: 3, done: 3, passed: 2, unstable: true, latency_ms: { min: 900, median: 1200, max: 2000 }, output_tokens: { min: 0, median: 52, max: 60 } });
  assert.equal(line, "2/3 passed · unstable · latency 900 ms / 1.20 s / 2.00 s · out 0 / 52 / 60 tok (min / median / max)");
  assert.equal(repeatsLine({ asked: 4, done: 2, passed: 2, unstable: false, latency_ms: null, output_tokens: null }), "2/4 passed · 2 of 4 ran");
});

test("a column names the cells owing a result and its unstable rows", () => {
  assert.equal(loopSummaryLine({ needs_result: 0, unstable: [] }), "");
  assert.equal(loopSummaryLine({ needs_result: 1, unstable: [1, 4] }), "1 needs a result · unstable rows #2, #5");
  assert.equal(loopSummaryLine({ needs_result: 2 }), "2 need a result");
  assert.equal(loopSummaryLine(undefined), "");
});

test("the options form is read within its bounds and said in a line", () => {
  assert.deepEqual(optionsFrom({ toolLoop: true, mcp: false, maxTurns: "40", repeats: "0" }), { tool_loop: true, mcp: false, max_turns: 20, repeats: 1, sampling_profile: "", sampling_model: "" });
  assert.deepEqual(optionsFrom({ toolLoop: false, mcp: true, maxTurns: "", repeats: "3", samplingProfile: " simulator ", samplingModel: "" }), { tool_loop: false, mcp: true, max_turns: 5, repeats: 3, sampling_profile: "simulator", sampling_model: "" });
  const loop = { tool_loop: true, mcp: true, max_turns: 4, repeats: 3, sampling_profile: "", sampling_model: "" };
  assert.equal(optionsLine(loop), "tool loop (saved mocks, MCP tools) · up to 4 turns · 3 repeats");
  assert.equal(optionsLine({ ...loop, repeats: 1, sampling_profile: "simulator", sampling_model: "simulator-1" }), "tool loop (saved mocks, MCP tools) · up to 4 turns · MCP sampling on simulator/simulator-1 · once");
  assert.equal(optionsLine({ ...loop, tool_loop: false, mcp: false, repeats: 1 }), "one answer · once");
});

test("a re-run's question counts each repeat and what a tool loop may take at most", () => {
  const text = confirmText({ cells: 2, judges: 4, calls: 8, answered: 2, repeats: 2, max_calls: 24 });
  assert.equal(text, "Run 2 cell(s) again? This makes 8 upstream call(s) (2 answer(s) × 2 repeats and 4 judge call(s)), up to 24 with the tool loops' turns; 2 earlier answer(s) stay in their experiment.");
});
