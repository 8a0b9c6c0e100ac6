// @ts-check
/**
 * The inspector's MCP tab: every JSON-RPC message of this conversation's MCP calls and of the
 * sessions they ran on (the handshake: `initialize` and the server's capabilities,
 * `tools/list`; the listings; notifications; what a server asked with no call under way), in
 * one timeline in the order they passed, so calls read in the order they started whatever
 * order they ended in. Each row opens as JSON; the whole copies as JSONL.
 *
 * Rule: rows are placed by their time (`data-at`, epoch ms), never appended at a call's end;
 * a message already shown is not shown twice (the sessions' messages are read again with each
 * listing). The server's words go in as text. State for tests: data-count (rows),
 * data-stored="true|failed" (the stored calls read after a reload).
 */

import { apiFetch } from "./api.js";
import { copyText, el, one } from "./dom.js";
import { exchangeLabel, exchangeRecords, recordKey, sessionRecords, storedRecords } from "./mcp-plan.js";

export class McpInspector {
  #root;
  #list;
  #urls;
  /** @type {Map<string, any>} */
  #records = new Map();

  constructor(root, { urls }) {
    this.#root = root;
    this.#urls = urls;
    this.#list = one(root, "[data-mcp-exchanges]");
    one(root, "[data-action='copy-mcp-jsonl']").addEventListener("click", (event) => copyText(/** @type {HTMLElement} */ (event.currentTarget), this.jsonl()));
  }

  /** Every record shown, in the timeline's order, one JSON object a line. */
  jsonl() {
    return this.#sorted().map((record) => JSON.stringify(record)).join("\n");
  }

  /** A call run on this page ended: its messages, placed by when each passed. */
  addCall({ callId, server, tool, startedAt }, exchanges) {
    this.#add(exchangeRecords({ callId, server, tool, startedAt }, exchanges));
  }

  /** The calls the server stored for this conversation (a reload). */
  addStored(calls) {
    this.#add(storedRecords(calls));
    this.#root.dataset.stored = "true";
  }

  storedFailed() {
    this.#root.dataset.stored = "failed"; // the page's own calls still show
  }

  /** The sessions' own messages, read again (new ones are added). */
  async loadSessions() {
    if (!this.#urls.mcp_sessions) return;
    try {
      const { sessions } = await apiFetch(this.#urls.mcp_sessions);
      this.#add(sessionRecords(sessions));
      this.#root.dataset.sessions = "true";
    } catch {
      this.#root.dataset.sessions = "failed";
    }
  }

  #sorted() {
    return [...this.#records.values()].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  }

  #add(records) {
    for (const record of records) {
      const key = recordKey(record);
      if (this.#records.has(key)) continue;
      this.#records.set(key, record);
      const row = this.#row(record);
      const after = [...this.#list.children].find((other) => Number(/** @type {HTMLElement} */ (other).dataset.at) > (record.at ?? 0));
      this.#list.insertBefore(row, after ?? null);
    }
    this.#root.dataset.count = String(this.#records.size);
  }

  #row(record) {
    const json = el("pre", { className: "json-view", text: JSON.stringify(record.message, null, 2) });
    const where = record.session ? `${record.server} session` : `${record.server}/${record.tool}`;
    const time = record.at ? new Date(record.at).toISOString().slice(11, 23) : "";
    const since = record.at_ms !== undefined ? ` +${record.at_ms} ms` : "";
    return el(
      "li",
      { className: "timeline-row", dataset: { direction: record.direction, at: String(record.at ?? 0), ...(record.call_id ? { callId: String(record.call_id) } : { session: record.server }) } },
      el("details", {}, el("summary", {}, el("span", { className: "muted", text: `${time}${since} ` }), el("code", { text: `${where} ${exchangeLabel(record)}` })), json),
    );
  }
}
