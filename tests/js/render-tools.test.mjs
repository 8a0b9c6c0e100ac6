// Tool calls and results (render/tool-use.js, blocks.js under a DOM): live input, strict parse
// at stop, schema checks, stored turns. Moved from Chromium (tests/browser/test_render_tools.py,
// which keeps the one check that needs the browser: the validator under the strict CSP).
import assert from "node:assert/strict";
import { test } from "node:test";

import { newTurn, normalText, renderMessage, Stream, textOf } from "./dom-support.mjs";

const WEATHER = {
  type: "object",
  properties: { location: { type: "string" }, days: { type: "integer" } },
  required: ["location", "days"],
};
const SCHEMAS = { get_weather: WEATHER };

function toolStream() {
  const block = { type: "tool_use", id: "toolu_1", name: "get_weather", input: {} };
  return new Stream().messageStart().start(0, block).json(0, "");
}

const pretty = (value) => JSON.stringify(value, null, 2);
const toolOf = (node) => node.querySelector(".pg-tool");
const texts = (nodes) => [...nodes].map(textOf);

test("tool input grows while streaming", () => {
  const live = newTurn(SCHEMAS);
  const stream = toolStream().json(0, '{"location": "San Fr');
  live.apply(stream.take());
  const tool = toolOf(live.element);
  assert.equal(tool.dataset.toolState, "streaming");
  assert.equal(textOf(tool.querySelector(".pg-tool-input")), normalText(pretty({ location: "San Fr" })));

  live.apply(stream.json(0, 'ancisco", "days": 3').take());

  const expected = pretty({ location: "San Francisco", days: 3 });
  assert.equal(textOf(tool.querySelector(".pg-tool-input")), normalText(expected));
  assert.equal(textOf(tool.querySelector(".pg-tool-name")), "get_weather");
  assert.equal(textOf(tool.querySelector(".pg-tool-id")), "toolu_1");
});

test("valid tool input passes the schema", () => {
  const live = newTurn(SCHEMAS);
  live.apply(toolStream().json(0, '{"location": "Seoul", "days": 2}').stop(0).end("tool_use").take());
  live.finish({ stop_reason: "tool_use" });

  assert.equal(toolOf(live.element).dataset.toolValid, "true");
  assert.deepEqual(
    live.calls.map((c) => [c.id, c.input, c.valid]),
    [["toolu_1", { location: "Seoul", days: 2 }, true]],
  );
});

test("schema problems are listed", () => {
  // What each problem is (missing, mistyped, extra…) is schema.test.mjs; here, how the list is
  // drawn: one item per problem, with its kind and path.
  const live = newTurn(SCHEMAS);
  live.apply(toolStream().json(0, '{"days": "two", "units": "C"}').stop(0).take());

  const tool = toolOf(live.element);
  assert.equal(tool.dataset.toolValid, "false");
  assert.equal(tool.querySelectorAll(".pg-tool-problem").length, 3);
  for (const [problem, path] of [["missing", "$.location"], ["type", "$.days"], ["extra", "$.units"]]) {
    assert.equal(tool.querySelector(`.pg-tool-problem[data-problem='${problem}']`).dataset.path, path);
  }
});

test("invalid JSON is flagged with its raw text", () => {
  const live = newTurn(SCHEMAS);
  const raw = '{"location": "Seoul", days: 2}';
  live.apply(toolStream().json(0, raw).stop(0).take());

  const tool = toolOf(live.element);
  assert.equal(tool.dataset.toolJson, "invalid");
  assert.equal(tool.dataset.toolValid, "false");
  assert.equal(textOf(tool.querySelector(".pg-tool-raw")), raw);
  // The live view still shows what could be read before the error.
  assert.ok(tool.querySelector(".pg-tool-input").textContent.includes('"location": "Seoul"'));
});

test("a tool call cut off is marked incomplete", () => {
  const live = newTurn(SCHEMAS);
  live.apply(toolStream().json(0, '{"location": "Se').take());
  live.finish({ status: "truncated", stop_reason: "" });

  const tool = toolOf(live.element);
  assert.equal(tool.dataset.toolState, "incomplete");
  assert.equal(textOf(tool.querySelector(".pg-tool-raw")), '{"location": "Se');
});

test("an unknown tool name is flagged", () => {
  const block = { type: "tool_use", id: "toolu_2", name: "launch", input: { now: true } };
  const turn = renderMessage({ role: "assistant", content: [block] }, { toolSchemas: SCHEMAS });

  assert.equal(turn.querySelector(".pg-tool-problem").dataset.problem, "unknown_tool");
});

test("server tool calls are checked against the declared server tools", () => {
  // code_execution_20250825 is called as bash_code_execution and text_editor_code_execution;
  // a client tool of a server call's name does not declare it (issue 27 item 9).
  const calls = ["bash_code_execution", "text_editor_code_execution", "web_fetch"].map((name) => ({
    type: "server_tool_use", id: "srvtoolu_1", name, input: { command: "ls" },
  }));
  const tools = [
    { type: "code_execution_20250825", name: "code_execution" },
    { name: "web_fetch", input_schema: { type: "object", required: ["url"] } },
  ];
  const schemas = { web_fetch: tools[1].input_schema };
  const turn = renderMessage({ role: "assistant", content: calls }, { toolSchemas: schemas, tools });

  const views = turn.querySelectorAll("[data-block-type='server_tool_use']");
  assert.equal(views[0].dataset.toolValid, "true");
  assert.equal(views[1].dataset.toolValid, "true");
  // Ran by the server though undeclared: noted, not marked invalid (issue 43 item 19).
  assert.equal(views[2].dataset.toolValid, "noted");
  const note = views[2].querySelector(".pg-tool-notes .pg-tool-problem");
  assert.equal(note.dataset.problem, "unknown_server_tool");
  assert.equal(note.dataset.severity, "note");
  assert.equal(turn.querySelectorAll(".pg-tool-problem").length, 1);
});

for (const isError of [true, false]) {
  test(`a tool result marks errors (${isError ? "error" : "ok"})`, () => {
    const result = { type: "tool_result", tool_use_id: "toolu_1", content: "boom", is_error: isError };
    const turn = renderMessage({ role: "user", content: [result] });

    const block = turn.querySelector("[data-block-type='tool_result']");
    assert.equal(block.dataset.isError, isError ? "true" : "false");
    assert.equal(block.querySelectorAll(".pg-badge-error").length, isError ? 1 : 0);
    assert.equal(textOf(block.querySelector(".pg-tool-result-text")), "boom");
  });
}

test("a tool result with content blocks", () => {
  const content = [{ type: "text", text: "line one" }, { type: "text", text: "line two" }];
  const result = { type: "tool_result", tool_use_id: "toolu_1", content };
  const turn = renderMessage({ role: "user", content: [result] });

  assert.deepEqual(texts(turn.querySelectorAll(".pg-tool-result-text")), ["line one", "line two"]);
});

test("an unknown block is shown as raw JSON", () => {
  const block = { type: "sim_future_block", tool_use_id: "srv_1", content: [1, 2] };
  const turn = renderMessage({ role: "assistant", content: [block] });

  const unknown = turn.querySelector("[data-block-type='sim_future_block']");
  assert.equal(textOf(unknown.querySelector("summary")), "Block: sim_future_block");
  assert.equal(unknown.hasAttribute("open"), false); // collapsed: a label, the JSON a click away
  assert.deepEqual(JSON.parse(unknown.querySelector(".pg-unknown-json").textContent), block);
});

for (const [issue, state, title] of [
  ["invalid_json", "done", "Invalid JSON"],
  ["incomplete", "incomplete", "Incomplete: the call was cut off"],
]) {
  test(`a stored flagged tool call shows its raw JSON (${issue})`, () => {
    const raw = '{"location": "Se';
    const block = { type: "tool_use", id: "t1", name: "get_weather", input: { INVALID_JSON: raw } };
    const message = { role: "assistant", content: [block], run: { block_issues: { 0: issue } } };
    const turn = renderMessage(message, { toolSchemas: SCHEMAS });

    const tool = toolOf(turn);
    assert.equal(turn.dataset.flagged, "true");
    assert.equal(tool.dataset.toolState, state);
    assert.equal(tool.dataset.toolJson, "invalid");
    assert.equal(textOf(tool.querySelector(".pg-tool-invalid-title")), title);
    assert.equal(textOf(tool.querySelector(".pg-tool-raw")), raw);
  });
}

// Programmatic tool calling: a client tool called from the model's code names its caller, and a
// tool search result loads a tool by reference; both were drawn nowhere (issue 43 items 15, 19).
test("a call made from code execution names its caller; a direct one says nothing", () => {
  const caller = { type: "code_execution_20250825", tool_id: "srvtoolu_01PTC" };
  const calls = [
    { type: "tool_use", id: "toolu_1", name: "get_weather", input: { location: "Lyon", days: 1 }, caller },
    { type: "tool_use", id: "toolu_2", name: "get_weather", input: { location: "Nice", days: 1 }, caller: { type: "direct" } },
  ];
  const turn = renderMessage({ role: "assistant", content: calls }, { toolSchemas: SCHEMAS });
  const [first, second] = turn.querySelectorAll(".pg-tool");
  const said = first.querySelector(".pg-tool-caller");
  assert.equal(said.dataset.caller, "code_execution_20250825");
  assert.equal(textOf(said), "called from code execution srvtoolu_01PTC");
  assert.equal(second.querySelector(".pg-tool-caller"), null);
});

test("a tool_reference in a tool result is drawn as the tool it loads", () => {
  const result = {
    type: "tool_result",
    tool_use_id: "toolu_search",
    content: [{ type: "text", text: "1 tool found" }, { type: "tool_reference", tool_name: "get_weather" }],
  };
  const turn = renderMessage({ role: "user", content: [result] });
  const reference = turn.querySelector(".pg-tool-reference");
  assert.equal(reference.dataset.toolReference, "get_weather");
  assert.equal(textOf(reference), "Loads the tool get_weather");
  assert.equal(turn.querySelectorAll(".pg-unknown").length, 0);
});
