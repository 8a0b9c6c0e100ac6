// Choosing a saved mock for a tool call (static/playground/mock-match.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { answerCalls, describeMatch, inputMatches, mockFor, mockFromCall, resultText } from "../../static/playground/mock-match.js";

const call = (name, input, id = "t1") => ({ type: "tool_use", id, name, input });
const mock = (tool, match, content, extra = {}) => ({ tool, match, content, is_error: false, auto: false, ...extra });

test("a match is a subset of the input, nested objects too; arrays and scalars are equal or not", () => {
  assert.equal(inputMatches({ location: "Paris" }, { location: "Paris", unit: "c" }), true);
  assert.equal(inputMatches({ location: "Paris" }, { location: "paris" }), false);
  assert.equal(inputMatches({ where: { city: "Paris" } }, { where: { city: "Paris", zip: "75001" } }), true);
  assert.equal(inputMatches({ tags: ["a"] }, { tags: ["a", "b"] }), false);
  assert.equal(inputMatches({ n: 1 }, { n: "1" }), false);
  assert.equal(inputMatches({ missing: null }, {}), false);
  assert.equal(inputMatches({}, {}), true);
});

test("the first matching mock wins over a catch-all, whatever their order; another tool's never", () => {
  const mocks = [mock("get_weather", null, "any"), mock("get_time", { city: "Paris" }, "9am"), mock("get_weather", { location: "Paris" }, "18C"), mock("get_weather", { location: "Paris" }, "later")];
  assert.equal(mockFor(call("get_weather", { location: "Paris" }), mocks).content, "18C");
  assert.equal(mockFor(call("get_weather", { location: "Rome" }), mocks).content, "any");
  assert.equal(mockFor(call("get_time", { city: "Rome" }), mocks), null);
  assert.equal(mockFor(call("unknown", {}), mocks), null);
});

test("parallel calls: each answered or listed as missing, in order", () => {
  const mocks = [mock("get_weather", { location: "Paris" }, "18C")];
  const calls = [call("get_weather", { location: "Paris" }, "a"), call("get_weather", { location: "Rome" }, "b"), call("get_time", {}, "c")];
  const { answered, missing } = answerCalls(calls, mocks);
  assert.deepEqual(answered.map(({ call: c }) => c.id), ["a"]);
  assert.deepEqual(missing.map((c) => c.id), ["b", "c"]);
});

test("a mock reads as card text, and an answered call becomes a mock matched on its input", () => {
  assert.equal(resultText('{"temp": 18}'), '{"temp": 18}');
  assert.equal(resultText([{ type: "text", text: "x" }]), '[\n  {\n    "type": "text",\n    "text": "x"\n  }\n]');
  assert.deepEqual(mockFromCall(call("get_weather", { location: "Paris" }), { content: "18C", isError: true }), {
    tool: "get_weather",
    match: { location: "Paris" },
    content: "18C",
    is_error: true,
    auto: false,
  });
  assert.equal(mockFromCall(call("now", {}), { content: "x", isError: false }).match, null);
  assert.equal(describeMatch({ location: "Paris", n: 2 }), 'location = "Paris", n = 2');
  assert.equal(describeMatch(null), "any call");
});
