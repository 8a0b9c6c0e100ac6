// @ts-check
/**
 * The inspector: for one run, the raw event timeline (+ms offsets, filter by type, JSON on
 * demand, copy as JSONL, download the stored events as JSONL) and the exact request body sent.
 *
 * Rule: a finished run is read from the API (/api/runs/<id>/ and its events.jsonl); the live
 * run's events are appended as they arrive. Event JSON is only stringified when a row is
 * opened, so a long run costs one short row per event.
 */

import { apiFetch } from "./api.js";
import { copyText, el, fillUrl, one, parts } from "./dom.js";
import { pretty } from "./format.js";
import { RunRequestDiff } from "./run-request-diff.js";

/** Stored file references in a request body: {count, bytes}. The body is stored with each file
 * as a reference (its sha256) and expanded to base64 only on the way upstream. */
export function fileReferences(body) {
  const found = { count: 0, bytes: 0 };
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      if (value.source?.type === "attachment") {
        found.count += 1;
        found.bytes += Number(value.source.size) || 0;
      }
      Object.values(value).forEach(walk);
    }
  };
  walk(body);
  return found;
}

/** The words above the stored body: what it is, and where it differs from the bytes sent. */
export function requestNote(body) {
  const base = "The exact body sent upstream (no key).";
  const { count, bytes } = fileReferences(body);
  if (!count) return base;
  const size = bytes ? ` (${(bytes / 1024).toFixed(bytes < 10240 ? 1 : 0)} KB)` : "";
  const files = count === 1 ? "1 file is" : `${count} files are`;
  return `${base} ${files} shown by reference${size}: "source": {"type": "attachment", "sha256": …}; the body sent held each file's bytes in base64 ("type": "base64", "data": …) in its place.`;
}

export class Inspector {
  #root;
  #urls;
  #select;
  #filter;
  #list;
  #summary;
  #request;
  #requestNote;
  #download;
  #runId = null;
  #events = [];
  #types = new Set();
  #liveRunId = null;
  #loadToken = 0;
  /** @type {Array<{ id: string, label: string }>} */
  #runs = [];
  /** @type {Array<{ id: string, label: string }>} */
  #aside = [];
  /** @type {RunRequestDiff | null} */
  #runDiff = null;

  /**
   * What went on the wire, where the profile's adapter translates the body (hidden otherwise).
   * @param {{ body?: unknown, refused?: string } | null | undefined} wire
   */
  #showWire(wire) {
    const box = /** @type {HTMLElement | null} */ (this.#root.querySelector("[data-inspector-wire]"));
    const body = this.#root.querySelector("[data-inspector-wire-body]");
    if (!box || !body) return;
    box.hidden = !wire;
    body.textContent = !wire ? "" : wire.refused ? `(refused: ${wire.refused})` : pretty(wire.body);
  }

  constructor(root, { urls }) {
    this.#root = root;
    this.#urls = urls;
    ({ select: this.#select, filter: this.#filter, list: this.#list, summary: this.#summary, request: this.#request, requestNote: this.#requestNote, download: this.#download } = parts(root, {
      select: "[data-inspector-run]",
      filter: "[data-inspector-filter]",
      list: "[data-inspector-events]",
      summary: "[data-inspector-summary]",
      request: "[data-inspector-request]",
      requestNote: "[data-inspector-request-note]",
      download: "[data-action='download-jsonl']",
    }));
    const diffRoot = root.querySelector("[data-run-request-diff]");
    if (diffRoot) this.#runDiff = new RunRequestDiff(diffRoot, { runUrl: urls.run });
    this.#select.addEventListener("change", () => this.show(this.#select.value));
    this.#filter.addEventListener("change", () => this.#applyFilter());
    one(root, "[data-action='copy-jsonl']").addEventListener("click", (event) => this.#copy(event.currentTarget));
    root.querySelectorAll("[data-tab]").forEach((tab) =>
      tab.addEventListener("click", () => this.#selectTab(tab.dataset.tab)),
    );
  }

  get isOpen() {
    return !this.#root.hidden;
  }

  /** Runs to choose from, newest first: [{id, label}]. */
  setRuns(runs) {
    this.#runs = runs;
    this.#drawRuns();
  }

  /** A run beside the conversation (an MCP server's sampling answer, runs/aside.py), listed
   * after the conversation's own: {id, label}. */
  addAsideRun(run) {
    if (this.#aside.some((known) => known.id === run.id)) return;
    this.#aside.push(run);
    this.#drawRuns();
  }

  #drawRuns() {
    const current = this.#select.value;
    const runs = [...this.#runs, ...this.#aside];
    this.#select.replaceChildren(
      ...runs.map((run) => el("option", { text: run.label, attrs: { value: run.id } })),
    );
    if (runs.some((run) => run.id === current)) this.#select.value = current;
    if (runs.length === 0) this.#select.append(el("option", { text: "no runs yet", attrs: { value: "" } }));
  }

  #selectTab(name) {
    this.#root.querySelectorAll("[data-tab]").forEach((tab) => {
      tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
    });
    this.#root.querySelectorAll("[data-tab-panel]").forEach((panel) => {
      panel.hidden = panel.dataset.tabPanel !== name;
    });
  }

  /** Show run `runId` (from the API unless it is the live run). */
  async show(runId) {
    if (!runId) return;
    this.#runId = runId;
    this.#root.dataset.runId = runId;
    this.#select.value = runId;
    this.#download.href = fillUrl(this.#urls.run_events, { run_id: runId });
    this.#download.hidden = false;
    const token = ++this.#loadToken;
    this.#root.dataset.loaded = "false";
    if (runId === this.#liveRunId) {
      this.#redraw();
    } else {
      this.#events = [];
      this.#redraw();
    }
    try {
      const [run, jsonl] = await Promise.all([
        apiFetch(fillUrl(this.#urls.run, { run_id: runId })),
        apiFetch(fillUrl(this.#urls.run_events, { run_id: runId })),
      ]);
      if (token !== this.#loadToken) return;
      this.#request.textContent = run.request ? pretty(run.request) : "(no request recorded)";
      this.#requestNote.textContent = requestNote(run.request);
      this.#showWire(run.wire_request);
      this.#runDiff?.show({ ...run, id: runId }, this.#runBefore(runId));
      if (runId !== this.#liveRunId) {
        this.#events = String(jsonl)
          .split("\n")
          .filter((line) => line.trim())
          .map((line) => JSON.parse(line));
        this.#redraw();
      }
      this.#summary.textContent = this.#summaryText(run);
    } catch (error) {
      if (token !== this.#loadToken) return;
      this.#summary.textContent = `Could not load the run: ${error.message}`;
    }
    this.#root.dataset.loaded = "true";
  }

  /** The next older run among the choices (they are listed newest first), or null. */
  #runBefore(runId) {
    const ids = [...this.#select.options].map((option) => option.value).filter(Boolean);
    const index = ids.indexOf(runId);
    return index >= 0 && index + 1 < ids.length ? ids[index + 1] : null;
  }

  #summaryText(run) {
    const count = `${this.#events.length} event${this.#events.length === 1 ? "" : "s"}`;
    const aside = run.purpose === "sampling" ? ` · an MCP server's sampling request, for the call ${run.tool_use_id ?? ""}` : "";
    return `${run.status} · ${count} · ${run.model} on ${run.profile}${aside}`;
  }

  /** A new live run: follow it if the person is looking at the live run (or at nothing). */
  liveStarted(runId) {
    const follow = this.#runId === null || this.#runId === this.#liveRunId;
    this.#liveRunId = runId;
    if (follow) {
      this.#runId = runId;
      this.#root.dataset.runId = runId;
      this.#events = [];
      this.#redraw();
    }
  }

  liveEvents(runId, events) {
    if (runId !== this.#liveRunId || runId !== this.#runId) return;
    const last = this.#events.at(-1)?.seq ?? 0;
    const fresh = events.filter((event) => event.seq > last);
    this.#events.push(...fresh);
    if (this.isOpen) this.#append(fresh);
  }

  liveFinished(runId) {
    if (runId === this.#liveRunId && runId === this.#runId && this.isOpen) this.show(runId);
  }

  /** The panel was opened: draw what it holds. */
  opened() {
    if (this.#runId) this.show(this.#runId);
    else if (this.#select.value) this.show(this.#select.value);
  }

  #redraw() {
    this.#list.replaceChildren();
    this.#types = new Set();
    this.#append(this.#events);
    this.#summary.textContent = `${this.#events.length} events`;
  }

  #append(events) {
    const rows = events.map((event) => this.#row(event));
    this.#list.append(...rows);
    let added = false;
    for (const event of events) {
      if (!this.#types.has(event.type)) {
        this.#types.add(event.type);
        added = true;
      }
    }
    if (added) this.#drawFilter();
    this.#applyFilter();
    this.#root.dataset.eventCount = String(this.#events.length);
  }

  #row(event) {
    const details = el("details", { className: "event", dataset: { type: String(event.type), seq: String(event.seq) } });
    const summary = el(
      "summary",
      { className: "event-head" },
      el("span", { className: "event-t", text: `+${event.t} ms` }),
      el("span", { className: "event-type", text: String(event.type) }),
      el("span", { className: "event-seq muted", text: `#${event.seq}` }),
    );
    const body = el("pre", { className: "json-view" });
    details.append(summary, body);
    details.addEventListener("toggle", () => {
      if (details.open && !body.textContent) body.textContent = pretty(event.data);
    });
    return details;
  }

  #drawFilter() {
    const current = this.#filter.value;
    const types = [...this.#types].sort();
    this.#filter.replaceChildren(
      el("option", { text: "all types", attrs: { value: "" } }),
      ...types.map((type) => el("option", { text: type, attrs: { value: type } })),
    );
    this.#filter.value = types.includes(current) ? current : "";
  }

  #applyFilter() {
    const type = this.#filter.value;
    for (const row of this.#list.children) row.hidden = Boolean(type) && row.dataset.type !== type;
  }

  /** The events shown (after the filter), one JSON object a line. */
  jsonl() {
    const type = this.#filter.value;
    return this.#events
      .filter((event) => !type || event.type === type)
      .map((event) => JSON.stringify(event))
      .join("\n");
  }

  #copy(button) {
    return copyText(button, this.jsonl());
  }
}
