// Step mode's decisions (static/playground/step-plan.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { DEFAULT_LIMIT, limitProblem, planStep, readLimit, stepWords } from "../../static/playground/step-plan.js";

const call = (id, name, input = {}) => ({ type: "tool_use", id, name, input });
const mocks = [
  { tool: "get_weather", match: null, content: "18C", is_error: false, auto: false },
  { tool: "get_time", match: { city: "Paris" }, content: "9am", is_error: false, auto: false },
];

test("every call mocked: send, or pause first when asked", () => {
  const calls = [call("a", "get_weather"), call("b", "get_time", { city: "Paris" })];
  const move = planStep({ calls, mocks, sent: 0, limit: 10, pause: false });
  assert.equal(move.do, "send");
  assert.deepEqual(move.answered.map(({ mock }) => mock.content), ["18C", "9am"]);
  assert.equal(planStep({ calls, mocks, sent: 0, limit: 10, pause: true }).do, "pause");
});

test("a call with no mock stops the loop, naming it; the others are still answered", () => {
  const calls = [call("a", "get_weather"), call("b", "get_time", { city: "Rome" })];
  const move = planStep({ calls, mocks, sent: 2, limit: 10, pause: false });
  assert.deepEqual([move.do, move.reason, move.missing.map((c) => c.id), move.answered.length], ["stop", "no_mock", ["b"], 1]);
  assert.match(stepWords(move, { sent: 2, limit: 10 }), /no mock for get_time/);
});

test("the limit stops the loop after that many sends; no calls means done", () => {
  const calls = [call("a", "get_weather")];
  assert.equal(planStep({ calls, mocks, sent: 2, limit: 3, pause: false }).do, "send");
  const stopped = planStep({ calls, mocks, sent: 3, limit: 3, pause: false });
  assert.deepEqual([stopped.do, stopped.reason], ["stop", "limit"]);
  assert.equal(planStep({ calls: [], mocks, sent: 3, limit: 3, pause: false }).do, "done");
});

test("the limit a person types: a whole number from 1 to 1000, else the default of 10", () => {
  assert.equal(DEFAULT_LIMIT, 10);
  assert.equal(readLimit("3"), 3);
  assert.equal(readLimit(" 25 "), 25);
  for (const bad of ["", "0", "-2", "2.5", "abc", "1001", null]) assert.equal(readLimit(bad), 10, String(bad));
});

test("a limit that is no whole number from 1 to 1000 is named, not replaced", () => {
  for (const good of ["1", " 25 ", "1000"]) assert.equal(limitProblem(good), "", good);
  for (const bad of ["", "0", "-1", "1e9", "2.5", "abc", "1001"]) {
    assert.match(limitProblem(bad), /a whole number from 1 to 1000/, bad);
  }
  assert.match(limitProblem("0"), /got "0"/);
});

test("a call waiting on its MCP server's approval is named so, not as lacking a mock", () => {
  const calls = [{ type: "tool_use", id: "1", name: "fs__write", input: {} }, { type: "tool_use", id: "2", name: "get_time", input: {} }];
  const move = planStep({ calls, mocks: [], sent: 0, limit: 10, pause: false });
  const words = stepWords(move, { sent: 0, limit: 10, asking: new Set(["1"]) });
  assert.match(words, /waiting for your approval to run fs__write on its MCP server/);
  assert.match(words, /no mock for get_time\./);
  assert.doesNotMatch(words, /no mock for fs__write/);
  const alone = stepWords(planStep({ calls: [calls[0]], mocks: [], sent: 0, limit: 10, pause: false }), { sent: 0, limit: 10, asking: new Set(["1"]) });
  assert.doesNotMatch(alone, /no mock/);
});
