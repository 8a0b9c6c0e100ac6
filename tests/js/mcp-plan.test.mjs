// MCP tools on the page, the pure part (static/playground/mcp-plan.js).
import assert from "node:assert/strict";
import { test } from "node:test";

import { RERUN_POLICY, annotationWords, policyOf, promptParts, approvalFor, isDestructive, toolMatches, exchangeLabel, exchangeRecords, connectBody, marksOf, unavailableWhy, mergeTools, messagesTool, noticeText, ranOnServer, readLines, serversInUse, splitCalls, storedRecords, toolIndex, withApproval } from "../../static/playground/mcp-plan.js";

const servers = [
  { name: "time", state: "connected", tools: [{ name: "time__now", mcp_name: "now", title: "Now", annotations: { readOnlyHint: true }, input_schema: { type: "object" } }] },
  { name: "fault", state: "failed", reason: "gone", tools: [] },
];
const call = (id, name) => ({ type: "tool_use", id, name, input: {} });

test("the index maps a listed name to its server and MCP name", () => {
  const found = toolIndex(servers).get("time__now");
  // The title and annotations are the picker's and the approval's, never the model's.
  assert.deepEqual(found, { server: "time", mcpName: "now", title: "Now", annotations: { readOnlyHint: true }, tool: { name: "time__now", input_schema: { type: "object" } } });
  assert.equal(toolIndex(servers).get("now"), undefined);
});

test("a listed tool loses its mcp_name as a Messages API tool", () => {
  assert.deepEqual(messagesTool({ name: "a", mcp_name: "b", description: "d" }), { name: "a", description: "d" });
});

test("merging replaces a tool of the same name and appends the others", () => {
  const current = [{ name: "get_weather" }, { name: "time__now", description: "old" }];
  const merged = mergeTools(current, [{ name: "time__now", description: "new" }, { name: "time__zone" }]);
  assert.deepEqual(merged.tools.map((t) => t.description ?? t.name), ["get_weather", "new", "time__zone"]);
  assert.deepEqual([merged.added, merged.replaced], [["time__zone"], ["time__now"]]);
  assert.equal(current[1].description, "old"); // not mutated
});

test("NDJSON lines are read whole; a partial one is kept", () => {
  const first = readLines('{"type":"notice"}\n{"type":"res');
  assert.deepEqual(first.values, [{ type: "notice" }]);
  assert.equal(first.rest, '{"type":"res');
  assert.deepEqual(readLines(`${first.rest}ult"}\n`).values, [{ type: "result" }]);
});

test("notices read as words", () => {
  assert.equal(noticeText({ kind: "progress", params: { progress: 2, total: 3 } }), "progress 2/3");
  assert.equal(noticeText({ kind: "log", params: { level: "info", logger: "x", data: { a: 1 } } }), 'log info (x): {"a":1}');
});

test("approval: ask by default, a server's auto, a tool's own choice first", () => {
  const where = { server: "time", mcpName: "now" };
  assert.equal(approvalFor(undefined, where), "ask");
  const serverAuto = withApproval({}, { server: "time", value: "auto" });
  assert.equal(approvalFor(serverAuto, where), "auto");
  const toolAsk = withApproval(serverAuto, { server: "time", mcpName: "now", value: "ask" });
  assert.equal(approvalFor(toolAsk, where), "ask");
  assert.equal(approvalFor(toolAsk, { server: "time", mcpName: "zone" }), "auto");
  assert.equal(approvalFor(RERUN_POLICY, where), "auto");
  assert.equal(approvalFor(withApproval(RERUN_POLICY, { server: "time", value: "ask" }), where), "ask");
});

test("pending calls split into auto, ask and the rest", () => {
  const policy = withApproval({}, { server: "time", value: "auto" });
  const split = splitCalls([call("1", "time__now"), call("2", "get_weather")], toolIndex(servers), policy);
  assert.deepEqual([split.auto.map((c) => c.id), split.ask, split.other.map((c) => c.id)], [["1"], [], ["2"]]);
  assert.deepEqual(splitCalls([call("1", "time__now")], toolIndex(servers), {}).ask.map((c) => c.id), ["1"]);
});

test("exchanges become inspector records with short labels", () => {
  const exchanges = [
    { at_ms: 0.4, direction: "sent", message: { jsonrpc: "2.0", id: 3, method: "tools/call", params: {} } },
    { at_ms: 5, direction: "received", message: { jsonrpc: "2.0", method: "notifications/progress", params: {} } },
    { at_ms: 9.1, direction: "received", message: { jsonrpc: "2.0", id: 3, result: {} } },
    { at_ms: 9.2, direction: "received", message: { id: 4, omitted_bytes: 2000000 } },
    { at_ms: 9.3, direction: "received", message: { id: 5, error: { code: -32602, message: "bad" } } },
  ];
  const records = exchangeRecords({ callId: "toolu_1", server: "s", tool: "t" }, exchanges);
  assert.deepEqual(records[0], { call_id: "toolu_1", server: "s", tool: "t", ...exchanges[0] });
  assert.deepEqual(records.map(exchangeLabel), [
    "→ tools/call #3",
    "← notifications/progress",
    "← result #3",
    "← result #4 (2000000 bytes, not kept)",
    "← error #5: bad",
  ]);
});

const STORED = [
  { tool_use_id: "toolu_1", run: "r1", server: "time", tool: "now", outcome: "result", exchanges: [{ at_ms: 0, direction: "sent", message: { id: 3, method: "tools/call" } }, { at_ms: 1.5, direction: "received", message: { id: 3, result: {} } }] },
  { tool_use_id: "toolu_2", run: null, server: "time", tool: "now", outcome: "error", exchanges: [{ at_ms: 0, direction: "sent", message: { id: 4, method: "tools/call" } }] },
];

test("stored calls read back as the records the page made, with their run", () => {
  const records = storedRecords(STORED);
  assert.deepEqual(
    records.map((r) => [r.call_id, r.run, r.at_ms, exchangeLabel(r)]),
    [["toolu_1", "r1", 0, "→ tools/call #3"], ["toolu_1", "r1", 1.5, "← result #3"], ["toolu_2", undefined, 0, "→ tools/call #4"]],
  );
  assert.equal("run" in exchangeRecords({ callId: "x", server: "s", tool: "t" }, [{}])[0], false);
});

test("only calls that got a result ran on their server", () => {
  assert.deepEqual([...ranOnServer(STORED)], ["toolu_1"]);
});

test("marks name each added tool's server and MCP name", () => {
  const entries = [toolIndex(servers).get("time__now")];
  assert.deepEqual(marksOf(entries), { time__now: { server: "time", mcp_name: "now" } });
  // The tool's own approval goes with its mark (a grid runs only a tool set to auto).
  const policy = withApproval({ servers: { time: "auto" }, tools: {} }, { server: "time", mcpName: "now", value: "auto" });
  assert.deepEqual(marksOf(entries, policy), { time__now: { server: "time", mcp_name: "now", approval: "auto" } });
  assert.deepEqual(marksOf(entries, { servers: { time: "auto" }, tools: {} }), { time__now: { server: "time", mcp_name: "now" } });
});

test("a page starts only the servers its conversation's tools come from", () => {
  const marks = { b__x: { server: "b", mcp_name: "x" }, a__y: { server: "a", mcp_name: "y" }, b__z: { server: "b", mcp_name: "z" }, odd: null };
  assert.deepEqual(serversInUse(marks), ["a", "b"]);
  assert.deepEqual(serversInUse(undefined), []);
  assert.deepEqual(connectBody(serversInUse(marks)), { servers: ["a", "b"] });
  assert.equal(connectBody([]), null);
  assert.deepEqual(connectBody(true), {});
  assert.equal(connectBody(false), null);
});

test("a call whose server cannot run it says why: removed, failed, not started, tool gone", () => {
  const servers = [
    { name: "bad", state: "failed", reason: "command not found (x)", tools: [] },
    { name: "idle", state: "stopped", reason: "", tools: [] },
    { name: "up", state: "connected", reason: "", tools: [] },
  ];
  assert.match(unavailableWhy({ server: "gone", mcp_name: "t" }, servers), /“gone” is not configured any more: answer it by hand or by a mock/);
  assert.match(unavailableWhy({ server: "bad", mcp_name: "t" }, servers), /“bad” failed \(command not found \(x\)\)/);
  assert.match(unavailableWhy({ server: "idle", mcp_name: "t" }, servers), /not started: Connect \/ refresh starts it/);
  assert.match(unavailableWhy({ server: "up", mcp_name: "t" }, servers), /no longer lists t/);
  assert.equal(unavailableWhy(undefined, servers), null, "a tool typed by hand is no server's");
});

test("a call ended by a fault, and the notifications not kept, have their own labels", () => {
  assert.equal(exchangeLabel({ direction: "received", message: { id: 3, fault: { code: "mcp_too_large", message: "over the limit" } } }), "← ended #3: over the limit");
  assert.equal(exchangeLabel({ direction: "received", message: { omitted_notifications: 4800 } }), "← 4800 more notifications, not kept");
});

test("an elicitation's schema becomes typed fields, and the form's values typed content", async () => {
  const { elicitationLink, samplingText } = await import("../../static/playground/mcp-plan.js");
  const { schemaFields: elicitationFields, schemaContent: elicitationContent } = await import("../../static/playground/mcp-schema.js");
  const schema = {
    type: "object",
    properties: {
      name: { type: "string", title: "Name", description: "Your name" },
      email: { type: "string", format: "email" },
      age: { type: "integer" },
      agree: { type: "boolean" },
      pet: { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"], default: "pet-1" },
    },
    required: ["name"],
  };
  const fields = elicitationFields(schema);
  assert.deepEqual(fields.map((f) => [f.name, f.kind, f.required]), [["name", "text", true], ["email", "email", false], ["age", "integer", false], ["agree", "boolean", false], ["pet", "choice", false]]);
  assert.deepEqual(fields[4].options, [{ value: "pet-1", label: "Cats" }, { value: "pet-2", label: "Dogs" }]);
  assert.deepEqual(elicitationContent(fields, { name: "", age: "3" }), { error: "Name is required", field: "name" });
  assert.deepEqual(elicitationContent(fields, { name: "Ada", age: "3.5" }), { error: "age must be a whole number", field: "age" });
  assert.deepEqual(elicitationContent(fields, { name: "Ada", age: "36", agree: true, pet: "pet-2" }), { content: { name: "Ada", age: 36, agree: true, pet: "pet-2" } });
  assert.deepEqual(elicitationLink("https://example.com/pay?x=1"), { href: "https://example.com/pay?x=1", origin: "https://example.com" });
  assert.equal(elicitationLink("javascript:alert(1)"), null);
  assert.equal(samplingText({ messages: [{ role: "user", content: [{ type: "text", text: "hi" }, { type: "image" }] }] }), "user: hi [image]");
});

test("a server's auto leaves out a tool that may be destructive; its own auto and a replay's do not", () => {
  const readOnly = { server: "fs", mcpName: "read", annotations: { readOnlyHint: true } };
  const writes = { server: "fs", mcpName: "write", annotations: { readOnlyHint: false, destructiveHint: true } };
  const unannotated = { server: "fs", mcpName: "x", annotations: {} };
  const serverAuto = withApproval(undefined, { server: "fs", value: "auto" });
  assert.equal(approvalFor(serverAuto, readOnly), "auto");
  assert.equal(approvalFor(serverAuto, writes), "ask");
  assert.equal(approvalFor(serverAuto, unannotated), "ask", "MCP's defaults: it may be destructive");
  assert.equal(approvalFor(withApproval(serverAuto, { server: "fs", mcpName: "write", value: "auto" }), writes), "auto");
  assert.equal(approvalFor(RERUN_POLICY, writes), "auto");
});

test("annotations read as MCP's defaults read them, in words", () => {
  assert.equal(isDestructive({}), true);
  assert.equal(isDestructive({ readOnlyHint: false, destructiveHint: false }), false);
  assert.deepEqual(annotationWords({ readOnlyHint: true, idempotentHint: true, openWorldHint: false }), ["read-only", "idempotent"]);
  assert.deepEqual(annotationWords({ destructiveHint: true, openWorldHint: true }), ["destructive", "open world"]);
  assert.deepEqual(annotationWords(undefined), ["may be destructive"]);
});

test("a tool matches the search when every word is in its name, title or description", () => {
  const tool = { name: "everything__echo", title: "Echo", description: "Echoes back the input" };
  assert.equal(toolMatches(tool, ""), true);
  assert.equal(toolMatches(tool, "ECHO input"), true);
  assert.equal(toolMatches(tool, "echo sum"), false);
});

test("the page's approval is the server's: the same table as tests/test_mcp_approval.py", async () => {
  const { readFile } = await import("node:fs/promises");
  const cases = JSON.parse(await readFile(new URL("../fixtures/mcp_approval_cases.json", import.meta.url), "utf8"));
  for (const c of cases) {
    const where = { server: c.server, mcpName: c.tool, annotations: c.annotations };
    assert.equal(approvalFor({ servers: c.servers, tools: c.tools }, where), c.expected, c.id);
  }
});

test("the page's policy is read from the server's: its servers and each mark's own choice", () => {
  const marks = { fs__write: { server: "fs", mcp_name: "write", approval: "auto" }, fs__read: { server: "fs", mcp_name: "read" } };
  assert.deepEqual(policyOf({ servers: { "*": "auto" } }, marks), { servers: { "*": "auto" }, tools: { "fs/write": "auto" } });
  assert.deepEqual(policyOf(undefined, undefined), { servers: {}, tools: {} });
});

test("a prompt's turns up to its last assistant turn go in the conversation, the rest in the composer", () => {
  const user = (text) => ({ role: "user", content: [{ type: "text", text }] });
  const assistant = (text) => ({ role: "assistant", content: [{ type: "text", text }] });
  assert.deepEqual(promptParts([user("a"), assistant("b"), user("c")]), { turns: [user("a"), assistant("b")], composer: [{ type: "text", text: "c" }] });
  assert.deepEqual(promptParts([user("a"), assistant("b")]), { turns: [user("a"), assistant("b")], composer: [] });
  assert.deepEqual(promptParts([user("a"), user("b")]), { turns: [], composer: [{ type: "text", text: "a" }, { type: "text", text: "b" }] });
});
