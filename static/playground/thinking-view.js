// @ts-check
/**
 * The debugger's thinking integrity on the page: under each assistant turn that thinks, what
 * goes back next turn; a banner when the history breaks a thinking rule; and a confirmation
 * before an edit or a regenerate drops the latest turn's thinking.
 *
 * Rule: the facts come from thinking-integrity.js (pure); this module only draws and asks.
 * Text goes in through textContent. State for tests: each `.msg[data-message-id]` that thinks
 * holds one `details[data-sent-back][data-latest]`; the banner
 * `[data-thinking-warnings][data-codes]`; the guard `dialog[data-thinking-guard][data-state]`.
 */

import { el, one, parts } from "./dom.js";
import { Modal } from "./modal.js";
import { droppedThinking, historyWarnings, sentBack } from "./thinking-integrity.js";

const PREVIEW_CHARS = 160;

const cut = (text, limit) => (text.length > limit ? `${text.slice(0, limit)}…` : text);

function blockRow(block, source) {
  const row = el("li", { className: "sent-back-block", dataset: { type: block.type, signed: String(block.signature !== null) } });
  if (block.type === "redacted_thinking") {
    row.append(el("strong", { text: "redacted_thinking" }), ` · data, ${block.chars} chars, opaque: sent back as received`);
    row.append(el("code", { className: "sent-back-code", text: cut(String(source.data ?? ""), PREVIEW_CHARS) }));
    return row;
  }
  row.append(el("strong", { text: "thinking" }), ` · ${block.chars} chars · `);
  row.append(block.signature === null ? el("span", { className: "sent-back-unsigned", text: "no signature" }) : `signature, ${block.signature.length} chars`);
  row.append(el("q", { className: "sent-back-text", text: cut(String(source.thinking ?? ""), PREVIEW_CHARS) }));
  if (block.signature !== null) row.append(el("code", { className: "sent-back-code", text: block.signature }));
  return row;
}

function sentBackPanel(message, blocks, { latest, open }) {
  const signed = blocks.filter((block) => block.signature !== null).length;
  const details = el("details", { className: "sent-back", dataset: { sentBack: "true", latest: String(latest) } });
  details.open = open;
  details.append(
    el("summary", { text: `Sent back next turn: ${blocks.length} thinking block${blocks.length === 1 ? "" : "s"}, ${signed} signed` }),
    el("p", {
      className: "muted",
      text: latest
        ? "The latest assistant turn: these blocks go back exactly as received, signature and all; the API refuses a changed or missing one."
        : "An earlier turn: sent back as stored, like every turn; only the latest turn's thinking is checked.",
    }),
    el("ol", { className: "sent-back-list" }, ...blocks.map((block) => blockRow(block, message.content[block.index]))),
  );
  return details;
}

export class ThinkingView {
  #turns;
  #banner;
  #guard;
  #guardText;
  /** @type {((value: any) => void) | null} */
  #answer = null;
  #open = new Set(); // message ids whose panel the person opened

  constructor(root) {
    this.#turns = one(root, "[data-turns]");
    this.#banner = one(root, "[data-thinking-warnings]");
    const dialog = one(root, "[data-thinking-guard]");
    this.#guard = new Modal(dialog, { onClose: () => this.#settle(false) });
    const { text, go } = parts(dialog, { text: "[data-thinking-guard-text]", go: "[data-action='thinking-guard-go']" });
    this.#guardText = text;
    go.addEventListener("click", () => {
      this.#settle(true);
      this.#guard.close();
    });
  }

  /** Draw the panels and the banner for `messages` under the `thinking` setting. */
  update(messages, { thinking }) {
    const latest = messages.findLastIndex((message) => message.role === "assistant");
    // One scan of the turns drawn, not a query per message: a long conversation draws only its
    // latest turns, and this runs on every redraw of the controls (each frame of a live run).
    const drawn = new Map();
    for (const article of this.#turns.querySelectorAll(".msg[data-message-id]")) {
      if (!drawn.has(article.dataset.messageId)) drawn.set(article.dataset.messageId, article); // the first, as querySelector
    }
    messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      const article = drawn.get(String(message.id));
      if (!article) return;
      const blocks = sentBack(message.content);
      const old = article.querySelector(":scope > [data-sent-back]");
      const isLatest = String(index === latest);
      if (blocks.length === 0 || (old && old.dataset.latest === isLatest)) return;
      const panel = sentBackPanel(message, blocks, { latest: index === latest, open: this.#open.has(message.id) });
      panel.addEventListener("toggle", () => (panel.open ? this.#open.add(message.id) : this.#open.delete(message.id)));
      if (old) old.replaceWith(panel);
      else article.append(panel);
    });
    const warnings = historyWarnings(messages, { thinking });
    this.#banner.replaceChildren(...warnings.map((warning) => el("li", { text: warning.text, dataset: { code: warning.code, latest: String(warning.latest) } })));
    this.#banner.dataset.codes = warnings.map((warning) => warning.code).join(" ");
    this.#banner.hidden = warnings.length === 0;
  }

  /**
   * Ask before dropping the messages from `fromIndex` on (`action`: "edit" | "regenerate")
   * when that drops the latest turn's thinking; resolves true to go on.
   */
  confirmDrop(messages, fromIndex, { action }) {
    const dropped = droppedThinking(messages, fromIndex, { action });
    if (dropped === null) return Promise.resolve(true);
    this.#settle(false);
    this.#guardText.textContent = dropped.text;
    this.#guard.element.dataset.guardAction = action;
    return new Promise((resolve) => {
      this.#answer = resolve;
      this.#guard.open();
    });
  }

  #settle(value) {
    const answer = this.#answer;
    this.#answer = null;
    answer?.(value);
  }
}
