// @ts-check
/**
 * MCP tools on the page (docs/mcp.md): the settings panel's server list (state, why it failed,
 * tools, approval) with "Add to tools", and on each pending call an MCP server can run a bar
 * with Run / Cancel, the live progress and log notices, and the converted result put in the
 * card, editable before it is sent; a failure is named on the card, which can still be
 * answered by hand or by a mock.
 *
 * Rule: the server runs the call; this module never learns a command, a URL or a secret. The
 * call goes as an `mcp_call` action on the conversation's socket when it is open (answered by
 * `mcp_call` frames, each carrying one line; Cancel sends `mcp_cancel`; a socket lost mid-call
 * fails the call, which the server cancelled), else as POST /api/mcp/call/ (NDJSON lines, Cancel
 * aborts the request): the same lines either way (docs/mcp.md). Decisions are mcp-plan.js's (pure). The approval policy is the
 * server's (the conversation's `mcp_approval` and each tool's mark), which it holds at every door: a click
 * (Run, Always allow) sends the call as allowed once, a call on auto is sent as it is, and the server
 * refuses one its policy does not let run. Every call's JSON-RPC exchanges go to the inspector's MCP
 * tab (copyable as JSONL); the server stores them with the call (the conversation and the
 * tool_use id go with it), so the tab shows them again after a reload. "Add to tools" stores
 * each added tool's server mark beside the tools (POST …/mcp-tools/). State for tests: [data-mcp-panel][data-loaded], [data-mcp-inspector][data-count],
 * .mcp-server[data-state], and a card's data-mcp="ready|running|done|failed|cancelled".
 */

import { apiFetch, csrfHeaders } from "./api.js";
import { el, one } from "./dom.js";
import { resultText } from "./mock-match.js";
import { McpCatalog } from "./mcp-catalog.js";
import { McpInspector } from "./mcp-inspector.js";
import { byHandBox } from "./mcp-by-hand.js";
import { storeImages } from "./mcp-images.js";
import { annotationWords, approvalFor, connectBody, isDestructive, marksOf, policyOf, unavailableWhy, mergeTools, noticeText, ranOnServer, readLines, splitCalls, toolIndex, toolMatches, withApproval } from "./mcp-plan.js";
import { QUESTION_KINDS, endQuestions, showQuestion } from "./mcp-questions.js";

/** A call's end when the socket it was sent on went away (the server cancelled the call). */

const LOST = { type: "error", error: { code: "connection_lost", message: "the connection was lost during the call (it was cancelled)" } };

export class McpTools {
  #panel;
  #cardsRoot;
  #urls;
  #servers = [];
  #removed = []; // the servers a reloaded file no longer names ([{name, removed_at}])
  #index = new Map();
  #policy; // {servers, tools}: the server's, as this page last stored it
  #running = new Map(); // call id → AbortController
  #ran = new Set(); // the tool_use ids a server answered with a result (stored, or run here)
  #conversationId;
  #inspector;
  #onAddTools;
  #onChange;
  /** @type {Promise<unknown> | null} */
  #loaded = null; // the first listing (a promise), which step mode waits for
  #loadTurn = 0; // the newest listing asked for (only its answer is drawn)
  /** @type {Promise<unknown> | null} */
  #latestLoad = null;
  #socket; // () => the page's ConversationSocket (or null)
  #marks; // () => the conversation's server marks ({name: {server, mcp_name}})
  #profiles; // the upstream profiles a sampling request may run on ([{name, label, models}])
  #runs; // the inspector: a sampling answer's run is listed there ({addRun, show})
  #onSocket = new Map(); // call_id → {onNotice, resolve, started} of the calls sent on the socket
  #sent = 0;
  #marksQueue = Promise.resolve(); // the last of the server marks' stores, which go one after another
  #marksFailed = false; // one of the queued stores failed (its error is shown)
  #approvalStored = Promise.resolve(); // the last server choice's store
  #catalog; // each server's resources and prompts (mcp-catalog.js)
  #addMock; // (mock) => Promise<boolean>: a by-hand result kept as a mock (mocks.js), or null
  #stepOn; // () => whether step mode is on (it runs the calls on auto itself)
  #search = ""; // the picker's search words

  /**
   * @param {HTMLElement} panel
   * @param {{ cardsRoot: any, inspector: any, urls: any, conversationId: string, onAddTools: any, onChange?: () => void, socket?: () => any, marks?: () => Record<string, any>, approval?: { servers?: Record<string, string> }, profiles?: Array<{ name: string, label?: string, models?: string[] }>, runs?: { addRun: (run: { id: string, label: string }) => void, show: (runId: string) => void }, composer?: import("./mcp-catalog.js").ComposerTarget | null, addMock?: ((mock: any) => Promise<boolean>) | null, stepOn?: () => boolean }} options
   */
  constructor(panel, { cardsRoot, inspector, urls, conversationId, onAddTools, onChange = () => {}, socket = () => null, marks = () => ({}), approval = {}, profiles = [], runs = { addRun: () => {}, show: () => {} }, composer = null, addMock = null, stepOn = () => false }) {
    this.#addMock = addMock;
    this.#stepOn = stepOn;
    this.#panel = panel;
    this.#profiles = profiles;
    this.#runs = runs;
    this.#marks = marks;
    this.#socket = socket;
    this.#inspector = new McpInspector(inspector, { urls });
    this.#cardsRoot = cardsRoot;
    this.#urls = urls;
    this.#conversationId = conversationId;
    this.#onAddTools = onAddTools;
    this.#onChange = onChange;
    this.#policy = policyOf(approval, marks() ?? {});
    this.#catalog = new McpCatalog({ urls, composer }); // a resource attached, a prompt inserted: in the composer
    one(panel, "[data-action='mcp-connect']").addEventListener("click", () => this.load({ connect: true }));
    panel.querySelector("[data-action='mcp-reload']")?.addEventListener("click", () => this.#reload());
  }

  /** Resolves once the servers were listed once (their tools known), failed or not. */
  whenLoaded() {
    return this.#loaded ?? this.load({ connect: true });
  }

  /** The servers as the server lists them; `connect` starts those not started: `true` every
   * one, a list of names those (the ones the conversation's tools come from). */
  load(options) {
    const loading = this.#load(options, ++this.#loadTurn);
    this.#latestLoad = loading;
    this.#loaded ??= loading;
    return loading;
  }

  /** Only the newest listing asked for is drawn: Connect clicked while the page's own listing
   * is out could otherwise be answered first and then drawn over by the older, staler one. A
   * listing overtaken that way resolves when the newest is drawn. */
  async #load({ connect = false } = {}, turn) {
    this.#panel.dataset.loaded = "loading";
    try {
      // Starting a server is a use of it: a POST (CSRF-checked), never a GET.
      const body = connectBody(connect);
      const answer = body ? await apiFetch(this.#urls.mcp_connect, { method: "POST", body }) : await apiFetch(this.#urls.mcp_servers);
      if (turn !== this.#loadTurn) return this.#latestLoad;
      this.#servers = answer.servers;
      this.#removed = answer.removed ?? [];
      this.#index = toolIndex(this.#servers);
      this.#drawPanel();
      this.#panel.dataset.loaded = "true";
      this.#inspector.loadSessions(); // the handshakes of the servers just started
    } catch (error) {
      if (turn !== this.#loadTurn) return this.#latestLoad;
      one(this.#panel, "[data-mcp-error]").textContent = error.message;
      this.#panel.dataset.loaded = "failed";
    }
    this.#onChange();
  }

  /** Staff: the operator's servers file read again now; what changed is said on the panel. */
  async #reload() {
    const said = one(this.#panel, "[data-mcp-reloaded]");
    said.textContent = "reading the servers file…";
    try {
      const answer = await apiFetch(this.#urls.mcp_reload, { method: "POST", body: {} });
      const change = answer.reloaded;
      const parts = change ? [["added", change.added], ["removed", change.removed], ["restarted", change.changed], ["roots announced", change.roots_changed]].filter(([, names]) => names.length).map(([what, names]) => `${what}: ${names.join(", ")}`) : [];
      said.textContent = change?.error ? `Not reloaded: ${change.error}` : `Reloaded${parts.length ? ` (${parts.join("; ")})` : ": nothing changed"}.`;
      this.#panel.dataset.reloaded = change?.error ? "failed" : "true";
      await this.load({});
    } catch (error) {
      said.textContent = `Not reloaded: ${error.message}`;
      this.#panel.dataset.reloaded = "failed";
    }
  }

  /** The calls the server stored for this conversation (a reload's inspector), drawn before
   * any run on this page; `data-stored` on the tab says it is done ("true", or "failed"). */
  async loadRecorded() {
    try {
      const { calls } = await apiFetch(this.#urls.mcp_calls);
      this.#inspector.addStored(calls);
      for (const id of ranOnServer(calls)) this.#ran.add(id);
      for (const call of calls) {
        for (const run of call.sampling_runs ?? []) this.#runs.addRun({ id: run.id, label: `Sampling for ${call.server} · ${run.model} on ${run.profile}` });
      }
    } catch {
      this.#inspector.storedFailed();
    }
  }

  /** The tool_use ids answered by a run on their server (replay.js marks them "run again"). */
  ranOnServer() {
    return new Set(this.#ran);
  }

  /** Pending calls split by the approval policy (step mode runs the `auto` ones). */
  split(calls) {
    return splitCalls(calls, this.#index, this.#policy);
  }

  // --- The settings panel -------------------------------------------------------------------

  #drawPanel() {
    const list = one(this.#panel, "[data-mcp-servers]");
    one(this.#panel, "[data-mcp-error]").textContent = "";
    this.#catalog.stop(); // the lists are drawn closed again: nothing to watch
    list.replaceChildren(this.#searchBox(), ...this.#servers.map((server) => this.#serverItem(server)));
    this.#filter();
  }

  /** The picker's search: every server's tools whose name, title or description hold every
   * word typed; the others hidden (a tool ticked stays ticked). */
  #searchBox() {
    const input = el("input", { className: "input input-small", attrs: { type: "search", placeholder: "Search the servers' tools", "aria-label": "Search the servers' tools" }, dataset: { mcpSearch: "" } });
    input.value = this.#search;
    input.addEventListener("input", () => {
      this.#search = input.value;
      this.#filter();
    });
    return el("li", { className: "mcp-search" }, input);
  }

  #filter() {
    for (const row of this.#panel.querySelectorAll(".mcp-tool[data-tool-name]")) {
      const found = this.#index.get(/** @type {HTMLElement} */ (row).dataset.toolName);
      /** @type {HTMLElement} */ (row).hidden = Boolean(found) && !toolMatches({ ...found.tool, title: found.title }, this.#search);
    }
  }

  #serverItem(server) {
    // A server nothing here used yet is not started by opening the page: say how to list it.
    const stopped = server.state === "stopped";
    const state = el("span", { className: "mcp-state", text: stopped ? "not started" : server.state, dataset: { mcpState: server.state } });
    const hint = stopped ? " — Connect / refresh starts it and lists its tools" : "";
    const why = el("span", { className: "muted", text: server.reason ? ` — ${server.reason}` : hint });
    const approval = this.#approvalSelect({ server: server.name }, `Approval for ${server.name}`);
    const boxes = server.tools.map((tool) => {
      // Nothing is ticked until the person chooses (a server's every tool once was).
      const box = el("input", { attrs: { type: "checkbox", "aria-label": `Add ${tool.name}` }, dataset: { mcpTool: tool.name } });
      const own = this.#approvalSelect({ server: server.name, mcpName: tool.mcp_name }, `Approval for ${tool.name}`);
      return { tool, box, row: this.#toolRow(server, tool, box, own) };
    });
    const add = el("button", { className: "btn btn-small", text: "Add to tools", attrs: { type: "button" }, dataset: { action: "mcp-add-tools" } });
    add.disabled = boxes.length === 0;
    add.addEventListener("click", () => {
      const chosen = boxes.filter((b) => b.box.checked).map((b) => this.#index.get(b.tool.name));
      if (!chosen.length) return;
      this.#onAddTools((current) => mergeTools(current, chosen.map((entry) => entry.tool)));
      this.#storeMarks(chosen);
    });
    return el(
      "li",
      { className: "mcp-server", dataset: { server: server.name, state: server.state } },
      el("div", { className: "mcp-server-head" }, el("strong", { text: server.name }), server.mine ? el("span", { className: "badge mcp-mine", text: "yours", dataset: { mcpMine: "" } }) : "", el("span", { className: "muted", text: ` ${server.transport} · ${server.where} · ` }), state, why),
      el("label", { className: "field-row" }, el("span", { className: "muted", text: "Run calls:" }), approval),
      el("ul", { className: "mcp-tools" }, ...boxes.map((b) => b.row)),
      add,
      this.#catalog.section(server),
    );
  }

  /** A tool of the picker: its name and title, description, annotations, approval, and a
   * Run… that opens a form of its input schema (mcp-by-hand.js). */
  #toolRow(server, tool, box, approval) {
    const words = annotationWords(tool.annotations);
    const open = el("button", { className: "btn btn-ghost btn-small", text: "Run…", attrs: { type: "button", "aria-expanded": "false" }, dataset: { action: "mcp-by-hand" } });
    const place = el("div", { className: "mcp-by-hand-place" });
    open.addEventListener("click", () => {
      const shown = place.firstChild !== null;
      if (shown) place.replaceChildren();
      else place.append(byHandBox({ name: tool.name, server: server.name, mcpName: tool.mcp_name, schema: tool.input_schema }, { urls: this.#urls, addMock: this.#addMock, profiles: this.#profiles }));
      open.setAttribute("aria-expanded", String(!shown));
    });
    return el(
      "li",
      { className: "mcp-tool", dataset: { toolName: tool.name, destructive: String(isDestructive(tool.annotations)) } },
      el("div", { className: "mcp-tool-head" }, el("label", { className: "check" }, box, el("code", { text: tool.name })), approval, open),
      tool.title ? el("span", { className: "mcp-tool-title", text: tool.title }) : "",
      tool.description ? el("p", { className: "muted mcp-description", text: tool.description }) : "",
      words.length ? el("span", { className: "mcp-annotations", text: words.join(" · "), dataset: { annotations: words.join(" ") } }) : "",
      el("details", { className: "mcp-schema" }, el("summary", { text: "Input schema" }), el("pre", { className: "mcp-preview", text: JSON.stringify(tool.input_schema ?? {}, null, 2), dataset: { mcpSchema: "" } })),
      place,
    );
  }

  #approvalSelect(where, label) {
    const select = el("select", { className: "input input-small", attrs: { "aria-label": label }, dataset: { mcpApproval: where.mcpName ?? "" } });
    const inherited = where.mcpName ? [["", "as the server"]] : [];
    // A server's auto leaves out the tools that may be destructive (mcp-plan.js approvalFor).
    const auto = where.mcpName ? "auto" : "auto (not destructive tools)";
    for (const [value, text] of [...inherited, ["ask", "ask"], ["auto", auto]]) select.append(el("option", { text, attrs: { value } }));
    const own = where.mcpName ? (this.#policy.tools[`${where.server}/${where.mcpName}`] ?? "") : approvalFor(this.#policy, { server: where.server, mcpName: "" });
    select.value = own;
    select.addEventListener("change", () => {
      this.#policy = withApproval(this.#policy, { ...where, mcpName: where.mcpName ?? null, value: select.value || undefined });
      if (where.mcpName) this.#storeApproval(where.server, where.mcpName);
      else this.#storeServerApproval(where.server, select.value || null);
      this.#onChange();
    });
    return select;
  }

  /** Which server each added tool came from, kept beside the tools (not sent upstream).
   * Adds are stored one at a time, in the order they were made, and data-marks says "saved"
   * only once every one queued is stored: two quick adds once showed "saved" when the first
   * answered, with the second still on its way. Resolves when this add's turn is done. */
  #storeMarks(entries) {
    this.#panel.dataset.marks = "saving";
    const body = { mcp_tools: marksOf(entries, this.#policy) };
    const store = this.#marksQueue.then(async () => {
      try {
        await apiFetch(this.#urls.mcp_marks, { method: "POST", body });
      } catch (error) {
        one(this.#panel, "[data-mcp-error]").textContent = `The tools' servers were not stored: ${error.message}`;
        this.#marksFailed = true;
      }
      if (store !== this.#marksQueue) return; // another add is queued behind this one
      this.#panel.dataset.marks = this.#marksFailed ? "failed" : "saved";
      this.#marksFailed = false;
    });
    this.#marksQueue = store;
    return store;
  }

  /** A tool's own approval, stored with its mark on the server (what a grid's loop reads),
   * for the conversation's tools of that server and name. */
  #storeApproval(server, mcpName) {
    const entries = [...this.#index.values()].filter((entry) => entry.server === server && entry.mcpName === mcpName);
    if (entries.length) this.#storeMarks(entries);
  }

  /** A server's choice, stored on the server (which holds every call to it). */
  #storeServerApproval(server, approval) {
    this.#approvalStored = this.#approvalStored.then(() => this.#sendServerApproval(server, approval));
  }

  async #sendServerApproval(server, approval) {
    this.#panel.dataset.approval = "saving";
    try {
      await apiFetch(this.#urls.mcp_approval, { method: "POST", body: { server, approval } });
      this.#panel.dataset.approval = "saved";
    } catch (error) {
      one(this.#panel, "[data-mcp-error]").textContent = `The approval was not stored: ${error.message}`;
      this.#panel.dataset.approval = "failed";
    }
  }

  // --- The result cards ---------------------------------------------------------------------

  #card(callId) {
    return this.#cardsRoot.querySelector(`.tool-card[data-tool-use-id="${CSS.escape(String(callId))}"]`);
  }

  /** The pending calls' cards are drawn: a Run bar on each an MCP server can run, and on each
   * whose tool came from a server that cannot run it now (removed from the configuration,
   * failed, its tool gone) a word saying so, instead of no bar at all. */
  decorate(calls) {
    const marks = this.#marks() ?? {};
    for (const call of calls) {
      const found = this.#index.get(call.name);
      const card = this.#card(call.id);
      if (!card) continue;
      const note = card.querySelector(":scope > .tool-card-mcp[data-mcp-unavailable]");
      if (found && note) {
        note.remove(); // its server lists it again (Connect / refresh): Run is back
        delete card.dataset.mcp;
      }
      if (card.querySelector(":scope > .tool-card-mcp")) continue;
      if (found) {
        card.append(this.#bar(call, card, found));
        card.dataset.mcp ??= "ready";
        // Auto in every mode: outside step mode (which runs them itself, then sends) a call
        // on auto runs as soon as its card is drawn; its result waits in the card to be sent.
        if (!this.#stepOn() && !this.#ran.has(call.id) && approvalFor(this.#policy, found) === "auto") {
          card.dataset.mcpAuto = "true";
          this.run(call);
        }
        continue;
      }
      const why = this.#panel.dataset.loaded === "true" ? unavailableWhy(marks[call.name], this.#servers, this.#removed) : null;
      if (!why) continue;
      card.append(el("div", { className: "tool-card-mcp muted", text: why, dataset: { mcpUnavailable: "" } }));
      card.dataset.mcp = "unavailable";
    }
  }

  /** The card's MCP bar: Run on <server> (allow this once), Always allow (this tool runs
   * without asking in this conversation from now on, this call included), Cancel, the status,
   * the notices, and the tool's annotations. */
  #bar(call, card, found) {
    const run = el("button", { className: "btn btn-small", text: `Run on ${found.server}`, attrs: { type: "button", title: "Allow once: run this call on its server" }, dataset: { action: "mcp-run" } });
    const always = el("button", { className: "btn btn-ghost btn-small", text: "Always allow", attrs: { type: "button", title: "Run this tool's calls without asking, in this conversation" }, dataset: { action: "mcp-always" } });
    const cancel = el("button", { className: "btn btn-ghost btn-small", text: "Cancel", attrs: { type: "button", hidden: "" }, dataset: { action: "mcp-cancel" } });
    const status = el("span", { className: "muted", dataset: { mcpStatus: "" }, attrs: { "aria-live": "polite" } });
    const notices = el("ol", { className: "mcp-notices", dataset: { mcpNotices: "" } });
    const words = annotationWords(found.annotations);
    const hints = el("span", { className: "mcp-annotations", text: words.join(" · "), dataset: { annotations: words.join(" ") } });
    // A click is the person's approval of this call (allow once), which the server requires.
    run.addEventListener("click", () => this.run(call, { once: true }));
    always.addEventListener("click", () => {
      this.#policy = withApproval(this.#policy, { server: found.server, mcpName: found.mcpName, value: "auto" });
      this.#storeApproval(found.server, found.mcpName);
      this.#drawPanel(); // the tool's select says auto now
      this.run(call, { once: true });
      this.#onChange();
    });
    cancel.addEventListener("click", () => this.#running.get(call.id)?.abort());
    return el("div", { className: "tool-card-mcp" }, run, always, cancel, status, hints, notices);
  }

  /** Run `call` on its server and put the converted result in its card; resolves when done
   * (true when a result was put there). `once`: the person allowed this call (a click); else
   * the server runs it only if the conversation's policy says auto for it. */
  async run(call, { once = false } = {}) {
    const found = this.#index.get(call.name);
    const card = this.#card(call.id);
    if (!found || !card || this.#running.has(call.id)) return false;
    const bar = one(card, ".tool-card-mcp");
    const [runButton, always, cancel, status, , notices] = bar.children;
    const abort = new AbortController();
    const startedAt = Date.now(); // the server's own start is in the last line; this if none came
    this.#running.set(call.id, abort);
    card.dataset.mcp = "running";
    runButton.disabled = true;
    always.disabled = true;
    cancel.hidden = false;
    status.textContent = "running…";
    notices.replaceChildren();
    let final = null;
    try {
      // A call on auto goes once the choices made on this page are stored: the server decides.
      if (!once) await Promise.all([this.#marksQueue, this.#approvalStored]);
      const socket = this.#socket();
      const onSocket = Boolean(socket?.isOpen);
      // What the server asks meanwhile (sampling, elicitation) is answered the way the call went.
      const reply = (question, answer) =>
        onSocket && socket.isOpen ? socket.send({ action: "mcp_answer", question, answer }) : apiFetch(this.#urls.mcp_answers, { method: "POST", body: { question, answer } }).catch((error) => { status.textContent = `the answer was not taken: ${error.message}`; });
      const onNotice = (notice) => {
        if (QUESTION_KINDS.has(notice.kind)) return showQuestion({ bar, card, server: found.server, notice, reply, profiles: this.#profiles, runs: this.#runs });
        notices.append(el("li", { text: `+${notice.at_ms} ms ${noticeText(notice)}` }));
      };
      // The conversation and the call: the server stores the exchanges with them.
      const body = { server: found.server, tool: found.mcpName, input: call.input ?? {}, ...(once ? { approval: "once" } : {}) };
      final = onSocket ? await this.#callOnSocket(socket, call, body, abort.signal, onNotice) : await this.#callOverHttp(call, body, abort, onNotice);
    } finally {
      this.#running.delete(call.id);
      runButton.disabled = false;
      always.disabled = false;
      cancel.hidden = true;
      endQuestions(bar, card);
    }
    this.#inspector.addCall({ callId: call.id, server: found.server, tool: found.mcpName, startedAt: final.started_at ?? startedAt }, final.exchanges);
    this.#inspector.loadSessions(); // what the session said meanwhile (a listing, a root asked)
    if (final.type === "result") {
      this.#ran.add(call.id);
      // Its images stored and shown as pictures, named after their server (mcp-images.js).
      status.textContent = "storing the result's images…";
      const { content, pictures } = await storeImages(final.content, { server: found.server, urls: this.#urls });
      final = { ...final, content };
      bar.querySelector(":scope > .mcp-images")?.remove();
      if (pictures.length) bar.append(el("div", { className: "mcp-images", dataset: { images: String(pictures.length) } }, ...pictures));
    }
    return this.#show(call, card, status, final);
  }

  /** The call as a socket action; resolves with its last line (result, error or cancelled). */
  #callOnSocket(socket, call, body, signal, onNotice) {
    this.#sent += 1;
    const callId = String(this.#sent);
    return new Promise((resolve) => {
      this.#onSocket.set(callId, { onNotice, resolve, started: false });
      const sent = socket.send({ action: "mcp_call", call_id: callId, ...body, tool_use_id: call.id });
      if (!sent) this.#settle(callId, LOST);
      signal.addEventListener("abort", () => socket.send({ action: "mcp_cancel", call_id: callId }) || this.#settle(callId, { type: "cancelled" }), { once: true });
    });
  }

  /** A frame of the page's socket about a call sent on it (page.js hands them here). */
  frame(frame) {
    if (frame.type === "error") {
      // An action refused before it ran (its fields): the oldest call not yet started, since
      // the server answers a socket's actions in order.
      const [refused] = [...this.#onSocket].find(([, entry]) => !entry.started) ?? [];
      if (refused !== undefined) this.#settle(refused, { type: "error", error: frame.error });
      return;
    }
    const entry = this.#onSocket.get(frame.call_id);
    if (!entry) return;
    const line = frame.line ?? {};
    if (line.type === "started") entry.started = true;
    else if (line.type === "notice") entry.onNotice(line);
    else if (["result", "error", "cancelled"].includes(line.type)) this.#settle(frame.call_id, line);
  }

  /** The socket closed: its calls were cancelled by the server, and end here as failed. */
  socketLost() {
    for (const callId of [...this.#onSocket.keys()]) this.#settle(callId, LOST);
  }

  #settle(callId, line) {
    const entry = this.#onSocket.get(callId);
    if (!entry) return;
    this.#onSocket.delete(callId);
    entry.resolve(line);
  }

  async #callOverHttp(call, body, abort, onNotice) {
    try {
      const response = await fetch(this.#urls.mcp_call, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
        body: JSON.stringify({ ...body, conversation: this.#conversationId, tool_use_id: call.id }),
        signal: abort.signal,
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => null);
        return { type: "error", error: answer?.error ?? { message: `the server answered ${response.status}` } };
      }
      return await this.#readStream(response, onNotice);
    } catch {
      return abort.signal.aborted ? { type: "cancelled" } : { type: "error", error: { message: "the server could not be reached" } };
    }
  }

  async #readStream(response, onNotice) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    let final = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const read = readLines(rest + value);
      rest = read.rest;
      for (const line of read.values) {
        if (line.type === "notice") onNotice(line);
        else if (line.type === "result" || line.type === "error") final = line;
      }
    }
    return final ?? { type: "error", error: { message: "the answer ended before its result" } };
  }

  #show(call, card, status, final) {
    if (final.type === "cancelled") {
      card.dataset.mcp = "cancelled";
      status.textContent = "cancelled (the server was told); answer by hand, or Run again";
      return false;
    }
    if (final.type === "error") {
      card.dataset.mcp = "failed";
      card.dataset.mcpError = final.error.code ?? "error";
      status.textContent = `${final.error.message} — answer by hand, or Run again`;
      return false;
    }
    const input = one(card, "[data-tool-result-input]");
    input.value = resultText(final.content);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    const toggle = one(card, "[data-tool-result-error]");
    toggle.checked = Boolean(final.is_error);
    toggle.dispatchEvent(new Event("change", { bubbles: true }));
    card.dataset.mcp = "done";
    delete card.dataset.mcpError;
    const omitted = final.omitted_notices ? `; ${final.omitted_notices} more notices not shown` : "";
    status.textContent = `result in ${final.elapsed_ms} ms${final.is_error ? " (is_error)" : ""}${omitted}; edit it before sending if you like`;
    return true;
  }
}
