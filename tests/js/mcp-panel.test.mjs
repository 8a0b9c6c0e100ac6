// The MCP servers' panel (static/playground/mcp-tools.js) under happy-dom, against a fake server
// whose answers the test releases one at a time, so the order things arrive in is the test's:
// - "Add to tools" stores each added tool's server mark; the stores go one after another in the
//   order of the adds, and data-marks says "saved" only once every one queued is stored (two
//   quick adds once showed "saved" with the second still on its way);
// - of two listings out at once (the page's own, then Connect / refresh), only the newer is drawn,
//   whichever answers first.
import assert from "node:assert/strict";
import { test } from "node:test";

import { window } from "./dom-support.mjs";

const { McpTools } = await import("../../static/playground/mcp-tools.js");

const SERVERS = [
  { name: "time", state: "connected", transport: "stdio", where: "python", reason: "",
    tools: [{ name: "time__get_current_time", mcp_name: "get_current_time", input_schema: { type: "object" } }] },
  { name: "everything", state: "connected", transport: "stdio", where: "node", reason: "",
    tools: [{ name: "everything__echo", mcp_name: "echo", input_schema: { type: "object" } }] },
];

/** A fetch that lists SERVERS at once and holds every marks POST until the test answers it. */
function fakeServer() {
  const held = []; // {body, answer(status)} of each marks POST, in the order it was sent
  globalThis.fetch = async (url, init = {}) => {
    if (String(url).startsWith("/servers")) return json(200, { servers: SERVERS });
    return new Promise((resolve) => {
      held.push({
        body: JSON.parse(init.body),
        answer: (status) => resolve(json(status, status === 200 ? { mcp_tools: {} } : { error: { code: "conflict", message: "the conversation is busy" } })),
      });
    });
  };
  return held;
}

const json = (status, body) => new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json" } });

/** Resolves after a turn of the event loop: the callbacks already queued have run. Used only
 * before a check that something did NOT happen; what must happen is waited for with `until`. */
const settled = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Resolves once `condition()` holds, checked on each turn of the event loop; fails after 5 s. */
async function until(condition, what) {
  const deadline = Date.now() + 5000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`waited 5 s for ${what}`);
    await settled();
  }
}

async function mount({ marks = {} } = {}) {
  window.document.body.innerHTML = `
    <section data-mcp-panel data-loaded="false"><button data-action="mcp-connect"></button>
      <ul data-mcp-servers></ul><p data-mcp-error></p></section>
    <div data-mcp-inspector><button data-action="copy-mcp-jsonl"></button><ol data-mcp-exchanges></ol></div>
    <div data-cards></div>`;
  const panel = window.document.querySelector("[data-mcp-panel]");
  const added = [];
  const tools = new McpTools(panel, {
    cardsRoot: window.document.querySelector("[data-cards]"),
    inspector: window.document.querySelector("[data-mcp-inspector]"),
    urls: { mcp_servers: "/servers/", mcp_connect: "/servers/connect/", mcp_marks: "/marks/" },
    conversationId: "c1",
    onAddTools: (change) => added.push(change([])),
    marks: () => marks,
  });
  await tools.load({ connect: true });
  // Nothing is ticked until chosen: an add ticks its server's tools first.
  const add = (server) => {
    for (const box of panel.querySelectorAll(`.mcp-server[data-server='${server}'] [data-mcp-tool]`)) box.checked = true;
    panel.querySelector(`.mcp-server[data-server='${server}'] [data-action='mcp-add-tools']`).click();
  };
  return { panel, add, added, tools };
}

test("two quick adds are stored in order, one at a time, and 'saved' waits for the last", async () => {
  const held = fakeServer();
  const { panel, add, added } = await mount();
  add("time");
  add("everything");
  assert.equal(added.length, 2, "both adds reached the tools box at once");
  await until(() => held.length === 1, "the first store");
  await settled();
  assert.equal(held.length, 1, "the second store waits for the first");
  assert.deepEqual(Object.keys(held[0].body.mcp_tools), ["time__get_current_time"]);
  assert.equal(panel.dataset.marks, "saving");

  held[0].answer(200);
  await until(() => held.length === 2, "the second store, once the first is done");
  assert.equal(panel.dataset.marks, "saving", "the first answer is not the end: the second is queued");
  assert.equal(held.length, 2);
  assert.deepEqual(held[1].body.mcp_tools, { everything__echo: { server: "everything", mcp_name: "echo" } });

  held[1].answer(200);
  await until(() => panel.dataset.marks !== "saving", "the end of the stores");
  assert.equal(panel.dataset.marks, "saved");
  assert.equal(panel.querySelector("[data-mcp-error]").textContent, "");
});

test("a store that fails among several leaves 'failed' and its reason, and the rest are still sent", async () => {
  const held = fakeServer();
  const { panel, add } = await mount();
  add("time");
  add("everything");
  await until(() => held.length === 1, "the first store");
  held[0].answer(409);
  await until(() => held.length === 2, "the second store, once the first failed");
  assert.equal(panel.dataset.marks, "saving");
  assert.match(panel.querySelector("[data-mcp-error]").textContent, /not stored: the conversation is busy/);
  held[1].answer(200);
  await until(() => panel.dataset.marks !== "saving", "the end of the stores");
  assert.equal(panel.dataset.marks, "failed", "a later success does not hide the earlier failure");

  add("time"); // a new add after the failure starts afresh
  await until(() => held.length === 3, "the third store");
  held[2].answer(200);
  await until(() => panel.dataset.marks !== "saving", "the end of the third store");
  assert.equal(panel.dataset.marks, "saved");
});

test("a listing overtaken by a newer one is not drawn over it, whichever answers first", async () => {
  const held = fakeServer();
  const { panel, tools } = await mount(); // its own listing answered: both servers connected
  const listings = [];
  const listed = globalThis.fetch;
  globalThis.fetch = (url, init) => String(url).startsWith("/servers")
    ? new Promise((resolve) => listings.push({ url: String(url), method: init?.method, body: init?.body, answer: (servers) => resolve(json(200, { servers })) }))
    : listed(url, init);
  const older = tools.load({ connect: ["time"] });
  const newer = tools.load({ connect: true });
  let olderDone = false;
  older.then(() => { olderDone = true; });
  assert.deepEqual(
    listings.map((l) => [l.method, l.url, l.body]),
    [["POST", "/servers/connect/", '{"servers":["time"]}'], ["POST", "/servers/connect/", "{}"]],
  );

  listings[1].answer(SERVERS.map((server) => ({ ...server, state: "connected" })));
  await newer;
  assert.equal(panel.dataset.loaded, "true");
  listings[0].answer(SERVERS.map((server) => ({ ...server, state: "stopped", tools: [] })));
  await older;
  assert.ok(olderDone);
  const states = [...panel.querySelectorAll(".mcp-server")].map((item) => item.dataset.state);
  assert.deepEqual(states, ["connected", "connected"], "the older answer was dropped");
  assert.equal(panel.querySelectorAll("[data-mcp-tool]").length, 2);
  assert.equal(held.length, 0);
});

test("a listing overtaken resolves only once the newest is drawn (step mode waits on the first)", async () => {
  fakeServer();
  const { panel, tools } = await mount();
  const listings = [];
  globalThis.fetch = (url) => new Promise((resolve) => listings.push({ answer: (servers) => resolve(json(200, { servers })) }));
  const older = tools.load({ connect: ["time"] });
  tools.load({ connect: true });
  let olderDone = false;
  older.then(() => { olderDone = true; });
  listings[0].answer([]);
  await settled();
  assert.equal(olderDone, false, "the older answer arrived first but is not the listing drawn");
  assert.equal(panel.dataset.loaded, "loading");
  listings[1].answer(SERVERS);
  await older;
  assert.equal(panel.querySelectorAll(".mcp-server").length, 2);
});

test("a pending call of a server no longer configured gets a word, not a silent card", async () => {
  fakeServer();
  const marks = { gone__lookup: { server: "gone", mcp_name: "lookup" }, time__get_current_time: { server: "time", mcp_name: "get_current_time" } };
  const { tools } = await mount({ marks });
  const cards = window.document.querySelector("[data-cards]");
  cards.innerHTML = `<div class="tool-card" data-tool-use-id="t1"></div><div class="tool-card" data-tool-use-id="t2"></div><div class="tool-card" data-tool-use-id="t3"></div>`;
  tools.decorate([
    { id: "t1", name: "gone__lookup", input: {} },
    { id: "t2", name: "time__get_current_time", input: {} },
    { id: "t3", name: "typed_by_hand", input: {} },
  ]);
  const [gone, time, typed] = cards.querySelectorAll(".tool-card");
  assert.equal(gone.dataset.mcp, "unavailable");
  assert.match(gone.textContent, /“gone” is not configured any more: answer it by hand or by a mock/);
  assert.equal(time.dataset.mcp, "ready");
  assert.ok(time.querySelector("[data-action='mcp-run']"));
  assert.equal(typed.dataset.mcp, undefined, "a tool of no server's gets nothing");
});

test("the picker ticks nothing, and its search hides the tools that do not match", async () => {
  fakeServer();
  const { panel } = await mount();
  const boxes = [...panel.querySelectorAll("[data-mcp-tool]")];
  assert.equal(boxes.length, 2);
  assert.ok(boxes.every((box) => !box.checked), "nothing ticked until chosen");
  const search = panel.querySelector("[data-mcp-search]");
  search.value = "CURRENT time";
  search.dispatchEvent(new window.Event("input"));
  const shown = [...panel.querySelectorAll(".mcp-tool")].filter((row) => !row.hidden).map((row) => row.dataset.toolName);
  assert.deepEqual(shown, ["time__get_current_time"]);
});
