/**
 * The tool loop's forms: one result card per pending tool call, then "Send results".
 *
 * Rule: a card's content is plain text, or (when it parses as a JSON array) content blocks;
 * "Send results" is enabled only when every call has a result and nothing is live. Every
 * keystroke is kept as a draft (drafts.js), so pending results survive a reload, and so does
 * the "Message after the results" (filed under the first call's id with an "after:" prefix).
 */

import { clearDrafts, loadDraft, saveDraft } from "./drafts.js";
import { el, parts } from "./dom.js";
import { pretty } from "./format.js";

/** A card's text as tool_result content: a JSON array of blocks, or the text itself. */
export function parseResultContent(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const value = JSON.parse(trimmed);
      if (Array.isArray(value) && value.every((b) => b && typeof b === "object" && typeof b.type === "string")) {
        return { content: value, kind: "blocks" };
      }
      return { content: text, kind: "text", warning: "not a list of content blocks: sent as text" };
    } catch {
      return { content: text, kind: "text", warning: "not valid JSON: sent as text" };
    }
  }
  return { content: text, kind: "text" };
}

export class ToolResults {
  #root;
  #cards;
  #send;
  #hint;
  #text;
  #conversationId;
  #calls = [];
  #entries = [];
  #enabled = true;
  #onSend;

  constructor(root, { conversationId, onSend }) {
    this.#root = root;
    this.#conversationId = conversationId;
    this.#onSend = onSend;
    const found = parts(root, {
      cards: "[data-tool-result-cards]", send: "[data-action='send-tool-results']",
      hint: "[data-tool-results-hint]", text: "[data-tool-results-text]",
    });
    ({ cards: this.#cards, send: this.#send, hint: this.#hint, text: this.#text } = found);
    this.#send.addEventListener("click", () => this.submit());
    this.#text.addEventListener("input", () => {
      const key = this.#afterKey();
      if (key) saveDraft(this.#conversationId, key, { content: this.#text.value, isError: false });
    });
  }

  #afterKey() {
    return this.#calls.length ? `after:${this.#calls[0].id}` : null;
  }

  get pending() {
    return this.#calls.length > 0;
  }

  /** Show cards for these tool_use blocks (none: hide the section). */
  show(calls) {
    const same =
      calls.length === this.#calls.length && calls.every((call, i) => call.id === this.#calls[i].id);
    if (same) return;
    this.#calls = calls;
    this.#entries = calls.map((call, index) => this.#card(call, index));
    this.#cards.replaceChildren(...this.#entries.map((entry) => entry.card));
    this.#root.hidden = calls.length === 0;
    this.#root.dataset.pending = String(calls.length);
    const key = this.#afterKey();
    this.#text.value = key ? loadDraft(this.#conversationId, key).content : "";
    this.#refresh();
  }

  /** Nothing can be sent while a run is live or the socket is down. */
  setEnabled(enabled) {
    this.#enabled = enabled;
    this.#refresh();
  }

  #card(call, index) {
    const draft = loadDraft(this.#conversationId, call.id);
    const textareaId = `tool-result-${index}`;
    const textarea = el("textarea", {
      className: "input code-input",
      attrs: { id: textareaId, rows: "3", spellcheck: "false", placeholder: "What the tool returned (text, or a JSON array of content blocks)" },
      dataset: { toolResultInput: call.id },
    });
    textarea.value = draft.content;
    const toggle = el("input", {
      attrs: { type: "checkbox", role: "switch" },
      dataset: { toolResultError: call.id },
    });
    toggle.checked = draft.isError;
    const note = el("span", { className: "tool-card-note muted" });
    const card = el(
      "div",
      { className: "tool-card", dataset: { toolUseId: call.id, isError: String(draft.isError) } },
      el(
        "div",
        { className: "tool-card-head" },
        el("code", { className: "tool-card-name", text: String(call.name ?? "") }),
        el("span", { className: "tool-card-id muted", text: String(call.id ?? "") }),
      ),
      el("pre", { className: "tool-card-input", text: pretty(call.input ?? {}) }),
      el("label", { className: "sr-only", text: `Result of ${call.name} (${call.id})`, attrs: { for: textareaId } }),
      textarea,
      el(
        "div",
        { className: "tool-card-foot" },
        el("label", { className: "switch" }, toggle, el("span", { className: "switch-track", attrs: { "aria-hidden": "true" } }), el("span", { text: "is_error" })),
        note,
      ),
    );
    const save = () => {
      card.dataset.isError = String(toggle.checked);
      saveDraft(this.#conversationId, call.id, { content: textarea.value, isError: toggle.checked });
      this.#refresh();
    };
    textarea.addEventListener("input", save);
    toggle.addEventListener("change", save);
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        event.stopPropagation();
        this.submit();
      }
    });
    return { call, card, textarea, toggle, note };
  }

  #refresh() {
    let missing = 0;
    for (const entry of this.#entries) {
      const filled = entry.textarea.value.trim() !== "";
      if (!filled) missing += 1;
      entry.card.dataset.filled = String(filled);
      entry.note.textContent = filled ? (parseResultContent(entry.textarea.value).warning ?? "") : "";
    }
    const ready = this.#entries.length > 0 && missing === 0;
    this.#send.disabled = !(ready && this.#enabled);
    this.#hint.textContent =
      missing === 0 ? "" : `${missing} of ${this.#entries.length} result${this.#entries.length > 1 ? "s" : ""} missing`;
  }

  submit() {
    if (this.#send.disabled) return;
    this.#onSend(this.collect());
  }

  /** The results as typed so far ({results, text}), complete or not: the request editor's
   * draft turn. */
  collect() {
    const results = this.#entries.map((entry) => {
      const result = {
        tool_use_id: entry.call.id,
        content: parseResultContent(entry.textarea.value).content,
      };
      if (entry.toggle.checked) result.is_error = true;
      return result;
    });
    const text = this.#text.value.trim() ? this.#text.value : null;
    return { results, text };
  }

  /** The results were stored (run.started carried them): forget the drafts. */
  done() {
    clearDrafts(this.#conversationId, [...this.#calls.map((call) => call.id), this.#afterKey()].filter(Boolean));
    this.#text.value = "";
    this.show([]);
  }
}
