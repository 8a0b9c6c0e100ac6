// @ts-check
/**
 * Compare: the message sent to two to four columns (upstream, model, settings) at once, each
 * streaming live side by side with its own time to first token, speed and usage, and "Keep
 * this one" to make a column's answer the conversation's turn (the others stay as branches).
 *
 * Rule: it only draws. A compare is a run's group of two to four columns, folded by the page's
 * reducer as every group is (state.js with live-group.js: `state.live`), whose effects page.js
 * hands here for a group of more than one (`startLive`, `events`, `liveNote`, `finishLive`);
 * `mirror(state.live)` sets the root's data and the status line, `settle` the Keep buttons.
 * What it keeps is the setup's editors and each drawn column's DOM (with the answer its end
 * named, for Keep). It reports through callbacks (`onSubmit(content, columns)`, `onDismiss`,
 * `onKeep(messageId)`). The server does the rest (runs.start): each column is a run, its
 * answer an alternative of the turn.
 * UI state for CSS and tests: the root's data-compare="setup|running|done" and, per column,
 * .compare-column[data-column][data-column-state="streaming|done"][data-status][data-kept].
 */

import { el, parts } from "./dom.js";
import { liveStats } from "./live-group.js";
import { LiveTurn } from "./render/index.js";
import { runMeta } from "./turn-meta.js";

export const COLUMNS_MIN = 2;
export const COLUMNS_MAX = 4;

export class Compare {
  #root;
  #setup;
  #list;
  #view;
  #grid;
  #status;
  #toggle;
  #profiles;
  #settings;
  #onSubmit;
  #onDismiss;
  #onKeep;
  #columns = new Map(); // run id -> the column's DOM: {run, article, turn, stats, keep, messageId}

  constructor(root, { profiles, settings, onSubmit, onDismiss, onKeep, onToggle }) {
    this.#root = root;
    this.#profiles = profiles ?? [];
    this.#settings = settings;
    this.#onSubmit = onSubmit;
    this.#onDismiss = onDismiss;
    this.#onKeep = onKeep;
    const found = parts(root, {
      setup: "[data-compare-setup]",
      list: "[data-compare-columns]",
      view: "[data-compare-view]",
      grid: "[data-compare-grid]",
      status: "[data-compare-status]",
      toggle: "[data-action='toggle-compare']",
      add: "[data-action='compare-add']",
      dismiss: "[data-action='compare-dismiss']",
    });
    ({ setup: this.#setup, list: this.#list, view: this.#view, grid: this.#grid, status: this.#status, toggle: this.#toggle } = found);
    this.#toggle.addEventListener("click", () => {
      this.#arm(this.#setup.hidden);
      onToggle?.();
    });
    found.add.addEventListener("click", () => this.#addEditor(this.#settings()));
    found.dismiss.addEventListener("click", () => this.#dismiss());
    this.#grid.addEventListener("click", (event) => {
      const button = event.target.closest("[data-action='compare-keep']");
      if (button) this.#onKeep(button.dataset.messageId);
    });
  }

  /** Send goes to the columns (the setup is open). */
  get armed() {
    return !this.#setup.hidden;
  }

  #arm(on) {
    this.#setup.hidden = !on;
    this.#toggle.setAttribute("aria-expanded", String(on));
    this.#toggle.classList.toggle("btn-active", on);
    if (on && !this.#list.children.length) {
      const settings = this.#settings();
      this.#addEditor(settings);
      this.#addEditor({ ...settings, temperature: settings.temperature === 1 ? 0.2 : 1 });
    }
    // The root's data-compare follows with the page's next #controls (`mirror`).
  }

  #addEditor(settings) {
    if (this.#list.children.length >= COLUMNS_MAX) return;
    const index = this.#list.children.length;
    const profile = el("select", { className: "input", dataset: { compareField: "profile" }, attrs: { "aria-label": `Column ${index + 1} upstream` } });
    for (const choice of this.#profiles) {
      const option = el("option", { text: choice.label ?? choice.name, attrs: { value: choice.name } });
      option.selected = choice.name === settings.profile;
      profile.append(option);
    }
    const field = (name, label, value, attrs = {}) =>
      el(
        "label",
        { className: "compare-field" },
        el("span", { className: "field-label", text: label }),
        el("input", { className: "input", dataset: { compareField: name }, attrs: { value: value ?? "", ...attrs } }),
      );
    const remove = el("button", { className: "btn btn-ghost btn-small", text: "×", dataset: { action: "compare-remove" }, attrs: { type: "button", "aria-label": `Remove column ${index + 1}` } });
    remove.addEventListener("click", () => {
      if (this.#list.children.length > COLUMNS_MIN) editor.remove();
      this.#renumber();
    });
    const editor = el(
      "div",
      { className: "compare-editor", dataset: { compareEditor: "" } },
      el("span", { className: "compare-editor-title", text: `Column ${index + 1}` }),
      el("label", { className: "compare-field" }, el("span", { className: "field-label", text: "Upstream" }), profile),
      field("model", "Model", settings.model, { autocomplete: "off" }),
      field("temperature", "Temperature", settings.temperature, { type: "number", step: "0.1", min: "0", max: "1", placeholder: "default" }),
      field("max_tokens", "Max tokens", settings.max_tokens, { type: "number", min: "1", step: "1" }),
      // A prompt version or label (name@production, name@v3): its settings, under the fields
      // above (prompts/columns.py); the names offered are the library's (_prompt_link.html).
      field("prompt", "Prompt", "", { autocomplete: "off", list: "prompt-references", placeholder: "name@label (optional)" }),
      remove,
    );
    this.#list.append(editor);
    this.#renumber();
  }

  #renumber() {
    [...this.#list.children].forEach((editor, index) => {
      editor.querySelector(".compare-editor-title").textContent = `Column ${index + 1}`;
    });
    const count = this.#list.children.length;
    this.#list.dataset.count = String(count);
    this.#setup.querySelector("[data-action='compare-add']").disabled = count >= COLUMNS_MAX;
    for (const button of this.#list.querySelectorAll("[data-action='compare-remove']")) button.disabled = count <= COLUMNS_MIN;
  }

  /** The columns as the `compare` frame takes them: settings changes over the conversation's. */
  columnsToSend() {
    return [...this.#list.children].map((editor) => {
      const value = (name) => editor.querySelector(`[data-compare-field='${name}']`).value.trim();
      const column = { profile: value("profile"), model: value("model") };
      if (value("temperature") !== "") column.temperature = Number(value("temperature"));
      if (value("max_tokens") !== "") column.max_tokens = Number(value("max_tokens"));
      if (value("prompt") !== "") {
        // The prompt's own profile and model, unless this column's were changed from the
        // conversation's (the fields start as the conversation's).
        column.prompt = value("prompt");
        const base = this.#settings();
        if (column.profile === base.profile) delete column.profile;
        if (column.model === base.model) delete column.model;
      }
      return column;
    });
  }

  /** Send the composer's content to the columns (through the page's reducer). */
  submit(content) {
    this.#onSubmit(content, this.columnsToSend());
  }

  // -- drawing what the reducer folded -----------------------------------------------------------

  /** A column's run started (`fresh`: the first of a new compare of `count` columns); `sent`:
   * its settings as sent, for its header. */
  column({ run, index, count, fresh, sent }) {
    if (fresh) {
      this.#columns.clear();
      this.#grid.replaceChildren();
      this.#grid.dataset.count = String(count);
      this.#view.hidden = false;
    }
    this.#columns.set(run.id, this.#draw(run, index, sent));
    this.#arm(false);
  }

  #draw(run, index, sent) {
    const settings = sent ? [sent.prompt ? `prompt ${sent.prompt}` : null, sent.temperature !== undefined ? `temperature ${sent.temperature}` : null, sent.max_tokens ? `max ${sent.max_tokens}` : null].filter(Boolean).join(" · ") : "";
    const body = el("div", { className: "msg-body" });
    const stats = el("p", { className: "compare-stats muted", dataset: { compareStats: "" }, text: liveStats({ firstTokenMs: null }) });
    const keep = el("div", { className: "compare-keep" });
    const article = el(
      "article",
      { className: "compare-column", dataset: { column: String(index), runId: run.id, columnState: "streaming" } },
      el("header", { className: "compare-column-head" }, el("strong", { text: `Column ${index + 1}` }), el("span", { text: `${run.profile} · ${run.model}` }), settings ? el("span", { className: "muted", text: settings }) : null),
      body,
      stats,
      keep,
    );
    // Columns in their order whatever order their starts arrive in.
    const after = [...this.#grid.children].find((node) => Number(node.dataset.column) > index);
    this.#grid.insertBefore(article, after ?? null);
    const turn = new LiveTurn(body, { key: run.id });
    return { run, article, turn, stats, keep, messageId: null };
  }

  /** A column's events; `folded`: the column as the reducer holds it (its live line's numbers). */
  events(runId, events, folded) {
    const column = this.#columns.get(runId);
    if (!column) return;
    column.turn.applyEvents(events);
    column.stats.textContent = liveStats(folded);
  }

  finished(frame) {
    const column = this.#columns.get(frame.run_id);
    if (!column) return;
    column.turn.finish(frame);
    column.messageId = frame.message?.id ?? null;
    column.article.dataset.columnState = "done";
    column.article.dataset.status = frame.status;
    const run = { ...column.run, ...frame, id: frame.run_id };
    column.stats.replaceWith(runMeta(run, { content: column.turn.message?.content ?? null }));
  }

  /** Every column ended and the conversation was read again: offer Keep on each answer, and
   * mark the one on screen (`shownId`, the path's last message). */
  settle(shownId) {
    for (const column of this.#columns.values()) {
      const { messageId } = column;
      column.keep.replaceChildren();
      column.article.dataset.kept = String(messageId !== null && String(messageId) === String(shownId));
      if (messageId === null) continue;
      const kept = column.article.dataset.kept === "true";
      column.keep.append(
        kept
          ? el("span", { className: "compare-kept", text: "✓ The conversation's turn" })
          : el("button", { className: "btn btn-small", text: "Keep this one", dataset: { action: "compare-keep", messageId: String(messageId) }, attrs: { type: "button" } }),
      );
    }
  }

  #dismiss() {
    this.#view.hidden = true;
    this.#grid.replaceChildren();
    this.#columns.clear();
    this.#onDismiss();
  }

  /** The root's data-compare and the status line: the live group when it is a compare, else
   * the columns drawn (an ended compare until it is dismissed). */
  mirror(group) {
    const live = Boolean(group && group.count > 1);
    const count = live ? group.count : this.#columns.size;
    let state = null;
    if (count) state = live ? "running" : "done";
    else if (this.armed) state = "setup";
    if (state) this.#root.dataset.compare = state;
    else delete this.#root.dataset.compare;
    this.#status.textContent = count ? `${count} columns · ${live ? "streaming" : "every column ended: keep one as the turn"}` : "";
  }
}
