// @ts-check
/**
 * One view per content block, shared by live turns and stored turns (text runs are
 * text-view.js, the tool call's view tool-use.js, server results server-blocks.js).
 *
 * Rule: every untrusted string enters the DOM through textContent or renderMarkdownSafe;
 * never through innerHTML. Views never touch the DOM outside their own element, and a live
 * view only records what arrived (`delta`, `stop`) until `render()`, which the turn calls once
 * per animation frame. State is mirrored in data-* attributes that tests and CSS read.
 */

import { el } from "../dom.js";
import { pretty } from "../format.js";
import { documentElement, imageElement } from "./attachment.js";

// A person's open/closed choice for a thinking block and how long it took, keyed
// "runId:index" (the same key live and stored), kept in the page and in localStorage, so
// re-rendering a turn (live, then stored) and reloading the page both keep them. A storage
// failure (private mode, quota) only forgets them at the next reload.
const STORE_PREFIX = "pg:thinking:";

class ThinkingMemory {
  #page = new Map();

  get(key) {
    if (this.#page.has(key)) return this.#page.get(key);
    let value = {};
    try {
      const raw = globalThis.localStorage?.getItem(STORE_PREFIX + key);
      const parsed = raw ? JSON.parse(raw) : null;
      if (parsed && typeof parsed === "object") value = parsed;
    } catch {
      // unreadable: nothing remembered
    }
    this.#page.set(key, value);
    return value;
  }

  set(key, fields) {
    const value = { ...this.get(key), ...fields };
    this.#page.set(key, value);
    try {
      globalThis.localStorage?.setItem(STORE_PREFIX + key, JSON.stringify(value));
    } catch {
      // storage full or off: remembered for this page only
    }
  }
}

const memory = new ThinkingMemory();
const thinkingChoices = {
  has: (key) => typeof memory.get(key).open === "boolean",
  get: (key) => memory.get(key).open,
  set: (key, open) => memory.set(key, { open }),
};
const thinkingDurations = {
  get: (key) => memory.get(key).ms,
  set: (key, ms) => memory.set(key, { ms }),
};

export function thoughtLabel(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "Thought";
  return ms < 1000 ? "Thought for <1 s" : `Thought for ${Math.round(ms / 1000)} s`;
}

/** A collapsible thinking block: open while streaming, "Thought for N s" when done. */
export class ThinkingView {
  constructor({ key, live }) {
    this.key = key;
    this.touched = thinkingChoices.has(key);
    this.pending = "";
    const details = el("details", { className: "pg-block pg-thinking" });
    details.dataset.blockType = "thinking";
    const summary = el("summary", { className: "pg-thinking-summary" });
    this.label = el("span", { className: "pg-thinking-label", text: live ? "Thinking…" : thoughtLabel() });
    summary.append(this.label);
    if (live) {
      this.indicator = el("span", { className: "pg-live" });
      this.indicator.setAttribute("aria-hidden", "true");
      summary.append(this.indicator);
    }
    this.body = el("div", { className: "pg-thinking-body" });
    this.text = document.createTextNode("");
    this.body.append(this.text);
    details.append(summary, this.body);
    this.element = details;
    details.dataset.state = live ? "streaming" : "done";
    // A click (mouse or keyboard) on the summary is the person's choice; our own changes to
    // `open` also fire "toggle", so the choice is taken from the click, the state from toggle.
    summary.addEventListener("click", () => {
      this.touched = true;
    });
    details.addEventListener("toggle", () => {
      details.dataset.thinking = details.open ? "open" : "closed";
      if (this.touched) thinkingChoices.set(this.key, details.open);
    });
    this.#setOpen(thinkingChoices.get(key) ?? live);
  }

  static stored(block, { key }) {
    const view = new ThinkingView({ key, live: false });
    view.text.data = block.thinking ?? "";
    view.label.textContent = thoughtLabel(thinkingDurations.get(key));
    view.#markOmitted(block);
    return view;
  }

  /** A block with no thinking text: the API left it out (thinking `display: "omitted"`, only
   * the signature comes) or none arrived; said in words, never an empty box. */
  #markOmitted(block) {
    if (typeof block?.thinking === "string" && block.thinking !== "") return;
    const signed = typeof block?.signature === "string" && block.signature !== "";
    this.element.dataset.thinkingText = signed ? "omitted" : "none";
    this.body.classList.add("pg-thinking-omitted");
    this.text.data = signed
      ? "The API left the reasoning out (thinking display: omitted); its signature is kept and sent back."
      : "No thinking text arrived.";
  }

  #setOpen(open) {
    this.element.open = open;
    this.element.dataset.thinking = open ? "open" : "closed";
  }

  delta(delta) {
    if (delta.type === "thinking_delta") this.pending += delta.thinking ?? "";
  }

  render() {
    if (this.pending) {
      this.text.appendData(this.pending); // grows in place: cost of the delta only
      this.pending = "";
    }
  }

  stop(block, { durationMs }) {
    if (block && this.text.data === "" && !this.pending) this.#markOmitted(block);
    thinkingDurations.set(this.key, durationMs);
    this.label.textContent = thoughtLabel(durationMs);
    this.indicator?.remove();
    this.element.dataset.state = "done";
    if (!this.touched) this.#setOpen(false);
  }

  incomplete(timing) {
    this.stop(null, timing);
    this.element.dataset.state = "incomplete";
  }
}

/** redacted_thinking: its data is encrypted by the provider, so only the fact is shown,
 * collapsed; the block itself is kept and sent back whole. */
export class RedactedThinkingView {
  constructor(block = {}) {
    const details = el("details", { className: "pg-block pg-redacted" });
    details.dataset.blockType = "redacted_thinking";
    details.append(el("summary", { className: "pg-redacted-summary", text: "Thinking redacted" }));
    const size = typeof block.data === "string" ? ` (${block.data.length} characters of encrypted data)` : "";
    details.append(
      el("p", {
        className: "pg-redacted-body",
        text: `The provider encrypted this reasoning${size}; it is sent back as received.`,
      }),
    );
    this.element = details;
  }
}

/** A tool_result in a user turn: text or content blocks, errors marked; `name` is the tool's
 * (from the call it answers), when known. */
export function toolResultElement(block, { name = null } = {}) {
  const root = el("div", { className: "pg-block pg-tool-result" });
  root.dataset.blockType = "tool_result";
  const isError = block.is_error === true;
  root.dataset.isError = isError ? "true" : "false";
  const head = el("div", { className: "pg-tool-head" });
  head.append(
    el("span", { className: "pg-tool-label", text: "Tool result" }),
    name ? el("code", { className: "pg-tool-name", text: String(name), dataset: { toolName: String(name) } }) : "", // append(null) would write "null"
    el("span", { className: "pg-tool-id", text: String(block.tool_use_id ?? "") }),
  );
  if (isError) head.append(el("span", { className: "pg-badge pg-badge-error", text: "Error" }));
  root.append(head);
  const content = block.content;
  if (typeof content === "string") {
    root.append(el("pre", { className: "pg-tool-result-text", text: content }));
  } else if (Array.isArray(content)) {
    for (const part of content) {
      if (part?.type === "text") root.append(el("pre", { className: "pg-tool-result-text", text: part.text }));
      else if (part?.type === "image") root.append(imageElement(part));
      else if (part?.type === "document") root.append(documentElement(part));
      else if (part?.type === "tool_reference") root.append(toolReferenceElement(part));
      else root.append(unknownElement(part));
    }
  } else if (content !== undefined) {
    root.append(unknownElement(content));
  }
  return root;
}

/** A tool result's `tool_reference` (a client's tool search): the API loads the tool named
 * (declared with defer_loading) for the model to call. */
function toolReferenceElement(part) {
  const name = String(part.tool_name ?? "");
  const line = el("p", { className: "pg-tool-reference", dataset: { toolReference: name } });
  line.append("Loads the tool ", el("code", { className: "pg-tool-name", text: name }));
  return line;
}

/** Anything we do not render specially: labelled, collapsed, its JSON as text. */
export function unknownElement(block) {
  const root = el("details", { className: "pg-block pg-unknown" });
  const type = block !== null && typeof block === "object" ? String(block.type ?? "?") : "?";
  root.dataset.blockType = type;
  root.append(el("summary", { className: "pg-unknown-title", text: `Block: ${type}` }));
  root.append(el("pre", { className: "pg-unknown-json", text: pretty(block) }));
  return root;
}
