// The inspector's MCP tab (static/playground/mcp-inspector.js) under happy-dom: a call that
// started first is shown first though it ended last; the session's handshake is in the same
// timeline, labelled with the server's capabilities, and read again without doubling.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";

const { McpInspector } = await import("../../static/playground/mcp-inspector.js");

const json = (body) => new Response(JSON.stringify(body), { status: 200, headers: { "Content-Type": "application/json" } });

test("calls in the order they started, the handshake among them, each message once", async () => {
  window.document.body.innerHTML = `<div data-mcp-inspector><button data-action="copy-mcp-jsonl"></button><ol data-mcp-exchanges></ol></div>`;
  const root = window.document.querySelector("[data-mcp-inspector]");
  const sessions = {
    sessions: [{
      server: "everything",
      started_at: 1000,
      exchanges: [
        { at: 1001, direction: "sent", message: { jsonrpc: "2.0", id: 0, method: "initialize" } },
        { at: 1002, direction: "received", answers: "initialize", message: { jsonrpc: "2.0", id: 0, result: { serverInfo: { name: "everything", version: "2" }, capabilities: { tools: {}, prompts: {}, logging: {} } } } },
      ],
    }],
  };
  globalThis.fetch = async () => json(sessions);
  const inspector = new McpInspector(root, { urls: { mcp_sessions: "/sessions/" } });
  // The slow call started at 2000 and ended last; the quick one started at 3000.
  inspector.addCall({ callId: "quick", server: "time", tool: "now", startedAt: 3000 }, [
    { at_ms: 0, direction: "sent", message: { id: 2, method: "tools/call" } },
    { at_ms: 5, direction: "received", message: { id: 2, result: {} } },
  ]);
  inspector.addCall({ callId: "slow", server: "everything", tool: "echo", startedAt: 2000 }, [
    { at_ms: 0, direction: "sent", message: { id: 1, method: "tools/call" } },
    { at_ms: 4000, direction: "received", message: { id: 1, result: {} } },
  ]);
  await inspector.loadSessions();
  await inspector.loadSessions(); // read again: nothing doubles
  const rows = [...root.querySelectorAll("li")].map((row) => row.querySelector("code").textContent);
  assert.deepEqual(rows, [
    "everything session → initialize #0",
    "everything session ← initialize result #0: everything 2, capabilities logging, prompts, tools",
    "everything/echo → tools/call #1",
    "time/now → tools/call #2",
    "time/now ← result #2",
    "everything/echo ← result #1",
  ]);
  assert.equal(root.dataset.count, "6");
  assert.deepEqual(inspector.jsonl().split("\n").map((line) => JSON.parse(line).at), [1001, 1002, 2000, 3000, 3005, 6000]);
});
