// Server tool calls are judged by the server tools declared, never by the client tools
// (static/playground/render/server-tools.js; issue 27 item 9).
import assert from "node:assert/strict";
import { test } from "node:test";

import { callProblems, serverToolNames } from "../../static/playground/render/server-tools.js";

const WEATHER = {
  name: "get_weather",
  input_schema: { type: "object", properties: { city: { type: "string" } }, required: ["city"] },
};
const CODE_EXECUTION = { type: "code_execution_20250825", name: "code_execution" };
const serverCall = (name, input = {}) => ({ type: "server_tool_use", id: "srvtoolu_1", name, input });
const clientCall = (name, input) => ({ type: "tool_use", id: "toolu_1", name, input });
const checks = (tools) => ({
  toolSchemas: Object.fromEntries(tools.filter((t) => t.input_schema).map((t) => [t.name, t.input_schema])),
  serverTools: serverToolNames(tools),
});

test("each server tool type declares the names its calls carry", () => {
  // Programmatic tool calling runs the model's Python as `code_execution` (the SDK's
  // ServerToolUseBlock names it so) under the later versions too.
  assert.deepEqual(serverToolNames([CODE_EXECUTION]), ["code_execution", "bash_code_execution", "text_editor_code_execution"]);
  assert.deepEqual(serverToolNames([{ type: "code_execution_20250522", name: "code_execution" }]), ["code_execution"]);
  assert.deepEqual(serverToolNames([{ type: "web_search_20250305", name: "web_search", max_uses: 3 }]), ["web_search"]);
  assert.deepEqual(serverToolNames([{ type: "web_fetch_20250910", name: "web_fetch" }]), ["web_fetch"]);
  // One this table does not know is called by its declared name.
  assert.deepEqual(serverToolNames([{ type: "tool_search_tool_regex_20251119", name: "tool_search_tool_regex" }]), [
    "tool_search_tool_regex",
  ]);
  // Client tools declare none.
  assert.deepEqual(serverToolNames([WEATHER, { ...WEATHER, type: "custom" }]), []);
  assert.deepEqual(serverToolNames(undefined), []);
});

test("bash and text editor calls under code_execution_20250825 are not flagged", () => {
  const options = checks([WEATHER, CODE_EXECUTION]);
  assert.deepEqual(callProblems(serverCall("bash_code_execution", { command: "ls" }), options), []);
  assert.deepEqual(callProblems(serverCall("text_editor_code_execution", { command: "view", path: "a" }), options), []);
});

test("a server tool call is never checked against the client tools", () => {
  // A client tool of that very name does not declare the server tool...
  const clientOnly = checks([{ name: "bash_code_execution", input_schema: { type: "object" } }]);
  const [problem] = callProblems(serverCall("bash_code_execution"), clientOnly);
  assert.equal(problem.problem, "unknown_server_tool");
  assert.match(problem.message, /declared: none/);
  // ...nor is a server call's input held to a client schema of the same name.
  const both = checks([{ ...WEATHER, name: "web_search" }, { type: "web_search_20250305", name: "web_search" }]);
  assert.deepEqual(callProblems(serverCall("web_search", { query: 5 }), both), []);
});

test("a server tool call no declared server tool makes is noted, naming the declared ones", () => {
  const [problem] = callProblems(serverCall("web_fetch"), checks([CODE_EXECUTION]));
  assert.equal(problem.problem, "unknown_server_tool");
  // The server ran it: a note for the person, not a fault of the call (issue 43 item 19).
  assert.equal(problem.severity, "note");
  assert.match(problem.message, /bash_code_execution, text_editor_code_execution/);
  // None declared is a verdict too (the share page and the conversation's page agree on it).
  assert.match(callProblems(serverCall("web_search"), checks([]))[0].message, /declared: none/);
});

test("programmatic tool calling's code_execution call is declared by code_execution_20260120", () => {
  const options = checks([{ type: "code_execution_20260120", name: "code_execution" }]);
  assert.deepEqual(callProblems(serverCall("code_execution", { code: "await query('x')" }), options), []);
});

test("client tool calls are checked as before: offered by name, input against the schema", () => {
  const options = checks([WEATHER, CODE_EXECUTION]);
  assert.deepEqual(callProblems(clientCall("get_weather", { city: "Paris" }), options), []);
  assert.equal(callProblems(clientCall("get_weather", {}), options)[0].problem, "missing");
  assert.equal(callProblems(clientCall("nope", {}), options)[0].problem, "unknown_tool");
});

test("nothing to check against: no verdict", () => {
  assert.equal(callProblems(serverCall("web_search"), {}), null);
  assert.equal(callProblems(clientCall("get_weather", {}), {}), null);
});

test("an MCP connector call is the MCP server's to check, never the client tools'", () => {
  const call = { type: "mcp_tool_use", id: "mcptoolu_1", name: "get_weather", server_name: "s", input: {} };
  assert.equal(callProblems(call, checks([WEATHER])), null);
});
