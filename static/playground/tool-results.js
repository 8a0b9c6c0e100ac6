// @ts-check
/**
 * The tool loop's forms: one result card per pending tool call, then "Send results".
 *
 * Rule: a card's content is plain text, or (when it parses as a JSON array) content blocks;
 * files attached to a card (picker, paste, drop: a screenshot tool's answer) go first, then
 * the text as a text block. "Send results" is enabled only when every call has a result,
 * no file is still uploading and nothing is live. Every keystroke and file is kept as a draft
 * (drafts.js), so pending results survive a reload, and so does the "Message after the
 * results" (filed under the first call's id with an "after:" prefix).
 */

import { ACCEPTED, AttachTray } from "./attach-tray.js";
import { clearDrafts, loadDraft, saveDraft } from "./drafts.js";
import { el, parts } from "./dom.js";
import { pretty } from "./format.js";

const CARD_PARTS = {
  list: "[data-result-attachments]",
  input: "[data-result-attach-input]",
  box: "[data-tool-result-input]",
  button: "[data-action='attach-result']",
};

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

/** A card's tool_result content: its files first (as Anthropic advises), then what was typed
 * (the blocks of a JSON array, or the text as one text block); the typed content alone when
 * there are no files. */
export function resultContent(text, files = []) {
  const typed = parseResultContent(text);
  if (!files.length) return typed.content;
  if (typed.kind === "blocks") return [...files, ...typed.content];
  return text.trim() ? [...files, { type: "text", text }] : [...files];
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
  #urls;

  constructor(root, { conversationId, onSend, urls = /** @type {Record<string, string>} */ ({}) }) {
    this.#root = root;
    this.#conversationId = conversationId;
    this.#onSend = onSend;
    this.#urls = urls;
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
    // An empty result (no content) is what the API and the request editor accept: chosen here
    // outright, so a card left blank by mistake still holds Send back.
    const empty = el("input", { attrs: { type: "checkbox" }, dataset: { resultEmpty: call.id } });
    empty.checked = draft.empty;
    const note = el("span", { className: "tool-card-note muted" });
    const files = el("ul", {
      className: "attach-tray",
      dataset: { resultAttachments: call.id },
      attrs: { "aria-label": `Files in the result of ${call.name}` },
    });
    const attach = el("button", {
      className: "btn btn-ghost tool-card-attach",
      text: "Attach…",
      dataset: { action: "attach-result" },
      attrs: { type: "button", title: "Attach images (PNG, JPEG, GIF, WebP) or PDFs to this result" },
    });
    const picker = el("input", {
      dataset: { resultAttachInput: call.id },
      attrs: { type: "file", accept: ACCEPTED, multiple: "", hidden: "", "aria-label": `Files for the result of ${call.name}` },
    });
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
      files,
      textarea,
      el(
        "div",
        { className: "tool-card-foot" },
        el("label", { className: "switch" }, toggle, el("span", { className: "switch-track", attrs: { "aria-hidden": "true" } }), el("span", { text: "is_error" })),
        el("label", { className: "check", attrs: { title: "Send this result with no content" } }, empty, el("span", { text: "Empty result" })),
        attach,
        picker,
        note,
      ),
    );
    const save = () => {
      card.dataset.isError = String(toggle.checked);
      const kept = tray.blocks;
      textarea.disabled = empty.checked;
      saveDraft(this.#conversationId, call.id, { content: textarea.value, isError: toggle.checked, empty: empty.checked, files: kept });
      this.#refresh();
    };
    const tray = new AttachTray(card, {
      url: this.#urls.attachments,
      fileUrl: this.#urls.attachment ?? "",
      selectors: CARD_PARTS,
      onChange: () => save(),
      onError: (text) => {
        note.textContent = text;
        note.dataset.error = "true";
      },
    });
    if (draft.files.length) tray.restore(draft.files);
    textarea.addEventListener("input", () => {
      delete note.dataset.error; // typing moves on from a refused file's reason
      save();
    });
    toggle.addEventListener("change", save);
    empty.addEventListener("change", save);
    textarea.disabled = empty.checked;
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        event.stopPropagation();
        this.submit();
      }
    });
    return { call, card, textarea, toggle, empty, note, tray };
  }

  #refresh() {
    let missing = 0;
    let uploading = false;
    for (const entry of this.#entries) {
      const typed = !entry.empty.checked && entry.textarea.value.trim() !== "";
      const filled = entry.empty.checked || typed || entry.tray.blocks.length > 0;
      uploading ||= entry.tray.uploading;
      if (!filled) missing += 1;
      entry.card.dataset.filled = String(filled);
      if (entry.note.dataset.error === "true") continue; // a refused file's reason stays
      entry.note.textContent = typed ? (parseResultContent(entry.textarea.value).warning ?? "") : "";
    }
    const ready = this.#entries.length > 0 && missing === 0 && !uploading;
    this.#send.disabled = !(ready && this.#enabled);
    this.#hint.textContent = uploading
      ? "a file is still uploading"
      : missing === 0
        ? ""
        : `${missing} of ${this.#entries.length} result${this.#entries.length > 1 ? "s" : ""} missing (type one, or tick Empty result)`;
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
        content: entry.empty.checked ? "" : resultContent(entry.textarea.value, entry.tray.blocks),
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
