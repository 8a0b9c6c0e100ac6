// Made by `python -m playground.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  ne
} from "./chunk-K7EHAA66.js";
import {
  documentElement,
  imageElement,
  pretty
} from "./chunk-YVWDDRJC.js";
import {
  copyText,
  el,
  nextTask
} from "./chunk-L3AC76WF.js";
import {
  purify_default
} from "./chunk-5XS7IJ2V.js";

// static/playground/render/partial-json.js
var WHITESPACE = /* @__PURE__ */ new Set([" ", "	", "\n", "\r"]);
var ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "	" };
var NUMBER_CHARS = /[0-9eE.+-]/;
var NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
var LITERALS = { true: true, false: false, null: null };
var IncrementalJsonParser = class {
  constructor() {
    this.root = void 0;
    this.hasRoot = false;
    this.done = false;
    this.error = null;
    this.offset = 0;
    this.stack = [];
    this.scalar = null;
  }
  /** Consume the next piece of the buffer. @param {string} chunk */
  feed(chunk) {
    let i = 0;
    const n = chunk.length;
    while (i < n && this.error === null) {
      const scalar = this.scalar;
      if (scalar !== null && scalar.kind === "string") {
        i = this.#readString(chunk, i);
      } else if (scalar !== null) {
        i = this.#readWord(chunk, i);
      } else {
        const c = chunk[i];
        if (!WHITESPACE.has(c)) this.#token(c, this.offset + i);
        i += 1;
      }
    }
    this.offset += n;
  }
  /**
   * What is known so far (undefined before anything is). A live view: later feeds change it,
   * so copy or serialise it before keeping it. With `trailingStrings: false` a string still
   * being read is left out (jiter's partial_mode=True): call it so on a fresh parser only,
   * since a trailing value once shown stays in its container.
   */
  value({ trailingStrings = true } = {}) {
    const scalar = this.scalar;
    if (scalar !== null && !scalar.isKey && this.error === null) {
      let shown;
      if (scalar.kind === "string") {
        if (!trailingStrings) return this.root;
        if (scalar.parts.length > 1) scalar.parts = [scalar.parts.join("")];
        shown = scalar.parts[0] ?? "";
      } else if (scalar.kind === "number" && NUMBER.test(scalar.text)) {
        shown = Number(scalar.text);
      }
      if (shown !== void 0) this.#place(shown, scalar);
    }
    return this.root;
  }
  /** @param {number} offset @param {string} message */
  #fail(offset, message) {
    this.error = { offset, message };
  }
  /** @param {string} chunk @param {number} i @returns {number} */
  #readString(chunk, i) {
    const scalar = (
      /** @type {StringScalar} */
      this.scalar
    );
    const n = chunk.length;
    if (scalar.escape !== null) {
      const c = chunk[i];
      if (scalar.escape === "") {
        if (c === "u") {
          scalar.escape = "u";
        } else if (c in ESCAPES) {
          scalar.parts.push(ESCAPES[
            /** @type {keyof typeof ESCAPES} */
            c
          ]);
          scalar.escape = null;
        } else {
          this.#fail(this.offset + i, `invalid escape \\${c} in a string`);
        }
        return i + 1;
      }
      if (!/[0-9a-fA-F]/.test(c)) {
        this.#fail(this.offset + i, "invalid \\u escape in a string");
        return i + 1;
      }
      scalar.escape += c;
      if (scalar.escape.length === 5) {
        scalar.parts.push(String.fromCharCode(parseInt(scalar.escape.slice(1), 16)));
        scalar.escape = null;
      }
      return i + 1;
    }
    let j = i;
    while (j < n) {
      const code = chunk.charCodeAt(j);
      if (code === 34 || code === 92) break;
      if (code < 32) {
        if (j > i) scalar.parts.push(chunk.slice(i, j));
        this.#fail(this.offset + j, "control character in a string");
        return n;
      }
      j += 1;
    }
    if (j > i) scalar.parts.push(chunk.slice(i, j));
    if (j === n) return n;
    if (chunk.charCodeAt(j) === 92) {
      scalar.escape = "";
      return j + 1;
    }
    this.scalar = null;
    const text = scalar.parts.join("");
    if (scalar.isKey) {
      const frame2 = this.stack[this.stack.length - 1];
      frame2.key = text;
      frame2.state = "colon";
    } else {
      this.#complete(text, scalar);
    }
    return j + 1;
  }
  /** @param {string} chunk @param {number} i @returns {number} */
  #readWord(chunk, i) {
    const scalar = (
      /** @type {WordScalar} */
      this.scalar
    );
    const n = chunk.length;
    const pattern = scalar.kind === "number" ? NUMBER_CHARS : /[a-z]/;
    let j = i;
    while (j < n && pattern.test(chunk[j])) j += 1;
    scalar.text += chunk.slice(i, j);
    if (scalar.kind === "literal" && !Object.keys(LITERALS).some((w) => w.startsWith(scalar.text))) {
      this.#fail(this.offset + i, `unexpected word "${scalar.text}"`);
      return n;
    }
    if (j === n) return n;
    this.#endWord(this.offset + j);
    return j;
  }
  /** @param {number} offset */
  #endWord(offset) {
    const scalar = (
      /** @type {WordScalar} */
      this.scalar
    );
    this.scalar = null;
    if (scalar.kind === "number") {
      if (!NUMBER.test(scalar.text)) return this.#fail(offset, `invalid number "${scalar.text}"`);
      return this.#complete(Number(scalar.text), scalar);
    }
    if (!(scalar.text in LITERALS)) return this.#fail(offset, `unexpected word "${scalar.text}"`);
    return this.#complete(LITERALS[
      /** @type {keyof typeof LITERALS} */
      scalar.text
    ], scalar);
  }
  /** @param {string} c @param {number} offset */
  #token(c, offset) {
    if (this.done) return this.#fail(offset, "unexpected data after the JSON value");
    const frame2 = this.stack[this.stack.length - 1];
    const state = frame2 === void 0 ? "value" : frame2.state;
    if (state === "firstKey" || state === "key") {
      if (c === '"') {
        this.scalar = { kind: "string", parts: [], isKey: true, escape: null, slot: void 0 };
      } else if (c === "}" && state === "firstKey") {
        this.#close();
      } else {
        this.#fail(offset, `expected a property name, got "${c}"`);
      }
      return;
    }
    if (state === "colon") {
      if (c === ":") frame2.state = "value";
      else this.#fail(offset, `expected ":", got "${c}"`);
      return;
    }
    if (state === "comma") {
      if (c === ",") frame2.state = frame2.isArray ? "value" : "key";
      else if (c === (frame2.isArray ? "]" : "}")) this.#close();
      else this.#fail(offset, `expected "," or "${frame2.isArray ? "]" : "}"}", got "${c}"`);
      return;
    }
    if (c === "]" && state === "firstValue") return this.#close();
    if (c === "{" || c === "[") {
      const container = c === "{" ? {} : [];
      this.#attach(container);
      this.stack.push({
        container,
        isArray: c === "[",
        key: null,
        state: c === "{" ? "firstKey" : "firstValue"
      });
      return;
    }
    const base = { isKey: false, slot: void 0 };
    if (c === '"') this.scalar = { ...base, kind: "string", parts: [], escape: null };
    else if (c === "-" || c >= "0" && c <= "9") this.scalar = { ...base, kind: "number", text: c };
    else if (c === "t" || c === "f" || c === "n") this.scalar = { ...base, kind: "literal", text: c };
    else this.#fail(offset, `unexpected "${c}"`);
  }
  /** @param {unknown} value */
  #attach(value) {
    const frame2 = this.stack[this.stack.length - 1];
    if (frame2 === void 0) {
      this.root = value;
      this.hasRoot = true;
      return;
    }
    if (frame2.isArray) frame2.container.push(value);
    else frame2.container[
      /** @type {string} an object's frame has its key by now */
      frame2.key
    ] = value;
    frame2.state = "child";
  }
  /** @param {unknown} value @param {Scalar} scalar */
  #place(value, scalar) {
    const frame2 = this.stack[this.stack.length - 1];
    if (frame2 === void 0) {
      this.root = value;
      this.hasRoot = true;
    } else if (frame2.isArray) {
      if (scalar.slot === void 0) scalar.slot = frame2.container.push(value) - 1;
      else frame2.container[scalar.slot] = value;
    } else {
      frame2.container[
        /** @type {string} */
        frame2.key
      ] = value;
    }
  }
  /** @param {unknown} value @param {Scalar} scalar */
  #complete(value, scalar) {
    this.#place(value, scalar);
    const frame2 = this.stack[this.stack.length - 1];
    if (frame2 === void 0) this.done = true;
    else frame2.state = "comma";
  }
  #close() {
    this.stack.pop();
    const parent = this.stack[this.stack.length - 1];
    if (parent === void 0) this.done = true;
    else parent.state = "comma";
  }
};
function parseCompleteValues(text) {
  const parser = new IncrementalJsonParser();
  parser.feed(text);
  if (!parser.done && parser.error !== null) return void 0;
  return parser.value({ trailingStrings: false });
}
function parsePartialJson(text) {
  const parser = new IncrementalJsonParser();
  parser.feed(text);
  return parser.value();
}

// static/playground/render/accumulate.js
var RAW_JSON = Symbol("rawJson");
var DELTAS = Symbol("deltas");
var OPEN = Symbol("open");
var ISSUE = Symbol("issue");
var STOPPED = Symbol("stopped");
var ProtocolError = class extends Error {
  constructor(message, eventType) {
    super(message);
    this.name = "ProtocolError";
    this.code = "protocol_error";
    this.eventType = eventType;
  }
};
var TEXT = "text";
var THINKING = "thinking";
var TOOL = "tool";
var COMPACTION = "compaction";
var OTHER = "other";
function blockKind(block) {
  if (block.type === "text") return TEXT;
  if (block.type === "thinking") return THINKING;
  if ("input" in block || block.type === "tool_use" || block.type === "server_tool_use") {
    return TOOL;
  }
  if (block.type === "compaction") return COMPACTION;
  return OTHER;
}
function requireOpenMessage(snapshot, event, index) {
  if (snapshot == null || snapshot[STOPPED]) {
    const where = snapshot == null ? "before message_start" : "after message_stop";
    const at = index === void 0 ? "" : ` for index ${index}`;
    throw new ProtocolError(`${event.type}${at}: arrived ${where}`, event.type);
  }
}
function openBlock(snapshot, event, kinds) {
  const name = event.type === "content_block_delta" ? `content_block_delta (${event.delta?.type})` : event.type;
  requireOpenMessage(snapshot, event, event.index);
  const block = snapshot.content[event.index];
  if (block === void 0 || !block[OPEN]) {
    const why = block === void 0 ? "no block was started there" : "that block was already stopped";
    throw new ProtocolError(`${name} for index ${event.index}: ${why}`, event.type);
  }
  if (kinds !== null && !kinds.includes(blockKind(block))) {
    throw new ProtocolError(
      `${name} for index ${event.index}: does not fit a ${block.type} block`,
      event.type
    );
  }
  return block;
}
function replaceBlock(snapshot, index, block) {
  const content = snapshot.content.slice();
  content[index] = block;
  return { ...snapshot, content };
}
function onDelta(snapshot, event) {
  const delta = event.delta ?? {};
  const index = event.index;
  switch (delta.type) {
    case "text_delta": {
      const block = openBlock(snapshot, event, [TEXT]);
      return replaceBlock(snapshot, index, { ...block, text: block.text + (delta.text ?? "") });
    }
    case "thinking_delta": {
      const block = openBlock(snapshot, event, [THINKING]);
      const thinking = block.thinking + (delta.thinking ?? "");
      return replaceBlock(snapshot, index, { ...block, thinking });
    }
    case "signature_delta": {
      const block = openBlock(snapshot, event, [THINKING]);
      return replaceBlock(snapshot, index, { ...block, signature: delta.signature });
    }
    case "citations_delta": {
      const block = openBlock(snapshot, event, [TEXT]);
      const citations = block.citations ? [...block.citations, delta.citation] : [delta.citation];
      return replaceBlock(snapshot, index, { ...block, citations });
    }
    case "compaction_delta": {
      const block = openBlock(snapshot, event, [COMPACTION]);
      return replaceBlock(snapshot, index, {
        ...block,
        content: delta.content ?? null,
        encrypted_content: delta.encrypted_content ?? null
      });
    }
    case "input_json_delta": {
      const block = openBlock(snapshot, event, [TOOL]);
      return replaceBlock(snapshot, index, {
        ...block,
        [RAW_JSON]: block[RAW_JSON] + (delta.partial_json ?? ""),
        [DELTAS]: block[DELTAS] + 1
      });
    }
    default:
      openBlock(snapshot, event, null);
      return snapshot;
  }
}
function onBlockStart(snapshot, event) {
  requireOpenMessage(snapshot, event, event.index);
  const expected = snapshot.content.length;
  const started = snapshot.content[event.index];
  if (event.index < expected && started[OPEN] && started.type === event.content_block?.type) {
    return snapshot;
  }
  if (event.index !== expected) {
    throw new ProtocolError(
      `content_block_start for index ${event.index}: the next block index is ${expected}`,
      event.type
    );
  }
  const block = { ...event.content_block, [OPEN]: true };
  const kind = blockKind(block);
  if (kind === TEXT) block.text = block.text ?? "";
  if (kind === THINKING) block.thinking = block.thinking ?? "";
  if (kind === TOOL) {
    block[RAW_JSON] = "";
    block[DELTAS] = 0;
  }
  return { ...snapshot, content: [...snapshot.content, block] };
}
function parseToolInput(raw) {
  if (raw === "") return {};
  try {
    const value = JSON.parse(raw);
    return value !== null && typeof value === "object" && !Array.isArray(value) ? value : void 0;
  } catch {
    return void 0;
  }
}
function onBlockStop(snapshot, event) {
  const block = { ...openBlock(snapshot, event, null) };
  delete block[OPEN];
  if (blockKind(block) === TOOL && block[DELTAS] > 0) {
    const input = parseToolInput(block[RAW_JSON]);
    if (input === void 0) block[ISSUE] = "invalid_json";
    else block.input = input;
  }
  return replaceBlock(snapshot, event.index, block);
}
function onMessageStart(snapshot, event) {
  if (snapshot != null) {
    throw new ProtocolError("message_start: a second message_start in one stream", event.type);
  }
  const message = { ...event.message };
  message.usage = message.usage && typeof message.usage === "object" ? { ...message.usage } : {};
  message.content = Array.isArray(message.content) ? message.content.filter((b) => b && typeof b === "object").map((b) => ({ ...b })) : [];
  return message;
}
function onMessageDelta(snapshot, event) {
  requireOpenMessage(snapshot, event);
  const next = { ...snapshot, ...event.delta ?? {} };
  next.content = snapshot.content;
  if (event.context_management != null) next.context_management = event.context_management;
  if (event.usage && typeof event.usage === "object") {
    const usage = { ...snapshot.usage };
    for (const [key, value] of Object.entries(event.usage)) {
      if (value !== null && value !== void 0) usage[key] = value;
    }
    next.usage = usage;
  }
  return next;
}
function onMessageStop(snapshot, event) {
  requireOpenMessage(snapshot, event);
  const content = snapshot.content.map(
    (block) => block[OPEN] ? { ...block, [ISSUE]: "incomplete" } : block
  );
  return { ...snapshot, content, [STOPPED]: true };
}
var EARLY_KEPT = /* @__PURE__ */ new Set([
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop"
]);
function passedOver(snapshot, event) {
  return snapshot == null && EARLY_KEPT.has(event?.type);
}
var FOLDS = {
  message_start: onMessageStart,
  content_block_start: onBlockStart,
  content_block_delta: onDelta,
  content_block_stop: onBlockStop,
  message_delta: onMessageDelta,
  message_stop: onMessageStop
};
function accumulate(snapshot, event) {
  if (passedOver(snapshot, event)) return snapshot;
  const fold = Object.hasOwn(FOLDS, event?.type) ? FOLDS[event.type] : null;
  return fold === null ? snapshot : fold(snapshot, event);
}
function toApiMessage(snapshot) {
  if (snapshot == null) return null;
  const message = JSON.parse(JSON.stringify(snapshot));
  snapshot.content.forEach((block, index) => {
    const open = block[OPEN] || block[ISSUE] === "incomplete";
    if (!open || blockKind(block) !== TOOL || !block[DELTAS] || block[RAW_JSON] === "") return;
    const input = parseCompleteValues(block[RAW_JSON]);
    if (input !== void 0) message.content[index].input = input;
  });
  return message;
}

// static/playground/render/blocks.js
var STORE_PREFIX = "pg:thinking:";
var ThinkingMemory = class {
  #page = /* @__PURE__ */ new Map();
  get(key) {
    if (this.#page.has(key)) return this.#page.get(key);
    let value = {};
    try {
      const raw = globalThis.localStorage?.getItem(STORE_PREFIX + key);
      const parsed = raw ? JSON.parse(raw) : null;
      if (parsed && typeof parsed === "object") value = parsed;
    } catch {
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
    }
  }
};
var memory = new ThinkingMemory();
var thinkingChoices = {
  has: (key) => typeof memory.get(key).open === "boolean",
  get: (key) => memory.get(key).open,
  set: (key, open) => memory.set(key, { open })
};
var thinkingDurations = {
  get: (key) => memory.get(key).ms,
  set: (key, ms) => memory.set(key, { ms })
};
function thoughtLabel(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return "Thought";
  return ms < 1e3 ? "Thought for <1 s" : `Thought for ${Math.round(ms / 1e3)} s`;
}
var ThinkingView = class _ThinkingView {
  constructor({ key, live }) {
    this.key = key;
    this.touched = thinkingChoices.has(key);
    this.pending = "";
    const details = el("details", { className: "pg-block pg-thinking" });
    details.dataset.blockType = "thinking";
    const summary = el("summary", { className: "pg-thinking-summary" });
    this.label = el("span", { className: "pg-thinking-label", text: live ? "Thinking\u2026" : thoughtLabel() });
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
    const view = new _ThinkingView({ key, live: false });
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
    this.text.data = signed ? "The API left the reasoning out (thinking display: omitted); its signature is kept and sent back." : "No thinking text arrived.";
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
      this.text.appendData(this.pending);
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
};
var RedactedThinkingView = class {
  constructor(block = {}) {
    const details = el("details", { className: "pg-block pg-redacted" });
    details.dataset.blockType = "redacted_thinking";
    details.append(el("summary", { className: "pg-redacted-summary", text: "Thinking redacted" }));
    const size = typeof block.data === "string" ? ` (${block.data.length} characters of encrypted data)` : "";
    details.append(
      el("p", {
        className: "pg-redacted-body",
        text: `The provider encrypted this reasoning${size}; it is sent back as received.`
      })
    );
    this.element = details;
  }
};
function toolResultElement(block, { name = null } = {}) {
  const root = el("div", { className: "pg-block pg-tool-result" });
  root.dataset.blockType = "tool_result";
  const isError = block.is_error === true;
  root.dataset.isError = isError ? "true" : "false";
  const head = el("div", { className: "pg-tool-head" });
  head.append(
    el("span", { className: "pg-tool-label", text: "Tool result" }),
    name ? el("code", { className: "pg-tool-name", text: String(name), dataset: { toolName: String(name) } }) : "",
    // append(null) would write "null"
    el("span", { className: "pg-tool-id", text: String(block.tool_use_id ?? "") })
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
  } else if (content !== void 0) {
    root.append(unknownElement(content));
  }
  return root;
}
function toolReferenceElement(part) {
  const name = String(part.tool_name ?? "");
  const line = el("p", { className: "pg-tool-reference", dataset: { toolReference: name } });
  line.append("Loads the tool ", el("code", { className: "pg-tool-name", text: name }));
  return line;
}
function unknownElement(block) {
  const root = el("details", { className: "pg-block pg-unknown" });
  const type = block !== null && typeof block === "object" ? String(block.type ?? "?") : "?";
  root.dataset.blockType = type;
  root.append(el("summary", { className: "pg-unknown-title", text: `Block: ${type}` }));
  root.append(el("pre", { className: "pg-unknown-json", text: pretty(block) }));
  return root;
}

// static/playground/render/citations.js
var LINKABLE = /* @__PURE__ */ new Set(["http:", "https:"]);
function safeHttpUrl(raw) {
  if (typeof raw !== "string") return null;
  try {
    const url = new URL(raw);
    return LINKABLE.has(url.protocol) ? url.href : null;
  } catch {
    return null;
  }
}
function range(noun, start, end, { endExclusive = false } = {}) {
  if (!Number.isInteger(start)) return "";
  const last = Number.isInteger(end) ? endExclusive ? end - 1 : end : start;
  return last > start ? `${noun}s ${start}\u2013${last}` : `${noun} ${start}`;
}
function citationLocation(citation) {
  const c = citation ?? {};
  switch (c.type) {
    case "char_location":
      return range("character", c.start_char_index, c.end_char_index, { endExclusive: true });
    case "page_location":
      return range("page", c.start_page_number, c.end_page_number);
    case "content_block_location":
      return range("block", c.start_block_index, c.end_block_index, { endExclusive: true });
    case "search_result_location": {
      const blocks = range("block", c.start_block_index, c.end_block_index, { endExclusive: true });
      const index = Number.isInteger(c.search_result_index) ? `search result ${c.search_result_index}` : "";
      return [index, blocks].filter(Boolean).join(", ");
    }
    default:
      return "";
  }
}
function citationSource(citation) {
  const c = citation ?? {};
  const rawUrl = c.type === "search_result_location" ? c.source : c.url;
  const url = safeHttpUrl(rawUrl);
  let title = typeof c.document_title === "string" && c.document_title ? c.document_title : null;
  if (title === null && typeof c.title === "string" && c.title) title = c.title;
  if (title === null && typeof rawUrl === "string" && rawUrl) title = rawUrl;
  if (title === null && Number.isInteger(c.document_index)) title = `Document ${c.document_index}`;
  return {
    title: title ?? "Source",
    url,
    location: citationLocation(c),
    quote: typeof c.cited_text === "string" ? c.cited_text : "",
    kind: typeof c.type === "string" ? c.type : "unknown"
  };
}
var CitationNumbers = class {
  #byKey = /* @__PURE__ */ new Map();
  #list = [];
  /** The citation's number (1-based) and whether it is new. */
  add(citation) {
    const key = JSON.stringify(citation ?? null);
    const known = this.#byKey.get(key);
    if (known !== void 0) return { number: known, added: false };
    this.#list.push(citation);
    this.#byKey.set(key, this.#list.length);
    return { number: this.#list.length, added: true };
  }
  get size() {
    return this.#list.length;
  }
};
var MARK_OPEN = "\uE000";
var MARK_CLOSE = "\uE001";
function markerText(numbers) {
  return numbers.map((n) => `${MARK_OPEN}${n}${MARK_CLOSE}`).join("");
}
function splitMarkers(text) {
  const parts = [];
  const pattern = new RegExp(`${MARK_OPEN}(\\d+)${MARK_CLOSE}`, "g");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ marker: Number(match[1]) });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}

// static/playground/render/server-blocks.js
var ERROR_WORDS = {
  invalid_tool_input: "the tool input was invalid",
  unavailable: "the tool was unavailable",
  max_uses_exceeded: "the request's max_uses for this tool was reached",
  too_many_requests: "rate limited",
  query_too_long: "the query was too long",
  execution_time_exceeded: "the run took too long",
  output_file_too_large: "an output file was too large",
  file_not_found: "file not found",
  url_too_long: "the URL was too long",
  url_not_allowed: "the URL is not allowed",
  url_not_accessible: "the URL could not be fetched",
  unsupported_content_type: "unsupported content type"
};
var LABELS = {
  web_search_tool_result: "Web search results",
  code_execution_tool_result: "Code execution result",
  bash_code_execution_tool_result: "Bash result",
  text_editor_code_execution_tool_result: "File editor result",
  mcp_tool_result: "MCP result"
};
function frame(block, { label, callName, isError }) {
  const root = el("div", { className: "pg-block pg-server-result" });
  root.dataset.blockType = String(block.type);
  root.dataset.isError = isError ? "true" : "false";
  const head = el("div", { className: "pg-tool-head" });
  head.append(
    el("span", { className: "pg-tool-label", text: label }),
    callName ? el("code", { className: "pg-tool-name", text: String(callName) }) : "",
    // not null: append writes it
    el("span", { className: "pg-tool-id", text: String(block.tool_use_id ?? "") })
  );
  if (isError) head.append(el("span", { className: "pg-badge pg-badge-error", text: "Error" }));
  root.append(head);
  return root;
}
function isErrorContent(content) {
  return content !== null && typeof content === "object" && /_error$/.test(String(content.type ?? ""));
}
function errorElement(content) {
  const code = String(content.error_code ?? "error");
  const words = ERROR_WORDS[code];
  const box = el("p", { className: "pg-server-error", dataset: { errorCode: code } });
  box.append(el("code", { text: code }), words ? ` \u2014 ${words}` : "");
  if (typeof content.error_message === "string" && content.error_message) {
    box.append(el("span", { className: "pg-server-error-message", text: `: ${content.error_message}` }));
  }
  return box;
}
function linkedTitle(title, rawUrl, className) {
  const url = safeHttpUrl(rawUrl);
  const text = typeof title === "string" && title ? title : String(rawUrl ?? "");
  if (url === null) return el("span", { className, text, dataset: { unsafeUrl: "true" } });
  return el("a", { className, text, attrs: { href: url, rel: "noopener noreferrer", target: "_blank" } });
}
function webSearchBody(content) {
  const list = el("ol", { className: "pg-search-results" });
  for (const result of Array.isArray(content) ? content : []) {
    const item = el("li", { className: "pg-search-result" });
    item.append(linkedTitle(result?.title, result?.url, "pg-search-title"));
    item.append(el("span", { className: "pg-search-url", text: String(result?.url ?? "") }));
    if (result?.page_age) item.append(el("span", { className: "pg-search-age", text: String(result.page_age) }));
    list.append(item);
  }
  return list;
}
function preText(className, label, text) {
  const box = el("div", { className: `pg-exec-stream ${className}` });
  box.append(el("span", { className: "pg-exec-label", text: label }), el("pre", { text }));
  return box;
}
function execBody(content) {
  const body = el("div", { className: "pg-exec" });
  if (content?.stdout) body.append(preText("pg-exec-stdout", "stdout", String(content.stdout)));
  if (content?.stderr) body.append(preText("pg-exec-stderr", "stderr", String(content.stderr)));
  const code = content?.return_code;
  const status = el("span", { className: "pg-exec-code", text: `exit code ${code ?? "?"}` });
  status.dataset.returnCode = String(code ?? "");
  body.append(status);
  const files = Array.isArray(content?.content) ? content.content : [];
  if (files.length > 0) {
    const list = el("ul", { className: "pg-exec-files", attrs: { "aria-label": "Files created" } });
    for (const file of files) list.append(el("li", { text: String(file?.file_id ?? "") }));
    body.append(el("span", { className: "pg-exec-label", text: "Files created" }), list);
  }
  return body;
}
function fileView(content) {
  const start = Number.isInteger(content.start_line) ? content.start_line : 1;
  const shown = Number.isInteger(content.num_lines) ? content.num_lines : null;
  const total = Number.isInteger(content.total_lines) ? `${content.total_lines}` : "?";
  const caption = shown ? `lines ${start}\u2013${start + shown - 1} of ${total}` : `${content.file_type ?? "file"}`;
  const box = el("div", { className: "pg-file-view" });
  box.append(el("span", { className: "pg-exec-label", text: caption }));
  box.append(el("pre", { className: "pg-file-text", text: String(content.content ?? "") }));
  return box;
}
function diffView(content) {
  const pre = el("pre", { className: "pg-diff" });
  const head = `@@ -${content.old_start ?? "?"},${content.old_lines ?? "?"} +${content.new_start ?? "?"},${content.new_lines ?? "?"} @@`;
  pre.append(el("span", { className: "pg-diff-head", text: head }), "\n");
  for (const line of Array.isArray(content.lines) ? content.lines : []) {
    const text = String(line);
    const kind = text.startsWith("+") ? "add" : text.startsWith("-") ? "del" : "ctx";
    pre.append(el("span", { className: `pg-diff-line pg-diff-${kind}`, text }), "\n");
  }
  return pre;
}
function editorBody(content) {
  switch (content?.type) {
    case "text_editor_code_execution_view_result":
      return fileView(content);
    case "text_editor_code_execution_create_result":
      return el("p", { className: "pg-file-created", text: content.is_file_update ? "File updated" : "File created" });
    case "text_editor_code_execution_str_replace_result":
      return diffView(content);
    default:
      return el("pre", { className: "pg-unknown-json", text: JSON.stringify(content, null, 2) });
  }
}
function mcpBody(content) {
  const parts = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  const box = el("div", { className: "pg-mcp-content" });
  for (const part of parts) {
    const text = part?.type === "text" ? String(part.text ?? "") : JSON.stringify(part, null, 2);
    box.append(el("pre", { className: "pg-tool-result-text", text }));
  }
  return box;
}
var BODIES = {
  web_search_tool_result: webSearchBody,
  code_execution_tool_result: execBody,
  bash_code_execution_tool_result: execBody,
  text_editor_code_execution_tool_result: editorBody,
  mcp_tool_result: mcpBody
};
function isServerResult(type) {
  return Object.hasOwn(BODIES, type) || type === "container_upload";
}
function serverResultElement(block, { callName = null } = {}) {
  if (block.type === "container_upload") {
    const root2 = frame(block, { label: "File uploaded to the container", callName: null, isError: false });
    root2.append(el("code", { className: "pg-upload-file", text: String(block.file_id ?? "") }));
    return root2;
  }
  const content = block.content;
  const isError = block.is_error === true || isErrorContent(content);
  const root = frame(block, { label: LABELS[block.type], callName, isError });
  root.append(isErrorContent(content) ? errorElement(content) : BODIES[block.type](content));
  return root;
}
var CompactionView = class _CompactionView {
  constructor() {
    const details = el("details", { className: "pg-block pg-compaction" });
    details.dataset.blockType = "compaction";
    details.open = true;
    details.append(el("summary", { className: "pg-compaction-summary", text: "Earlier turns, compacted" }));
    this.text = el("p", { className: "pg-compaction-text" });
    details.append(this.text);
    this.element = details;
    this.pending = null;
  }
  static stored(block) {
    const view = new _CompactionView();
    view.stop(block);
    return view;
  }
  delta(delta) {
    if (delta.type === "compaction_delta") this.pending = delta.content ?? "";
  }
  render() {
    if (this.pending === null) return;
    this.text.textContent = this.pending;
    this.pending = null;
  }
  stop(block) {
    this.pending = null;
    const content = typeof block?.content === "string" ? block.content : "";
    this.text.textContent = content || "(no summary: the compacted context is encrypted)";
    this.element.dataset.state = "done";
  }
};

// static/playground/render/code-languages.js
var GRAMMARS = {
  "bash": () => import("./vendor/highlightjs/languages/bash.min.js"),
  "c": () => import("./vendor/highlightjs/languages/c.min.js"),
  "cpp": () => import("./vendor/highlightjs/languages/cpp.min.js"),
  "csharp": () => import("./vendor/highlightjs/languages/csharp.min.js"),
  "css": () => import("./vendor/highlightjs/languages/css.min.js"),
  "diff": () => import("./vendor/highlightjs/languages/diff.min.js"),
  "go": () => import("./vendor/highlightjs/languages/go.min.js"),
  "graphql": () => import("./vendor/highlightjs/languages/graphql.min.js"),
  "ini": () => import("./vendor/highlightjs/languages/ini.min.js"),
  "java": () => import("./vendor/highlightjs/languages/java.min.js"),
  "javascript": () => import("./vendor/highlightjs/languages/javascript.min.js"),
  "json": () => import("./vendor/highlightjs/languages/json.min.js"),
  "kotlin": () => import("./vendor/highlightjs/languages/kotlin.min.js"),
  "less": () => import("./vendor/highlightjs/languages/less.min.js"),
  "lua": () => import("./vendor/highlightjs/languages/lua.min.js"),
  "makefile": () => import("./vendor/highlightjs/languages/makefile.min.js"),
  "markdown": () => import("./vendor/highlightjs/languages/markdown.min.js"),
  "objectivec": () => import("./vendor/highlightjs/languages/objectivec.min.js"),
  "perl": () => import("./vendor/highlightjs/languages/perl.min.js"),
  "php": () => import("./vendor/highlightjs/languages/php.min.js"),
  "php-template": () => import("./vendor/highlightjs/languages/php-template.min.js"),
  "plaintext": () => import("./vendor/highlightjs/languages/plaintext.min.js"),
  "python": () => import("./vendor/highlightjs/languages/python.min.js"),
  "python-repl": () => import("./vendor/highlightjs/languages/python-repl.min.js"),
  "r": () => import("./vendor/highlightjs/languages/r.min.js"),
  "ruby": () => import("./vendor/highlightjs/languages/ruby.min.js"),
  "rust": () => import("./vendor/highlightjs/languages/rust.min.js"),
  "scss": () => import("./vendor/highlightjs/languages/scss.min.js"),
  "shell": () => import("./vendor/highlightjs/languages/shell.min.js"),
  "sql": () => import("./vendor/highlightjs/languages/sql.min.js"),
  "swift": () => import("./vendor/highlightjs/languages/swift.min.js"),
  "typescript": () => import("./vendor/highlightjs/languages/typescript.min.js"),
  "vbnet": () => import("./vendor/highlightjs/languages/vbnet.min.js"),
  "wasm": () => import("./vendor/highlightjs/languages/wasm.min.js"),
  "xml": () => import("./vendor/highlightjs/languages/xml.min.js"),
  "yaml": () => import("./vendor/highlightjs/languages/yaml.min.js")
};
var ALIASES = {
  "atom": "xml",
  "c#": "csharp",
  "c++": "cpp",
  "cc": "cpp",
  "cjs": "javascript",
  "console": "shell",
  "cs": "csharp",
  "cts": "typescript",
  "cxx": "cpp",
  "gemspec": "ruby",
  "golang": "go",
  "gql": "graphql",
  "gyp": "python",
  "h++": "cpp",
  "h": "c",
  "hh": "cpp",
  "hpp": "cpp",
  "html": "xml",
  "hxx": "cpp",
  "ipython": "python",
  "irb": "ruby",
  "js": "javascript",
  "json5": "json",
  "jsonc": "json",
  "jsp": "java",
  "jsx": "javascript",
  "kt": "kotlin",
  "ktm": "kotlin",
  "kts": "kotlin",
  "ktx": "kotlin",
  "mak": "makefile",
  "make": "makefile",
  "md": "markdown",
  "mjs": "javascript",
  "mk": "makefile",
  "mkd": "markdown",
  "mkdown": "markdown",
  "mm": "objectivec",
  "mts": "typescript",
  "obj-c++": "objectivec",
  "obj-c": "objectivec",
  "objc": "objectivec",
  "objective-c++": "objectivec",
  "patch": "diff",
  "pl": "perl",
  "plist": "xml",
  "pluto": "lua",
  "pm": "perl",
  "podspec": "ruby",
  "py": "python",
  "pycon": "python-repl",
  "rb": "ruby",
  "rs": "rust",
  "rss": "xml",
  "sh": "bash",
  "shellsession": "shell",
  "svg": "xml",
  "text": "plaintext",
  "thor": "ruby",
  "toml": "ini",
  "ts": "typescript",
  "tsx": "typescript",
  "txt": "plaintext",
  "vb": "vbnet",
  "wsf": "xml",
  "xhtml": "xml",
  "xjb": "xml",
  "xsd": "xml",
  "xsl": "xml",
  "yml": "yaml",
  "zsh": "bash"
};

// static/playground/render/code-highlight.js
var SLICE_MS = 8;
var hljs = null;
var core = null;
var grammars = /* @__PURE__ */ new Map();
var queue = [];
var scheduled = false;
function grammarOf(language) {
  const name = Object.hasOwn(ALIASES, language) ? ALIASES[language] : language;
  return Object.hasOwn(GRAMMARS, name) ? name : null;
}
function highlightCode(code, grammar, sanitize2) {
  const job = { code, grammar, sanitize: sanitize2 };
  if (hljs !== null && hljs.getLanguage(grammar) !== void 0) paint(job);
  else {
    queue.push(job);
    schedule();
  }
}
function paint({ code, grammar, sanitize: sanitize2 }) {
  const { value } = hljs.highlight(code.textContent, { language: grammar, ignoreIllegals: true });
  code.replaceChildren(sanitize2(value));
  code.dataset.highlighted = grammar;
}
function schedule() {
  if (scheduled) return;
  scheduled = true;
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => run(), { timeout: 1e3 });
  else setTimeout(() => run(), 0);
}
function load(grammar) {
  core ??= import("./vendor/highlightjs/core.min.js").then((module) => {
    hljs = module.default;
  });
  if (!grammars.has(grammar)) {
    const registered = core.then(() => GRAMMARS[grammar]()).then((module) => hljs.registerLanguage(grammar, module.default));
    grammars.set(grammar, registered);
  }
  return grammars.get(grammar);
}
async function run() {
  scheduled = false;
  const wanted = new Set(queue.map((job) => job.grammar));
  try {
    for (const grammar of wanted) await load(grammar);
  } catch (error) {
    console.warn("code highlighting unavailable:", error);
    queue.length = 0;
    return;
  }
  const end = performance.now() + SLICE_MS;
  while (queue.length > 0 && performance.now() < end) paint(queue.shift());
  if (queue.length > 0) schedule();
}

// static/playground/render/markdown.js
var SAFE_PROTOCOLS = /* @__PURE__ */ new Set(["http:", "https:", "mailto:"]);
var LANGUAGE = /^[\w+#.-]{1,32}$/;
function escapeHtml(text) {
  return String(text).replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;").replaceAll('"', "&quot;").replaceAll("'", "&#39;");
}
function isSafeHref(href) {
  try {
    return SAFE_PROTOCOLS.has(new URL(href).protocol);
  } catch {
    return false;
  }
}
var marked = new ne({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? "").trim().split(/\s+/)[0].toLowerCase();
      const known = LANGUAGE.test(language) && grammarOf(language) !== null;
      const cls = known ? ` class="hljs language-${language}"` : ' class="hljs"';
      return `<pre><code${cls}>${escapeHtml(text)}</code></pre>
`;
    },
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>
` : escapeHtml(text);
    },
    image({ href, text }) {
      const label = escapeHtml(`[image: ${text || href}]`);
      return `<a href="${escapeHtml(href)}">${label}</a>`;
    },
    checkbox({ checked }) {
      return checked ? "\u2611 " : "\u2610 ";
    }
  }
});
var purifier = purify_default(window);
var PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    "a",
    "blockquote",
    "br",
    "code",
    "del",
    "em",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "hr",
    "li",
    "ol",
    "p",
    "pre",
    "s",
    "span",
    "strong",
    "table",
    "tbody",
    "td",
    "th",
    "thead",
    "tr",
    "ul"
  ],
  ALLOWED_ATTR: ["href", "title", "class", "start", "align"],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  RETURN_DOM_FRAGMENT: true
};
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName !== "A") return;
  const href = node.getAttribute("href");
  if (href !== null && !isSafeHref(href)) node.removeAttribute("href");
  if (node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});
var sanitize = (html) => purifier.sanitize(html, PURIFY_CONFIG);
function addCodeToolbars(root) {
  for (const pre of root.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    if (code === null) continue;
    const language = [...code.classList].find((c) => c.startsWith("language-"));
    if (language) highlightCode(code, grammarOf(language.slice("language-".length)), sanitize);
    const label = el("span", { className: "pg-code-lang", text: language ? language.slice("language-".length) : "" });
    const button = el("button", { className: "pg-copy", text: "Copy", attrs: { type: "button", "aria-label": "Copy code" } });
    button.addEventListener("click", () => copyText(button, code.textContent));
    const wrapper = el("div", { className: "pg-code" }, el("div", { className: "pg-code-bar" }, label, button));
    pre.replaceWith(wrapper);
    wrapper.append(pre);
  }
}
function renderMarkdownSafe(text) {
  const html = marked.parse(String(text ?? ""));
  const fragment = sanitize(html);
  addCodeToolbars(fragment);
  return fragment;
}
var WARM_UP = [
  "# a\n\n*b* **c** `d` [e](https://example.com) ~f~\n",
  "> g\n\n- h\n1. i\n",
  "| j |\n|---|\n| k |\n\n```\nl\n```\n"
];
var COMPILE_SLICE_MS = 6;
async function warmUp() {
  await compileRules();
  for (const text of WARM_UP) {
    renderMarkdownSafe(text);
    await nextTask();
  }
}
async function compileRules() {
  const { block, inline } = marked.Lexer.rules;
  const rules = [...Object.values(block.gfm), ...Object.values(inline.gfm)];
  let started = performance.now();
  for (const rule of rules) {
    if (!(rule instanceof RegExp)) continue;
    const at = rule.lastIndex;
    rule.exec(" ");
    rule.lastIndex = at;
    if (performance.now() - started > COMPILE_SLICE_MS) {
      await nextTask();
      started = performance.now();
    }
  }
}

// static/playground/render/markdown-stream.js
var FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
var LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
var LIST_PREFIX = /^(?:[-+*]|\d{1,9}[.)]?)$/;
var BLANK = /^[ \t]*\r?$/;
var MarkdownSplitter = class {
  constructor() {
    this.tail = "";
    this.scanned = 0;
    this.fence = null;
    this.afterBlank = false;
    this.afterFence = false;
    this.blockIsList = false;
    this.atStart = true;
  }
  /** Add a delta; returns the text that became frozen by it ("" when none). */
  push(delta) {
    this.tail += delta;
    let boundary = 0;
    let newline = this.tail.indexOf("\n", this.scanned);
    while (newline !== -1) {
      const start = this.scanned;
      if (this.#line(this.tail.slice(start, newline))) boundary = start;
      this.scanned = newline + 1;
      newline = this.tail.indexOf("\n", this.scanned);
    }
    if (this.scanned > boundary && this.#peek(this.tail.slice(this.scanned))) {
      boundary = this.scanned;
    }
    if (boundary === 0) return "";
    const frozen = this.tail.slice(0, boundary);
    this.tail = this.tail.slice(boundary);
    this.scanned -= boundary;
    return frozen;
  }
  /** True when an unfinished line already shows it starts a new top-level block. */
  #peek(partial) {
    if (this.fence !== null || !(this.afterBlank || this.afterFence)) return false;
    if (partial === "" || /^[ \t]/.test(partial)) return false;
    if (!this.blockIsList || !this.afterBlank) return true;
    return !LIST_ITEM.test(partial) && !LIST_PREFIX.test(partial);
  }
  /** Read one complete line; true when a new top-level block starts at it. */
  #line(line) {
    if (this.fence !== null) {
      const match = FENCE.exec(line);
      const closes = match !== null && match[1][0] === this.fence.char && match[1].length >= this.fence.length && match[2].trim() === "";
      if (closes) {
        this.fence = null;
        this.afterFence = !/^[ \t]/.test(line);
      }
      this.afterBlank = false;
      return false;
    }
    if (BLANK.test(line)) {
      this.afterBlank = true;
      this.afterFence = false;
      return false;
    }
    const isList = LIST_ITEM.test(line);
    const starts = (this.afterBlank || this.afterFence) && !/^[ \t]/.test(line) && !(isList && this.blockIsList && this.afterBlank);
    if (starts || this.atStart) this.blockIsList = isList;
    this.atStart = false;
    this.afterBlank = false;
    this.afterFence = false;
    const open = FENCE.exec(line);
    if (open !== null && !(open[1][0] === "`" && open[2].includes("`"))) {
      this.fence = { char: open[1][0], length: open[1].length };
    }
    return starts;
  }
};

// static/playground/render/text-view.js
var TextView = class _TextView {
  constructor({ markdown = true } = {}) {
    this.element = el("div", { className: "pg-block pg-text" });
    this.element.dataset.blockType = "text";
    this.element.dataset.blocks = "1";
    this.markdown = markdown;
    this.splitter = new MarkdownSplitter();
    this.frozen = [];
    this.tailDirty = false;
    this.tail = el("div", { className: "pg-md-tail" });
    this.element.append(this.tail);
    this.citations = new CitationNumbers();
    this.sources = null;
    this.lastCited = false;
    if (!markdown) this.element.classList.add("pg-plain");
  }
  /** A stored run of text blocks ([{text, citations?}]); user text is plain, one block. */
  static stored(blocks, { markdown }) {
    const view = new _TextView({ markdown });
    view.tail.remove();
    view.element.dataset.blocks = String(blocks.length);
    if (markdown) {
      const text = blocks.map((block, i) => {
        const before = i === 0 ? "" : view.#separator(block);
        const markers = view.#markers(block.citations);
        view.lastCited = markers !== "";
        return before + String(block.text ?? "") + markers;
      }).join("");
      view.element.prepend(view.#rendered(text));
    } else {
      view.element.textContent = blocks.map((block) => String(block.text ?? "")).join("");
    }
    view.element.dataset.state = "done";
    return view;
  }
  /** The view a further text block of the same run feeds (live): the run's own methods. */
  continuation(block) {
    this.element.dataset.blocks = String(Number(this.element.dataset.blocks) + 1);
    const before = this.#separator(block);
    if (before) this.#feed(before);
    delete this.element.dataset.state;
    return {
      run: this,
      element: null,
      // drawn by the run's element
      delta: (delta) => this.delta(delta),
      render: () => this.render(),
      stop: (block2) => this.stop(block2),
      incomplete: () => this.incomplete()
    };
  }
  delta(delta) {
    if (delta.type === "text_delta") this.#feed(delta.text ?? "");
  }
  #feed(text) {
    const frozen = this.splitter.push(text);
    if (frozen) this.frozen.push(frozen);
    this.tailDirty = true;
  }
  render() {
    if (this.frozen.length > 0) {
      const segment = el("div", { className: "pg-md-frozen" });
      segment.append(this.#rendered(this.frozen.join("")));
      this.frozen = [];
      this.element.insertBefore(segment, this.tail);
    }
    if (this.tailDirty) {
      this.tailDirty = false;
      this.tail.replaceChildren(this.#rendered(this.splitter.tail));
    }
  }
  /**
   * What goes between the run's text so far and the next block: nothing beside a cited block
   * (the API cuts a sentence around each cited span, spaces included), a paragraph break
   * between two blocks without citations (separate texts, drawn apart before runs existed).
   */
  #separator(next) {
    return this.lastCited || Array.isArray(next?.citations) ? "" : "\n\n";
  }
  /** A block of the run ended: its citations' markers follow its text. */
  stop(block) {
    const markers = this.#markers(block?.citations);
    this.lastCited = markers !== "";
    if (markers) this.#feed(markers);
    this.element.dataset.state = "done";
  }
  incomplete() {
    this.element.dataset.state = "incomplete";
  }
  /** Number the citations (new ones join the source list); their marker text. */
  #markers(citations) {
    if (!Array.isArray(citations) || citations.length === 0) return "";
    const numbers = citations.map((citation) => {
      const { number, added } = this.citations.add(citation);
      if (added) this.#listSource(number, citation);
      return number;
    });
    return markerText(numbers);
  }
  #listSource(number, citation) {
    if (this.sources === null) {
      this.sources = el("ol", { className: "pg-sources" });
      this.sources.setAttribute("aria-label", "Sources");
      this.element.append(this.sources);
    }
    this.sources.append(sourceItem(number, citation));
  }
  /** Markdown (or plain text) rendered, then its citation markers made elements. */
  #rendered(text) {
    const fragment = renderMarkdownSafe(text);
    if (this.citations.size > 0) placeMarkers(fragment, this.citations.size);
    return fragment;
  }
};
function sourceItem(number, citation) {
  const source = citationSource(citation);
  const item = el("li", { className: "pg-source", dataset: { cite: String(number), kind: source.kind } });
  item.value = number;
  const title = source.url ? el("a", {
    className: "pg-source-title",
    text: source.title,
    attrs: { href: source.url, rel: "noopener noreferrer", target: "_blank" }
  }) : el("span", { className: "pg-source-title", text: source.title });
  item.append(title);
  if (source.location) item.append(el("span", { className: "pg-source-location", text: source.location }));
  if (source.quote) item.append(el("blockquote", { className: "pg-source-quote", text: source.quote }));
  return item;
}
function placeMarkers(fragment, count) {
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    if (node.data.includes(MARK_OPEN)) found.push(node);
  }
  for (const node of found) {
    const parts = splitMarkers(node.data).map((part) => {
      if (part.marker === void 0) return document.createTextNode(part.text);
      if (part.marker < 1 || part.marker > count) return document.createTextNode(markerText([part.marker]));
      return el("sup", { className: "pg-cite", text: `[${part.marker}]`, dataset: { cite: String(part.marker) } });
    });
    node.replaceWith(...parts);
  }
}

// static/vendor/cfworker-json-schema/bundle.js
function deepCompareStrict(a, b) {
  const typeofa = typeof a;
  if (typeofa !== typeof b) {
    return false;
  }
  const aIsArray = Array.isArray(a);
  const bIsArray = Array.isArray(b);
  if (aIsArray !== bIsArray) {
    return false;
  }
  if (aIsArray) {
    const length = a.length;
    if (length !== b.length) {
      return false;
    }
    for (let i = 0; i < length; i++) {
      if (!deepCompareStrict(a[i], b[i])) {
        return false;
      }
    }
    return true;
  }
  if (typeofa === "object") {
    if (!a || !b) {
      return a === b;
    }
    const aKeys = Object.keys(a);
    const bKeys = Object.keys(b);
    const length = aKeys.length;
    if (length !== bKeys.length) {
      return false;
    }
    for (const k of aKeys) {
      if (!Object.prototype.hasOwnProperty.call(b, k)) {
        return false;
      }
      if (!deepCompareStrict(a[k], b[k])) {
        return false;
      }
    }
    return true;
  }
  return a === b;
}
function encodePointer(p) {
  return encodeURI(escapePointer(p)).replace(/#/g, "%23");
}
function escapePointer(p) {
  return p.replace(/~/g, "~0").replace(/\//g, "~1");
}
var uriFragmentCharacter = /^[A-Za-z0-9._~!$&'()*+,;=:@/?-]$/;
var uriPercentEncoding = /^%[0-9A-Fa-f]{2}$/;
var uriUnreservedCharacter = /^[A-Za-z0-9._~-]$/;
function normalizeURIFragment(fragment) {
  let normalized = "";
  for (let index = 0; index < fragment.length; ) {
    const character = fragment[index];
    const encoded = fragment.slice(index, index + 3);
    if (character === "%" && uriPercentEncoding.test(encoded)) {
      const decoded = String.fromCharCode(parseInt(encoded.slice(1), 16));
      normalized += uriUnreservedCharacter.test(decoded) ? decoded : encoded.toUpperCase();
      index += 3;
      continue;
    }
    const codePoint = String.fromCodePoint(fragment.codePointAt(index));
    normalized += uriFragmentCharacter.test(codePoint) ? codePoint : encodeURIComponent(codePoint);
    index += codePoint.length;
  }
  return normalized;
}
function resolveURI(reference, baseURI) {
  const url = new URL(reference, baseURI.href);
  url.hash = url.hash ? normalizeURIFragment(url.hash.slice(1)) : "";
  return url;
}
var schemaKeyword = {
  additionalItems: true,
  unevaluatedItems: true,
  items: true,
  contains: true,
  additionalProperties: true,
  unevaluatedProperties: true,
  propertyNames: true,
  not: true,
  if: true,
  then: true,
  else: true
};
var schemaArrayKeyword = {
  prefixItems: true,
  items: true,
  allOf: true,
  anyOf: true,
  oneOf: true
};
var schemaMapKeyword = {
  $defs: true,
  definitions: true,
  properties: true,
  patternProperties: true,
  dependentSchemas: true
};
var ignoredKeyword = {
  id: true,
  $id: true,
  $ref: true,
  $schema: true,
  $anchor: true,
  $vocabulary: true,
  $comment: true,
  default: true,
  enum: true,
  const: true,
  required: true,
  dependentRequired: true,
  type: true,
  maximum: true,
  minimum: true,
  exclusiveMaximum: true,
  exclusiveMinimum: true,
  multipleOf: true,
  maxLength: true,
  minLength: true,
  pattern: true,
  format: true,
  maxItems: true,
  minItems: true,
  uniqueItems: true,
  maxProperties: true,
  minProperties: true
};
var initialBaseURI = typeof self !== "undefined" && self.location && self.location.origin !== "null" ? new URL(self.location.origin + self.location.pathname + location.search) : new URL("https://github.com/cfworker");
function dereference(schema, lookup = /* @__PURE__ */ Object.create(null), baseURI = initialBaseURI, basePointer = "") {
  if (schema && typeof schema === "object" && !Array.isArray(schema)) {
    const id = schema.$id || schema["id"];
    if (id) {
      const url = resolveURI(id, baseURI);
      if (url.hash.length > 1) {
        lookup[url.href] = schema;
      } else {
        url.hash = "";
        if (basePointer === "") {
          baseURI = url;
        } else {
          dereference(schema, lookup, baseURI);
        }
      }
    }
  } else if (schema !== true && schema !== false) {
    return lookup;
  }
  const schemaURI = baseURI.href + (basePointer ? "#" + basePointer : "");
  if (lookup[schemaURI] !== void 0 && lookup[schemaURI] !== schema) {
    throw new Error(`Duplicate schema URI "${schemaURI}".`);
  }
  lookup[schemaURI] = schema;
  if (schema === true || schema === false) {
    return lookup;
  }
  if (schema.__absolute_uri__ === void 0) {
    Object.defineProperty(schema, "__absolute_uri__", {
      enumerable: false,
      value: schemaURI
    });
  }
  if (schema.$ref && schema.__absolute_ref__ === void 0) {
    const url = resolveURI(schema.$ref, baseURI);
    Object.defineProperty(schema, "__absolute_ref__", {
      enumerable: false,
      value: url.href
    });
  }
  if (schema.$recursiveRef && schema.__absolute_recursive_ref__ === void 0) {
    const url = resolveURI(schema.$recursiveRef, baseURI);
    Object.defineProperty(schema, "__absolute_recursive_ref__", {
      enumerable: false,
      value: url.href
    });
  }
  if (schema.$anchor) {
    const url = resolveURI("#" + schema.$anchor, baseURI);
    lookup[url.href] = schema;
  }
  for (let key in schema) {
    if (ignoredKeyword[key]) {
      continue;
    }
    const keyBase = `${basePointer}/${encodePointer(key)}`;
    const subSchema = schema[key];
    if (Array.isArray(subSchema)) {
      if (schemaArrayKeyword[key]) {
        const length = subSchema.length;
        for (let i = 0; i < length; i++) {
          dereference(subSchema[i], lookup, baseURI, `${keyBase}/${i}`);
        }
      }
    } else if (schemaMapKeyword[key]) {
      for (let subKey in subSchema) {
        dereference(subSchema[subKey], lookup, baseURI, `${keyBase}/${encodePointer(subKey)}`);
      }
    } else {
      dereference(subSchema, lookup, baseURI, keyBase);
    }
  }
  return lookup;
}
var DATE = /^(\d\d\d\d)-(\d\d)-(\d\d)$/;
var DAYS = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
var TIME = /^(\d\d):(\d\d):(\d\d)(\.\d+)?(z|([+-])(\d\d):(\d\d))?$/i;
var HOSTNAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[-0-9a-z]{0,61}[0-9a-z])?)*$/i;
var URIREF = /^(?:[a-z][a-z0-9+\-.]*:)?(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'"()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'"()*+,;=:@]|%[0-9a-f]{2})*)*)?(?:\?(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'"()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;
var URITEMPLATE = /^(?:(?:[^\x00-\x20\x7f"<>%\\^`{|}]|%[0-9a-f]{2})|\{[+#./;?&=,!@|]?(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[a-z0-9_]|%[0-9a-f]{2})+(?:\.(?:[a-z0-9_]|%[0-9a-f]{2})+)*(?::[1-9][0-9]{0,3}|\*)?)*\})*$/i;
var URL_ = /^(?:(?:https?|ftp):\/\/)(?:\S+(?::\S*)?@)?(?:(?!10(?:\.\d{1,3}){3})(?!127(?:\.\d{1,3}){3})(?!169\.254(?:\.\d{1,3}){2})(?!192\.168(?:\.\d{1,3}){2})(?!172\.(?:1[6-9]|2\d|3[0-1])(?:\.\d{1,3}){2})(?:[1-9]\d?|1\d\d|2[01]\d|22[0-3])(?:\.(?:1?\d{1,2}|2[0-4]\d|25[0-5])){2}(?:\.(?:[1-9]\d?|1\d\d|2[0-4]\d|25[0-4]))|(?:(?:[a-z\u{00a1}-\u{ffff}0-9]+-?)*[a-z\u{00a1}-\u{ffff}0-9]+)(?:\.(?:[a-z\u{00a1}-\u{ffff}0-9]+-?)*[a-z\u{00a1}-\u{ffff}0-9]+)*(?:\.(?:[a-z\u{00a1}-\u{ffff}]{2,})))(?::\d{2,5})?(?:\/[^\s]*)?$/iu;
var UUID = /^[0-9a-f]{8}-(?:[0-9a-f]{4}-){3}[0-9a-f]{12}$/i;
var JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/;
var JSON_POINTER_URI_FRAGMENT = /^#(?:\/(?:[a-z0-9_\-.!$&'()*+,;:=@]|%[0-9a-f]{2}|~0|~1)*)*$/i;
var RELATIVE_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/;
var EMAIL_ADDRESS = /^("(?:[\x20-\x21\x23-\x5b\x5d-\x7e]|\\[\x20-\x7e])*"|[a-z0-9.!#$%&'*+/=?^_`{|}~-]+)@(.+)$/i;
var EMAIL = (input) => {
  const matches = input.match(EMAIL_ADDRESS);
  if (!matches)
    return false;
  const name = matches[1];
  const host = matches[2];
  if (!name || !host || name.length > 64 || host.length > 253)
    return false;
  if (name[0] !== '"' && (name[0] === "." || name.endsWith(".") || name.includes(".."))) {
    return false;
  }
  if (host.startsWith("[") && host.endsWith("]")) {
    const address = host.slice(1, -1);
    if (/^ipv6:/i.test(address))
      return IPV6.test(address.slice(5));
    return IPV4.test(address);
  }
  return HOSTNAME.test(host);
};
var IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)$/;
var IPV6 = /^((([0-9a-f]{1,4}:){7}([0-9a-f]{1,4}|:))|(([0-9a-f]{1,4}:){6}(:[0-9a-f]{1,4}|((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){5}(((:[0-9a-f]{1,4}){1,2})|:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3})|:))|(([0-9a-f]{1,4}:){4}(((:[0-9a-f]{1,4}){1,3})|((:[0-9a-f]{1,4})?:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){3}(((:[0-9a-f]{1,4}){1,4})|((:[0-9a-f]{1,4}){0,2}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){2}(((:[0-9a-f]{1,4}){1,5})|((:[0-9a-f]{1,4}){0,3}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(([0-9a-f]{1,4}:){1}(((:[0-9a-f]{1,4}){1,6})|((:[0-9a-f]{1,4}){0,4}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:))|(:(((:[0-9a-f]{1,4}){1,7})|((:[0-9a-f]{1,4}){0,5}:((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}))|:)))$/i;
var DURATION = (input) => /^P(?:\d+W|(?:(?:\d+Y(?:\d+M(?:\d+D)?)?|\d+M(?:\d+D)?|\d+D)(?:T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S))?|T(?:\d+H(?:\d+M(?:\d+S)?)?|\d+M(?:\d+S)?|\d+S)))$/.test(input);
function bind(r) {
  return r.test.bind(r);
}
var format = {
  date,
  time: time.bind(void 0, true),
  "date-time": date_time,
  duration: DURATION,
  uri,
  "uri-reference": bind(URIREF),
  "uri-template": bind(URITEMPLATE),
  url: bind(URL_),
  email: EMAIL,
  hostname: bind(HOSTNAME),
  ipv4: bind(IPV4),
  ipv6: bind(IPV6),
  regex,
  uuid: bind(UUID),
  "json-pointer": bind(JSON_POINTER),
  "json-pointer-uri-fragment": bind(JSON_POINTER_URI_FRAGMENT),
  "relative-json-pointer": bind(RELATIVE_JSON_POINTER)
};
function isLeapYear(year) {
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
}
function date(str) {
  const matches = str.match(DATE);
  if (!matches)
    return false;
  const yearPart = matches[1];
  const monthPart = matches[2];
  const dayPart = matches[3];
  if (!yearPart || !monthPart || !dayPart)
    return false;
  const year = +yearPart;
  const month = +monthPart;
  const day = +dayPart;
  const maxDay = month == 2 && isLeapYear(year) ? 29 : DAYS[month];
  return month >= 1 && month <= 12 && day >= 1 && maxDay !== void 0 && day <= maxDay;
}
function time(full, str) {
  const matches = str.match(TIME);
  if (!matches)
    return false;
  const hourPart = matches[1];
  const minutePart = matches[2];
  const secondPart = matches[3];
  if (!hourPart || !minutePart || !secondPart)
    return false;
  const hour = +hourPart;
  const minute = +minutePart;
  const second = +secondPart;
  const timeZone = matches[5];
  const offsetSign = matches[6];
  const offsetHour = +(matches[7] ?? 0);
  const offsetMinute = +(matches[8] ?? 0);
  if (hour > 23 || minute > 59 || second > 60 || offsetHour > 23 || offsetMinute > 59 || full && timeZone === void 0) {
    return false;
  }
  if (second < 60)
    return true;
  const offsetDirection = offsetSign === "+" ? 1 : offsetSign === "-" ? -1 : 0;
  const utcMinute = (hour * 60 + minute - offsetDirection * (offsetHour * 60 + offsetMinute) + 24 * 60) % (24 * 60);
  return utcMinute === 23 * 60 + 59;
}
var DATE_TIME_SEPARATOR = /t|\s/i;
function date_time(str) {
  const [datePart, timePart, extra] = str.split(DATE_TIME_SEPARATOR);
  return datePart !== void 0 && timePart !== void 0 && extra === void 0 && date(datePart) && time(true, timePart);
}
var NOT_URI_FRAGMENT = /\/|:/;
var URI_PATTERN = /^(?:[a-z][a-z0-9+\-.]*:)(?:\/?\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:]|%[0-9a-f]{2})*@)?(?:\[(?:(?:(?:(?:[0-9a-f]{1,4}:){6}|::(?:[0-9a-f]{1,4}:){5}|(?:[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){4}|(?:(?:[0-9a-f]{1,4}:){0,1}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){3}|(?:(?:[0-9a-f]{1,4}:){0,2}[0-9a-f]{1,4})?::(?:[0-9a-f]{1,4}:){2}|(?:(?:[0-9a-f]{1,4}:){0,3}[0-9a-f]{1,4})?::[0-9a-f]{1,4}:|(?:(?:[0-9a-f]{1,4}:){0,4}[0-9a-f]{1,4})?::)(?:[0-9a-f]{1,4}:[0-9a-f]{1,4}|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?))|(?:(?:[0-9a-f]{1,4}:){0,5}[0-9a-f]{1,4})?::[0-9a-f]{1,4}|(?:(?:[0-9a-f]{1,4}:){0,6}[0-9a-f]{1,4})?::)|[Vv][0-9a-f]+\.[a-z0-9\-._~!$&'()*+,;=:]+)\]|(?:(?:25[0-5]|2[0-4]\d|[01]?\d\d?)\.){3}(?:25[0-5]|2[0-4]\d|[01]?\d\d?)|(?:[a-z0-9\-._~!$&'()*+,;=]|%[0-9a-f]{2})*)(?::\d*)?(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*|\/(?:(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)?|(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})+(?:\/(?:[a-z0-9\-._~!$&'()*+,;=:@]|%[0-9a-f]{2})*)*)(?:\?(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?(?:#(?:[a-z0-9\-._~!$&'()*+,;=:@/?]|%[0-9a-f]{2})*)?$/i;
function uri(str) {
  return NOT_URI_FRAGMENT.test(str) && URI_PATTERN.test(str);
}
var Z_ANCHOR = /[^\\]\\Z/;
function regex(str) {
  if (Z_ANCHOR.test(str))
    return false;
  try {
    new RegExp(str, "u");
    return true;
  } catch (e) {
    return false;
  }
}
var OutputFormat;
(function(OutputFormat2) {
  OutputFormat2[OutputFormat2["Flag"] = 1] = "Flag";
  OutputFormat2[OutputFormat2["Basic"] = 2] = "Basic";
  OutputFormat2[OutputFormat2["Detailed"] = 4] = "Detailed";
})(OutputFormat || (OutputFormat = {}));
function ucs2length(s) {
  let result = 0;
  let length = s.length;
  let index = 0;
  let charCode;
  while (index < length) {
    result++;
    charCode = s.charCodeAt(index++);
    if (charCode >= 55296 && charCode <= 56319 && index < length) {
      charCode = s.charCodeAt(index);
      if ((charCode & 64512) == 56320) {
        index++;
      }
    }
  }
  return result;
}
function hasOwnProperty(instance, key) {
  return Object.prototype.hasOwnProperty.call(instance, key);
}
function decimalInteger(value) {
  const coefficientAndExponent = Math.abs(value).toString().split("e");
  const coefficient = coefficientAndExponent[0];
  const exponent = coefficientAndExponent[1] ?? "0";
  const point = coefficient.indexOf(".");
  const fractionLength = point === -1 ? 0 : coefficient.length - point - 1;
  return [
    BigInt(coefficient.replace(".", "")),
    Number(exponent) - fractionLength
  ];
}
function isMultipleOf(instance, divisor) {
  if (!Number.isFinite(instance) || !Number.isFinite(divisor) || divisor <= 0) {
    return false;
  }
  const [instanceCoefficient, instanceExponent] = decimalInteger(instance);
  const [divisorCoefficient, divisorExponent] = decimalInteger(divisor);
  const exponentDifference = instanceExponent - divisorExponent;
  if (exponentDifference >= 0) {
    return instanceCoefficient * 10n ** BigInt(exponentDifference) % divisorCoefficient === 0n;
  }
  return instanceCoefficient % (divisorCoefficient * 10n ** BigInt(-exponentDifference)) === 0n;
}
function validate(instance, schema, draft = "2019-09", lookup = dereference(schema), shortCircuit = true, recursiveAnchor = null, instanceLocation = "#", schemaLocation = "#", evaluated = /* @__PURE__ */ Object.create(null)) {
  if (schema === true) {
    return { valid: true, errors: [] };
  }
  if (schema === false) {
    return {
      valid: false,
      errors: [
        {
          instanceLocation,
          keyword: "false",
          keywordLocation: instanceLocation,
          error: "False boolean schema."
        }
      ]
    };
  }
  const rawInstanceType = typeof instance;
  let instanceType;
  switch (rawInstanceType) {
    case "boolean":
    case "number":
    case "string":
      instanceType = rawInstanceType;
      break;
    case "object":
      if (instance === null) {
        instanceType = "null";
      } else if (Array.isArray(instance)) {
        instanceType = "array";
      } else {
        instanceType = "object";
      }
      break;
    default:
      throw new Error(`Instances of "${rawInstanceType}" type are not supported.`);
  }
  const { $ref, $recursiveRef, $recursiveAnchor, type: $type, const: $const, enum: $enum, required: $required, not: $not, anyOf: $anyOf, allOf: $allOf, oneOf: $oneOf, if: $if, then: $then, else: $else, format: $format, properties: $properties, patternProperties: $patternProperties, additionalProperties: $additionalProperties, unevaluatedProperties: $unevaluatedProperties, minProperties: $minProperties, maxProperties: $maxProperties, propertyNames: $propertyNames, dependentRequired: $dependentRequired, dependentSchemas: $dependentSchemas, dependencies: $dependencies, prefixItems: $prefixItems, items: $items, additionalItems: $additionalItems, unevaluatedItems: $unevaluatedItems, contains: $contains, minContains: $minContains, maxContains: $maxContains, minItems: $minItems, maxItems: $maxItems, uniqueItems: $uniqueItems, minimum: $minimum, maximum: $maximum, exclusiveMinimum: $exclusiveMinimum, exclusiveMaximum: $exclusiveMaximum, multipleOf: $multipleOf, minLength: $minLength, maxLength: $maxLength, pattern: $pattern, __absolute_ref__, __absolute_recursive_ref__ } = schema;
  const errors = [];
  if ($recursiveAnchor === true && recursiveAnchor === null) {
    recursiveAnchor = schema;
  }
  if ($recursiveRef === "#") {
    const refSchema = recursiveAnchor === null ? lookup[__absolute_recursive_ref__] : recursiveAnchor;
    const keywordLocation = `${schemaLocation}/$recursiveRef`;
    const result = validate(instance, recursiveAnchor === null ? schema : recursiveAnchor, draft, lookup, shortCircuit, refSchema, instanceLocation, keywordLocation, evaluated);
    if (!result.valid) {
      errors.push({
        instanceLocation,
        keyword: "$recursiveRef",
        keywordLocation,
        error: "A subschema had errors."
      }, ...result.errors);
    }
  }
  if ($ref !== void 0) {
    const uri2 = __absolute_ref__ || $ref;
    const refSchema = lookup[uri2];
    if (refSchema === void 0) {
      let message = `Unresolved $ref "${$ref}".`;
      if (__absolute_ref__ && __absolute_ref__ !== $ref) {
        message += `  Absolute URI "${__absolute_ref__}".`;
      }
      message += `
Known schemas:
- ${Object.keys(lookup).join("\n- ")}`;
      throw new Error(message);
    }
    const keywordLocation = `${schemaLocation}/$ref`;
    const result = validate(instance, refSchema, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, keywordLocation, evaluated);
    if (!result.valid) {
      errors.push({
        instanceLocation,
        keyword: "$ref",
        keywordLocation,
        error: "A subschema had errors."
      }, ...result.errors);
    }
    if (draft === "4" || draft === "7") {
      return { valid: errors.length === 0, errors };
    }
  }
  if (Array.isArray($type)) {
    let length = $type.length;
    let valid = false;
    for (let i = 0; i < length; i++) {
      if (instanceType === $type[i] || $type[i] === "integer" && instanceType === "number" && instance % 1 === 0 && instance === instance) {
        valid = true;
        break;
      }
    }
    if (!valid) {
      errors.push({
        instanceLocation,
        keyword: "type",
        keywordLocation: `${schemaLocation}/type`,
        error: `Instance type "${instanceType}" is invalid. Expected "${$type.join('", "')}".`
      });
    }
  } else if ($type === "integer") {
    if (instanceType !== "number" || instance % 1 || instance !== instance) {
      errors.push({
        instanceLocation,
        keyword: "type",
        keywordLocation: `${schemaLocation}/type`,
        error: `Instance type "${instanceType}" is invalid. Expected "${$type}".`
      });
    }
  } else if ($type !== void 0 && instanceType !== $type) {
    errors.push({
      instanceLocation,
      keyword: "type",
      keywordLocation: `${schemaLocation}/type`,
      error: `Instance type "${instanceType}" is invalid. Expected "${$type}".`
    });
  }
  if ($const !== void 0) {
    if (instanceType === "object" || instanceType === "array") {
      if (!deepCompareStrict(instance, $const)) {
        errors.push({
          instanceLocation,
          keyword: "const",
          keywordLocation: `${schemaLocation}/const`,
          error: `Instance does not match ${JSON.stringify($const)}.`
        });
      }
    } else if (instance !== $const) {
      errors.push({
        instanceLocation,
        keyword: "const",
        keywordLocation: `${schemaLocation}/const`,
        error: `Instance does not match ${JSON.stringify($const)}.`
      });
    }
  }
  if ($enum !== void 0) {
    if (instanceType === "object" || instanceType === "array") {
      if (!$enum.some((value) => deepCompareStrict(instance, value))) {
        errors.push({
          instanceLocation,
          keyword: "enum",
          keywordLocation: `${schemaLocation}/enum`,
          error: `Instance does not match any of ${JSON.stringify($enum)}.`
        });
      }
    } else if (!$enum.some((value) => instance === value)) {
      errors.push({
        instanceLocation,
        keyword: "enum",
        keywordLocation: `${schemaLocation}/enum`,
        error: `Instance does not match any of ${JSON.stringify($enum)}.`
      });
    }
  }
  if ($not !== void 0) {
    const keywordLocation = `${schemaLocation}/not`;
    const result = validate(instance, $not, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, keywordLocation);
    if (result.valid) {
      errors.push({
        instanceLocation,
        keyword: "not",
        keywordLocation,
        error: 'Instance matched "not" schema.'
      });
    }
  }
  let subEvaluateds = [];
  if ($anyOf !== void 0) {
    const keywordLocation = `${schemaLocation}/anyOf`;
    const errorsLength = errors.length;
    let anyValid = false;
    for (const [i, subSchema] of $anyOf.entries()) {
      const subEvaluated = Object.create(evaluated);
      const result = validate(instance, subSchema, draft, lookup, shortCircuit, $recursiveAnchor === true ? recursiveAnchor : null, instanceLocation, `${keywordLocation}/${i}`, subEvaluated);
      errors.push(...result.errors);
      anyValid = anyValid || result.valid;
      if (result.valid) {
        subEvaluateds.push(subEvaluated);
      }
    }
    if (anyValid) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation,
        keyword: "anyOf",
        keywordLocation,
        error: "Instance does not match any subschemas."
      });
    }
  }
  if ($allOf !== void 0) {
    const keywordLocation = `${schemaLocation}/allOf`;
    const errorsLength = errors.length;
    let allValid = true;
    for (const [i, subSchema] of $allOf.entries()) {
      const subEvaluated = Object.create(evaluated);
      const result = validate(instance, subSchema, draft, lookup, shortCircuit, $recursiveAnchor === true ? recursiveAnchor : null, instanceLocation, `${keywordLocation}/${i}`, subEvaluated);
      errors.push(...result.errors);
      allValid = allValid && result.valid;
      if (result.valid) {
        subEvaluateds.push(subEvaluated);
      }
    }
    if (allValid) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation,
        keyword: "allOf",
        keywordLocation,
        error: `Instance does not match every subschema.`
      });
    }
  }
  if ($oneOf !== void 0) {
    const keywordLocation = `${schemaLocation}/oneOf`;
    const errorsLength = errors.length;
    const matches = $oneOf.filter((subSchema, i) => {
      const subEvaluated = Object.create(evaluated);
      const result = validate(instance, subSchema, draft, lookup, shortCircuit, $recursiveAnchor === true ? recursiveAnchor : null, instanceLocation, `${keywordLocation}/${i}`, subEvaluated);
      errors.push(...result.errors);
      if (result.valid) {
        subEvaluateds.push(subEvaluated);
      }
      return result.valid;
    }).length;
    if (matches === 1) {
      errors.length = errorsLength;
    } else {
      errors.splice(errorsLength, 0, {
        instanceLocation,
        keyword: "oneOf",
        keywordLocation,
        error: `Instance does not match exactly one subschema (${matches} matches).`
      });
    }
  }
  if (instanceType === "object" || instanceType === "array") {
    Object.assign(evaluated, ...subEvaluateds);
  }
  if ($if !== void 0) {
    const keywordLocation = `${schemaLocation}/if`;
    const ifEvaluated = /* @__PURE__ */ Object.create(null);
    const conditionResult = validate(instance, $if, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, keywordLocation, ifEvaluated).valid;
    if (conditionResult) {
      Object.assign(evaluated, ifEvaluated);
      if ($then !== void 0) {
        const thenResult = validate(instance, $then, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, `${schemaLocation}/then`, evaluated);
        if (!thenResult.valid) {
          errors.push({
            instanceLocation,
            keyword: "if",
            keywordLocation,
            error: `Instance does not match "then" schema.`
          }, ...thenResult.errors);
        }
      }
    } else if ($else !== void 0) {
      const elseResult = validate(instance, $else, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, `${schemaLocation}/else`, evaluated);
      if (!elseResult.valid) {
        errors.push({
          instanceLocation,
          keyword: "if",
          keywordLocation,
          error: `Instance does not match "else" schema.`
        }, ...elseResult.errors);
      }
    }
  }
  if (instanceType === "object") {
    if ($required !== void 0) {
      for (const key of $required) {
        if (!hasOwnProperty(instance, key)) {
          errors.push({
            instanceLocation,
            keyword: "required",
            keywordLocation: `${schemaLocation}/required`,
            error: `Instance does not have required property "${key}".`
          });
        }
      }
    }
    const keys = Object.keys(instance);
    if ($minProperties !== void 0 && keys.length < $minProperties) {
      errors.push({
        instanceLocation,
        keyword: "minProperties",
        keywordLocation: `${schemaLocation}/minProperties`,
        error: `Instance does not have at least ${$minProperties} properties.`
      });
    }
    if ($maxProperties !== void 0 && keys.length > $maxProperties) {
      errors.push({
        instanceLocation,
        keyword: "maxProperties",
        keywordLocation: `${schemaLocation}/maxProperties`,
        error: `Instance does not have at least ${$maxProperties} properties.`
      });
    }
    if ($propertyNames !== void 0) {
      const keywordLocation = `${schemaLocation}/propertyNames`;
      for (const key in instance) {
        const subInstancePointer = `${instanceLocation}/${encodePointer(key)}`;
        const result = validate(key, $propertyNames, draft, lookup, shortCircuit, recursiveAnchor, subInstancePointer, keywordLocation);
        if (!result.valid) {
          errors.push({
            instanceLocation,
            keyword: "propertyNames",
            keywordLocation,
            error: `Property name "${key}" does not match schema.`
          }, ...result.errors);
        }
      }
    }
    if ($dependentRequired !== void 0) {
      const keywordLocation = `${schemaLocation}/dependantRequired`;
      for (const key in $dependentRequired) {
        if (hasOwnProperty(instance, key)) {
          const required = $dependentRequired[key];
          for (const dependantKey of required) {
            if (!hasOwnProperty(instance, dependantKey)) {
              errors.push({
                instanceLocation,
                keyword: "dependentRequired",
                keywordLocation,
                error: `Instance has "${key}" but does not have "${dependantKey}".`
              });
            }
          }
        }
      }
    }
    if ($dependentSchemas !== void 0) {
      for (const [key, dependentSchema] of Object.entries($dependentSchemas)) {
        const keywordLocation = `${schemaLocation}/dependentSchemas`;
        if (hasOwnProperty(instance, key)) {
          const result = validate(instance, dependentSchema, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, `${keywordLocation}/${encodePointer(key)}`, evaluated);
          if (!result.valid) {
            errors.push({
              instanceLocation,
              keyword: "dependentSchemas",
              keywordLocation,
              error: `Instance has "${key}" but does not match dependant schema.`
            }, ...result.errors);
          }
        }
      }
    }
    if ($dependencies !== void 0) {
      const keywordLocation = `${schemaLocation}/dependencies`;
      for (const key in $dependencies) {
        if (hasOwnProperty(instance, key)) {
          const propsOrSchema = $dependencies[key];
          if (Array.isArray(propsOrSchema)) {
            for (const dependantKey of propsOrSchema) {
              if (!hasOwnProperty(instance, dependantKey)) {
                errors.push({
                  instanceLocation,
                  keyword: "dependencies",
                  keywordLocation,
                  error: `Instance has "${key}" but does not have "${dependantKey}".`
                });
              }
            }
          } else {
            const result = validate(instance, propsOrSchema, draft, lookup, shortCircuit, recursiveAnchor, instanceLocation, `${keywordLocation}/${encodePointer(key)}`);
            if (!result.valid) {
              errors.push({
                instanceLocation,
                keyword: "dependencies",
                keywordLocation,
                error: `Instance has "${key}" but does not match dependant schema.`
              }, ...result.errors);
            }
          }
        }
      }
    }
    const thisEvaluated = /* @__PURE__ */ Object.create(null);
    let stop = false;
    if ($properties !== void 0) {
      const keywordLocation = `${schemaLocation}/properties`;
      for (const [key, propertySchema] of Object.entries($properties)) {
        if (!hasOwnProperty(instance, key)) {
          continue;
        }
        const subInstancePointer = `${instanceLocation}/${encodePointer(key)}`;
        const result = validate(instance[key], propertySchema, draft, lookup, shortCircuit, recursiveAnchor, subInstancePointer, `${keywordLocation}/${encodePointer(key)}`);
        thisEvaluated[key] = true;
        if (result.valid) {
          evaluated[key] = true;
        } else {
          stop = shortCircuit;
          errors.push({
            instanceLocation,
            keyword: "properties",
            keywordLocation,
            error: `Property "${key}" does not match schema.`
          }, ...result.errors);
          if (stop)
            break;
        }
      }
    }
    if (!stop && $patternProperties !== void 0) {
      const keywordLocation = `${schemaLocation}/patternProperties`;
      for (const [pattern, subSchema] of Object.entries($patternProperties)) {
        const regex2 = new RegExp(pattern, "u");
        for (const key in instance) {
          if (!regex2.test(key)) {
            continue;
          }
          const subInstancePointer = `${instanceLocation}/${encodePointer(key)}`;
          const result = validate(instance[key], subSchema, draft, lookup, shortCircuit, recursiveAnchor, subInstancePointer, `${keywordLocation}/${encodePointer(pattern)}`);
          thisEvaluated[key] = true;
          if (result.valid) {
            evaluated[key] = true;
          } else {
            stop = shortCircuit;
            errors.push({
              instanceLocation,
              keyword: "patternProperties",
              keywordLocation,
              error: `Property "${key}" matches pattern "${pattern}" but does not match associated schema.`
            }, ...result.errors);
          }
        }
      }
    }
    if (!stop && $additionalProperties !== void 0) {
      const keywordLocation = `${schemaLocation}/additionalProperties`;
      for (const key in instance) {
        if (thisEvaluated[key]) {
          continue;
        }
        const subInstancePointer = `${instanceLocation}/${encodePointer(key)}`;
        const result = validate(instance[key], $additionalProperties, draft, lookup, shortCircuit, recursiveAnchor, subInstancePointer, keywordLocation);
        if (result.valid) {
          evaluated[key] = true;
        } else {
          stop = shortCircuit;
          errors.push({
            instanceLocation,
            keyword: "additionalProperties",
            keywordLocation,
            error: `Property "${key}" does not match additional properties schema.`
          }, ...result.errors);
        }
      }
    } else if (!stop && $unevaluatedProperties !== void 0) {
      const keywordLocation = `${schemaLocation}/unevaluatedProperties`;
      for (const key in instance) {
        if (!evaluated[key]) {
          const subInstancePointer = `${instanceLocation}/${encodePointer(key)}`;
          const result = validate(instance[key], $unevaluatedProperties, draft, lookup, shortCircuit, recursiveAnchor, subInstancePointer, keywordLocation);
          if (result.valid) {
            evaluated[key] = true;
          } else {
            errors.push({
              instanceLocation,
              keyword: "unevaluatedProperties",
              keywordLocation,
              error: `Property "${key}" does not match unevaluated properties schema.`
            }, ...result.errors);
          }
        }
      }
    }
  } else if (instanceType === "array") {
    if ($maxItems !== void 0 && instance.length > $maxItems) {
      errors.push({
        instanceLocation,
        keyword: "maxItems",
        keywordLocation: `${schemaLocation}/maxItems`,
        error: `Array has too many items (${instance.length} > ${$maxItems}).`
      });
    }
    if ($minItems !== void 0 && instance.length < $minItems) {
      errors.push({
        instanceLocation,
        keyword: "minItems",
        keywordLocation: `${schemaLocation}/minItems`,
        error: `Array has too few items (${instance.length} < ${$minItems}).`
      });
    }
    const length = instance.length;
    let i = 0;
    let stop = false;
    if ($prefixItems !== void 0) {
      const keywordLocation = `${schemaLocation}/prefixItems`;
      const length2 = Math.min($prefixItems.length, length);
      for (; i < length2; i++) {
        const result = validate(instance[i], $prefixItems[i], draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${i}`, `${keywordLocation}/${i}`);
        evaluated[i] = true;
        if (!result.valid) {
          stop = shortCircuit;
          errors.push({
            instanceLocation,
            keyword: "prefixItems",
            keywordLocation,
            error: `Items did not match schema.`
          }, ...result.errors);
          if (stop)
            break;
        }
      }
    }
    if ($items !== void 0) {
      const keywordLocation = `${schemaLocation}/items`;
      if (Array.isArray($items)) {
        const length2 = Math.min($items.length, length);
        for (; i < length2; i++) {
          const result = validate(instance[i], $items[i], draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${i}`, `${keywordLocation}/${i}`);
          evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit;
            errors.push({
              instanceLocation,
              keyword: "items",
              keywordLocation,
              error: `Items did not match schema.`
            }, ...result.errors);
            if (stop)
              break;
          }
        }
      } else {
        for (; i < length; i++) {
          const result = validate(instance[i], $items, draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${i}`, keywordLocation);
          evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit;
            errors.push({
              instanceLocation,
              keyword: "items",
              keywordLocation,
              error: `Items did not match schema.`
            }, ...result.errors);
            if (stop)
              break;
          }
        }
      }
      if (!stop && $additionalItems !== void 0) {
        const keywordLocation2 = `${schemaLocation}/additionalItems`;
        for (; i < length; i++) {
          const result = validate(instance[i], $additionalItems, draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${i}`, keywordLocation2);
          evaluated[i] = true;
          if (!result.valid) {
            stop = shortCircuit;
            errors.push({
              instanceLocation,
              keyword: "additionalItems",
              keywordLocation: keywordLocation2,
              error: `Items did not match additional items schema.`
            }, ...result.errors);
          }
        }
      }
    }
    if ($contains !== void 0) {
      if (length === 0 && $minContains === void 0) {
        errors.push({
          instanceLocation,
          keyword: "contains",
          keywordLocation: `${schemaLocation}/contains`,
          error: `Array is empty. It must contain at least one item matching the schema.`
        });
      } else if ($minContains !== void 0 && length < $minContains) {
        errors.push({
          instanceLocation,
          keyword: "minContains",
          keywordLocation: `${schemaLocation}/minContains`,
          error: `Array has less items (${length}) than minContains (${$minContains}).`
        });
      } else {
        const keywordLocation = `${schemaLocation}/contains`;
        const errorsLength = errors.length;
        let contained = 0;
        for (let j = 0; j < length; j++) {
          const result = validate(instance[j], $contains, draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${j}`, keywordLocation);
          if (result.valid) {
            evaluated[j] = true;
            contained++;
          } else {
            errors.push(...result.errors);
          }
        }
        if (contained >= ($minContains || 0)) {
          errors.length = errorsLength;
        }
        if ($minContains === void 0 && contained === 0) {
          errors.splice(errorsLength, 0, {
            instanceLocation,
            keyword: "contains",
            keywordLocation,
            error: `Array does not contain item matching schema.`
          });
        } else if ($minContains !== void 0 && contained < $minContains) {
          errors.push({
            instanceLocation,
            keyword: "minContains",
            keywordLocation: `${schemaLocation}/minContains`,
            error: `Array must contain at least ${$minContains} items matching schema. Only ${contained} items were found.`
          });
        } else if ($maxContains !== void 0 && contained > $maxContains) {
          errors.push({
            instanceLocation,
            keyword: "maxContains",
            keywordLocation: `${schemaLocation}/maxContains`,
            error: `Array may contain at most ${$maxContains} items matching schema. ${contained} items were found.`
          });
        }
      }
    }
    if (!stop && $unevaluatedItems !== void 0) {
      const keywordLocation = `${schemaLocation}/unevaluatedItems`;
      for (i; i < length; i++) {
        if (evaluated[i]) {
          continue;
        }
        const result = validate(instance[i], $unevaluatedItems, draft, lookup, shortCircuit, recursiveAnchor, `${instanceLocation}/${i}`, keywordLocation);
        evaluated[i] = true;
        if (!result.valid) {
          errors.push({
            instanceLocation,
            keyword: "unevaluatedItems",
            keywordLocation,
            error: `Items did not match unevaluated items schema.`
          }, ...result.errors);
        }
      }
    }
    if ($uniqueItems) {
      for (let j = 0; j < length; j++) {
        const a = instance[j];
        const ao = typeof a === "object" && a !== null;
        for (let k = 0; k < length; k++) {
          if (j === k) {
            continue;
          }
          const b = instance[k];
          const bo = typeof b === "object" && b !== null;
          if (a === b || ao && bo && deepCompareStrict(a, b)) {
            errors.push({
              instanceLocation,
              keyword: "uniqueItems",
              keywordLocation: `${schemaLocation}/uniqueItems`,
              error: `Duplicate items at indexes ${j} and ${k}.`
            });
            j = Number.MAX_SAFE_INTEGER;
            k = Number.MAX_SAFE_INTEGER;
          }
        }
      }
    }
  } else if (instanceType === "number") {
    if (draft === "4") {
      if ($minimum !== void 0 && ($exclusiveMinimum === true && instance <= $minimum || instance < $minimum)) {
        errors.push({
          instanceLocation,
          keyword: "minimum",
          keywordLocation: `${schemaLocation}/minimum`,
          error: `${instance} is less than ${$exclusiveMinimum ? "or equal to " : ""} ${$minimum}.`
        });
      }
      if ($maximum !== void 0 && ($exclusiveMaximum === true && instance >= $maximum || instance > $maximum)) {
        errors.push({
          instanceLocation,
          keyword: "maximum",
          keywordLocation: `${schemaLocation}/maximum`,
          error: `${instance} is greater than ${$exclusiveMaximum ? "or equal to " : ""} ${$maximum}.`
        });
      }
    } else {
      if ($minimum !== void 0 && instance < $minimum) {
        errors.push({
          instanceLocation,
          keyword: "minimum",
          keywordLocation: `${schemaLocation}/minimum`,
          error: `${instance} is less than ${$minimum}.`
        });
      }
      if ($maximum !== void 0 && instance > $maximum) {
        errors.push({
          instanceLocation,
          keyword: "maximum",
          keywordLocation: `${schemaLocation}/maximum`,
          error: `${instance} is greater than ${$maximum}.`
        });
      }
      if ($exclusiveMinimum !== void 0 && instance <= $exclusiveMinimum) {
        errors.push({
          instanceLocation,
          keyword: "exclusiveMinimum",
          keywordLocation: `${schemaLocation}/exclusiveMinimum`,
          error: `${instance} is less than ${$exclusiveMinimum}.`
        });
      }
      if ($exclusiveMaximum !== void 0 && instance >= $exclusiveMaximum) {
        errors.push({
          instanceLocation,
          keyword: "exclusiveMaximum",
          keywordLocation: `${schemaLocation}/exclusiveMaximum`,
          error: `${instance} is greater than or equal to ${$exclusiveMaximum}.`
        });
      }
    }
    if ($multipleOf !== void 0) {
      if (!isMultipleOf(instance, $multipleOf)) {
        errors.push({
          instanceLocation,
          keyword: "multipleOf",
          keywordLocation: `${schemaLocation}/multipleOf`,
          error: `${instance} is not a multiple of ${$multipleOf}.`
        });
      }
    }
  } else if (instanceType === "string") {
    const length = $minLength === void 0 && $maxLength === void 0 ? 0 : ucs2length(instance);
    if ($minLength !== void 0 && length < $minLength) {
      errors.push({
        instanceLocation,
        keyword: "minLength",
        keywordLocation: `${schemaLocation}/minLength`,
        error: `String is too short (${length} < ${$minLength}).`
      });
    }
    if ($maxLength !== void 0 && length > $maxLength) {
      errors.push({
        instanceLocation,
        keyword: "maxLength",
        keywordLocation: `${schemaLocation}/maxLength`,
        error: `String is too long (${length} > ${$maxLength}).`
      });
    }
    if ($pattern !== void 0 && !new RegExp($pattern, "u").test(instance)) {
      errors.push({
        instanceLocation,
        keyword: "pattern",
        keywordLocation: `${schemaLocation}/pattern`,
        error: `String does not match pattern.`
      });
    }
    if ($format !== void 0 && format[$format] && !format[$format](instance)) {
      errors.push({
        instanceLocation,
        keyword: "format",
        keywordLocation: `${schemaLocation}/format`,
        error: `String does not match format "${$format}".`
      });
    }
  }
  return { valid: errors.length === 0, errors };
}

// static/playground/render/schema.js
var DRAFT = "2020-12";
var BASE = new URL("https://schema.invalid/input_schema");
var IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
var SHARED = /* @__PURE__ */ new Set(["allOf", "if", "then", "else", "not", "dependentSchemas", "propertyNames"]);
var COMBINED = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"];
var OPEN_KEYS = ["additionalProperties", "patternProperties", "unevaluatedProperties"];
var PASS_THROUGH = /* @__PURE__ */ new Set([
  "properties",
  "patternProperties",
  "additionalProperties",
  "unevaluatedProperties",
  "items",
  "prefixItems",
  "additionalItems",
  "unevaluatedItems",
  "$ref",
  "$recursiveRef",
  "allOf",
  "dependentSchemas",
  "if"
]);
var GROUPS = /* @__PURE__ */ new Set(["anyOf", "oneOf", "not", "contains", "propertyNames"]);
var SUMMARISED = 3;
var MAP_KEYWORDS = (
  /** @type {Record<string, boolean | undefined>} */
  schemaMapKeyword
);
var SCHEMA_KEYWORDS = (
  /** @type {Record<string, boolean | undefined>} */
  schemaKeyword
);
var ARRAY_KEYWORDS = (
  /** @type {Record<string, boolean | undefined>} */
  schemaArrayKeyword
);
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
var hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);
function closed(schema, shared = false) {
  if (Array.isArray(schema)) return schema.map((item) => closed(item, shared));
  if (!isObject(schema)) return schema;
  const copy = {};
  for (const [key, value] of Object.entries(schema)) {
    if (MAP_KEYWORDS[key] && isObject(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, closed(sub, key === "dependentSchemas")])
      );
    } else if (SCHEMA_KEYWORDS[key] || ARRAY_KEYWORDS[key]) {
      copy[key] = closed(value, SHARED.has(key));
    } else {
      copy[key] = value;
    }
  }
  const lonely = !shared && !COMBINED.some((key) => hasOwn(schema, key));
  if (lonely && isObject(schema.properties) && !OPEN_KEYS.some((key) => hasOwn(schema, key))) {
    copy.additionalProperties = false;
  }
  return copy;
}
function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}
function readablePath(pointer, instance) {
  let path = "$";
  let value = instance;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(value)) path += `[${key}]`;
    else path += IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    value = value?.[Array.isArray(value) ? Number(key) : key];
  }
  return path;
}
function valueAt(pointer, instance) {
  let value = instance;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    value = value?.[Array.isArray(value) ? Number(key) : key];
  }
  return value;
}
function child(pointer, key) {
  return `${pointer}/${encodeURIComponent(key.replaceAll("~", "~0").replaceAll("/", "~1"))}`;
}
function problemOf(error, previous, instance) {
  const { keyword, instanceLocation: at } = error;
  if (keyword === "required") {
    const name = /property "(.*)"\.$/s.exec(error.error)?.[1] ?? "";
    return { at: child(at, name), problem: "missing", message: "required field is missing" };
  }
  if (keyword === "false") {
    const extra = previous !== void 0 && ["additionalProperties", "unevaluatedProperties"].includes(previous.keyword);
    return extra ? { at, problem: "extra", message: "not in the schema" } : { at, problem: "false", message: "no value is allowed here" };
  }
  if (keyword === "type") {
    const expected = /Expected "(.*)"\.$/s.exec(error.error)?.[1]?.split('", "') ?? [];
    const got = typeName(valueAt(at, instance));
    return { at, problem: "type", message: `expected ${expected.join(" or ")}, got ${got}` };
  }
  const text = error.error.replace(/^Instance /, "").replace(/\.$/, "");
  return { at, problem: keyword, message: text.charAt(0).toLowerCase() + text.slice(1) };
}
function validateAgainstSchema(value, schema) {
  if (!isObject(schema) && typeof schema !== "boolean") return [];
  let errors;
  try {
    const copy = closed(schema);
    errors = validate(value, copy, DRAFT, dereference(copy, /* @__PURE__ */ Object.create(null), BASE), false).errors;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    return [{ path: "$", problem: "schema", message: `the schema could not be checked: ${reason.split("\n")[0]}` }];
  }
  const problems = [];
  let group = null;
  const close = () => {
    if (group?.below.length) group.entry.message += ` (${group.below.join("; ")})`;
    group = null;
  };
  for (const [index, error] of errors.entries()) {
    const previous = errors[index - 1];
    const location2 = error.keyword === "false" ? previous?.keywordLocation ?? "" : error.keywordLocation;
    if (group !== null && location2.startsWith(`${group.location}/`)) {
      if (!PASS_THROUGH.has(error.keyword) && group.below.length < SUMMARISED) {
        const below = problemOf(error, previous, value);
        const where = readablePath(below.at, value);
        group.below.push(where === group.entry.path ? below.message : `${where}: ${below.message}`);
      }
      continue;
    }
    close();
    if (PASS_THROUGH.has(error.keyword)) continue;
    const problem = problemOf(error, previous, value);
    const entry = { path: readablePath(problem.at, value), problem: problem.problem, message: problem.message };
    if (error.keyword === "anyOf") entry.message = "matches none of the allowed schemas";
    problems.push(entry);
    if (GROUPS.has(error.keyword)) group = { location: error.keywordLocation, below: [], entry };
  }
  close();
  return problems;
}

// static/playground/render/server-tools.js
var CALLED_AS = [
  // The first code execution tool runs Python and is called by its own name...
  ["code_execution_2025052", ["code_execution"]],
  // ...its successors (20250825 on) run bash and edit files, each its own call name, and run
  // the Python that calls client tools (programmatic tool calling) as code_execution.
  ["code_execution_", ["code_execution", "bash_code_execution", "text_editor_code_execution"]],
  ["web_search_", ["web_search"]],
  ["web_fetch_", ["web_fetch"]]
];
function serverToolNames(tools) {
  const names = /* @__PURE__ */ new Set();
  for (const tool of Array.isArray(tools) ? tools : []) {
    const type = tool?.type;
    if (typeof type !== "string" || type === "custom") continue;
    const known = CALLED_AS.find(([prefix]) => type.startsWith(prefix));
    if (known) for (const name of known[1]) names.add(name);
    else if (typeof tool.name === "string") names.add(tool.name);
  }
  return [...names];
}
function callProblems(block, { toolSchemas, serverTools }) {
  const name = block?.name;
  if (block?.type === "mcp_tool_use") return null;
  if (block?.type === "server_tool_use") {
    if (serverTools == null) return null;
    if (serverTools.includes(name)) return [];
    const declared = serverTools.length ? serverTools.join(", ") : "none";
    return [
      {
        path: "$",
        problem: "unknown_server_tool",
        severity: "note",
        message: `the server ran a tool no declared server tool is called by (declared: ${declared})`
      }
    ];
  }
  if (toolSchemas == null) return null;
  if (!Object.prototype.hasOwnProperty.call(toolSchemas, name)) {
    return [{ path: "$", problem: "unknown_tool", message: "no tool by this name was offered" }];
  }
  return validateAgainstSchema(block.input, toolSchemas[name]);
}

// static/playground/render/tool-use.js
var CALL_LABELS = {
  tool_use: "Tool call",
  server_tool_use: "Server tool call",
  mcp_tool_use: "MCP tool call"
};
var MAIN_FIELDS = ["code", "command", "query", "url"];
var ISSUE_TITLES = {
  invalid_json: "Invalid JSON",
  incomplete: "Incomplete: the call was cut off"
};
function callerElement(caller) {
  const type = caller?.type;
  if (typeof type !== "string" || type === "direct") return "";
  const from = type.startsWith("code_execution") ? "code execution" : type;
  const id = typeof caller.tool_id === "string" ? ` ${caller.tool_id}` : "";
  return el("span", { className: "pg-tool-caller", text: `called from ${from}${id}`, dataset: { caller: type } });
}
var ToolUseView = class _ToolUseView {
  constructor(block, { toolSchemas, serverTools, live }) {
    this.block = block;
    this.toolSchemas = toolSchemas;
    this.serverTools = serverTools;
    this.parser = new IncrementalJsonParser();
    this.inputDirty = false;
    const root = el("div", { className: "pg-block pg-tool" });
    root.dataset.blockType = String(block.type);
    root.dataset.toolState = live ? "streaming" : "done";
    this.serverCall = block.type !== "tool_use";
    if (this.serverCall) root.dataset.serverCall = "true";
    const head = el("div", { className: "pg-tool-head" });
    head.append(
      el("span", { className: "pg-tool-label", text: CALL_LABELS[block.type] ?? "Call" }),
      el("code", { className: "pg-tool-name", text: String(block.name ?? "") }),
      typeof block.server_name === "string" ? el("span", { className: "pg-tool-server", text: `on ${block.server_name}` }) : "",
      // not null: append writes that as text
      el("span", { className: "pg-tool-id", text: String(block.id ?? "") }),
      callerElement(block.caller)
    );
    this.input = el("pre", { className: "pg-tool-input" });
    this.report = el("div", { className: "pg-tool-report" });
    root.append(head, this.input, this.report);
    this.element = root;
    this.input.textContent = pretty(block.input);
  }
  /**
   * A stored call. `issue` (the run's block_issues entry) marks one whose JSON did not arrive
   * whole and valid: it is stored and sent back as {"INVALID_JSON": raw} (docs/protocol.md).
   */
  static stored(block, { toolSchemas, serverTools, issue = null }) {
    const view = new _ToolUseView(block, { toolSchemas, serverTools, live: false });
    if (issue === "invalid_json" || issue === "incomplete") {
      const raw = block.input?.INVALID_JSON;
      view.element.dataset.toolState = issue === "incomplete" ? "incomplete" : "done";
      view.#invalid(typeof raw === "string" ? raw : pretty(block.input), ISSUE_TITLES[issue]);
      view.report.append(
        el("p", { className: "pg-tool-sent-back", text: 'Sent back as {"INVALID_JSON": "\u2026"}: the text as received.' })
      );
      return view;
    }
    view.#showInput(block.input);
    view.#validate(block.input);
    return view;
  }
  delta(delta) {
    if (delta.type !== "input_json_delta") return;
    this.parser.feed(delta.partial_json ?? "");
    this.inputDirty = true;
  }
  render() {
    if (!this.inputDirty) return;
    this.inputDirty = false;
    const value = this.parser.value();
    if (value !== void 0) this.input.textContent = pretty(value);
  }
  /** Final input: strict parse happened in the fold; here it is shown and checked. */
  stop(block) {
    this.block = block;
    this.inputDirty = false;
    this.element.dataset.toolState = "done";
    if (block[ISSUE] === "invalid_json") {
      this.#invalid(block[RAW_JSON] ?? "", ISSUE_TITLES.invalid_json);
      return { valid: false, problems: [{ path: "$", problem: "json", message: "invalid JSON" }] };
    }
    this.#showInput(block.input);
    return this.#validate(block.input);
  }
  /** The whole input: JSON, or for a server call of one text field (code, a shell command, a
   * query, a URL) that text, which reads better than its JSON string. */
  #showInput(input) {
    const keys = input !== null && typeof input === "object" ? Object.keys(input) : [];
    const field = this.serverCall && keys.length === 1 && MAIN_FIELDS.includes(keys[0]) ? keys[0] : null;
    if (field === null || typeof input[field] !== "string") {
      this.input.textContent = pretty(input);
      return;
    }
    this.input.textContent = input[field];
    this.input.dataset.inputView = field;
  }
  incomplete({ block }) {
    this.render();
    this.block = block;
    this.element.dataset.toolState = "incomplete";
    this.#invalid(block[RAW_JSON] ?? "", ISSUE_TITLES.incomplete);
  }
  #invalid(raw, title) {
    this.element.dataset.toolValid = "false";
    this.element.dataset.toolJson = "invalid";
    const box = el("div", { className: "pg-tool-invalid" });
    box.append(el("strong", { className: "pg-tool-invalid-title", text: title }));
    if (this.parser.error !== null) {
      const { offset, message } = this.parser.error;
      box.append(el("span", { className: "pg-tool-invalid-why", text: ` (at character ${offset}: ${message})` }));
    }
    box.append(el("pre", { className: "pg-tool-raw", text: raw }));
    this.report.replaceChildren(box);
  }
  #validate(input) {
    let problems = callProblems(
      { ...this.block, input },
      { toolSchemas: this.toolSchemas, serverTools: this.serverTools }
    );
    if (problems === null) {
      this.element.dataset.toolSchema = "none";
      problems = [];
    }
    const notes = problems.filter((problem) => problem.severity === "note");
    const faults = problems.filter((problem) => problem.severity !== "note");
    const valid = faults.length === 0;
    this.element.dataset.toolValid = !valid ? "false" : notes.length ? "noted" : "true";
    this.element.dataset.toolJson = "valid";
    const lists = [];
    for (const [items, className] of [[faults, "pg-tool-problems"], [notes, "pg-tool-notes"]]) {
      if (!items.length) continue;
      const list = el("ul", { className });
      for (const problem of items) {
        const text = problem.path === "$" ? problem.message : `${problem.path}: ${problem.message}`;
        const item = el("li", { className: "pg-tool-problem", text });
        item.dataset.problem = problem.problem;
        item.dataset.path = problem.path;
        if (problem.severity) item.dataset.severity = problem.severity;
        list.append(item);
      }
      lists.push(list);
    }
    this.report.replaceChildren(...lists);
    return { valid, problems: faults };
  }
};

// static/playground/render/live-turn.js
var turnCounter = 0;
function viewFor(block, { key, toolSchemas, serverTools, previous, callName }) {
  switch (blockKind(block)) {
    case "text":
      return previous instanceof TextView ? previous.continuation(block) : new TextView({ markdown: true });
    case "thinking":
      return new ThinkingView({ key, live: true });
    case "tool":
      return new ToolUseView(block, { toolSchemas, serverTools, live: true });
    case "compaction":
      return new CompactionView();
    default:
      if (block.type === "redacted_thinking") return new RedactedThinkingView(block);
      if (isServerResult(block.type)) return { element: serverResultElement(block, { callName }) };
      return { element: unknownElement(block) };
  }
}
var LiveTurn = class {
  #root;
  #snapshot = null;
  #views = [];
  #attached = 0;
  #dirty = /* @__PURE__ */ new Set();
  #frame = 0;
  #lastSeq = 0;
  #lastT = 0;
  #starts = [];
  #key;
  #toolSchemas;
  #serverTools;
  #onToolUse;
  #protocolErrors = [];
  #passedOver = 0;
  #upstreamError = null;
  #finished = false;
  #keyed = false;
  /**
   * @param {HTMLElement} container the turn's root element is appended to it
   * @param {{toolSchemas?: Object<string, object>, serverTools?: string[], onToolUse?: Function, key?: string}} options
   *   key: what the blocks' remembered state is filed under (the run's id on the page);
   *   serverTools: the names server tool calls may carry (server-tools.js)
   */
  constructor(container, { toolSchemas, serverTools, onToolUse, key } = {}) {
    turnCounter += 1;
    this.#keyed = typeof key === "string" && key !== "";
    this.#key = this.#keyed ? key : `live-${turnCounter}`;
    this.#toolSchemas = toolSchemas;
    this.#serverTools = serverTools;
    this.#onToolUse = onToolUse;
    this.#root = el("div", { className: "pg-turn" });
    this.#root.dataset.role = "assistant";
    this.#root.dataset.state = "streaming";
    this.#root.setAttribute("aria-busy", "true");
    container.append(this.#root);
  }
  /** The turn's root element (inside the container given to the constructor). */
  get element() {
    return this.#root;
  }
  /** The folded assistant message in the API's JSON shape (null before message_start). */
  get message() {
    const message = toApiMessage(this.#snapshot);
    if (message === null) return null;
    this.#views.forEach((view, index) => {
      if (view instanceof ToolUseView && this.#snapshot.content[index][OPEN]) {
        const value = view.parser.value();
        if (value !== void 0) message.content[index].input = JSON.parse(JSON.stringify(value));
      }
    });
    return message;
  }
  /** Events the fold rejected, as messages naming them. */
  get protocolErrors() {
    return [...this.#protocolErrors];
  }
  /** The upstream `error` event's data, if one arrived. */
  get upstreamError() {
    return this.#upstreamError;
  }
  /** Fold relay events ({seq, t, type, data}) in; the DOM follows on the next frame. */
  applyEvents(events) {
    for (const event of events) {
      if (this.#finished) break;
      if (typeof event.seq === "number") {
        if (event.seq <= this.#lastSeq) continue;
        this.#lastSeq = event.seq;
      }
      const t = typeof event.t === "number" ? event.t : this.#lastT;
      this.#lastT = t;
      const data = event.data ?? {};
      if (passedOver(this.#snapshot, data)) {
        this.#passedOver += 1;
        this.#root.dataset.passedOver = String(this.#passedOver);
        continue;
      }
      let next;
      try {
        next = accumulate(this.#snapshot, data);
      } catch (error) {
        if (!(error instanceof ProtocolError)) throw error;
        this.#protocolErrors.push(error.message);
        this.#root.dataset.protocolError = "true";
        continue;
      }
      this.#react(data, next, t);
      this.#snapshot = next;
    }
    this.#schedule();
  }
  #react(data, next, t) {
    switch (data.type) {
      case "message_start":
        if (!this.#keyed && typeof next.id === "string" && next.id) this.#key = next.id;
        next.content.forEach((block, index) => this.#addView(block, index, t));
        break;
      case "content_block_start":
        this.#addView(next.content[data.index], data.index, t);
        break;
      case "content_block_delta": {
        const view = this.#views[data.index];
        if (view?.delta) {
          view.delta(data.delta ?? {});
          this.#dirty.add(view);
        }
        break;
      }
      case "content_block_stop":
        this.#stopView(data.index, next.content[data.index], t);
        break;
      case "error":
        this.#upstreamError = data;
        this.#root.dataset.upstreamError = String(data.error?.type ?? "error");
        break;
      default:
        break;
    }
  }
  #addView(block, index, t) {
    const previous = this.#views[index - 1];
    const answers = typeof block.tool_use_id === "string" ? block.tool_use_id : null;
    const call = answers && this.#snapshot?.content.find((b) => b.id === answers);
    const view = viewFor(block, {
      key: `${this.#key}:${index}`,
      toolSchemas: this.#toolSchemas,
      serverTools: this.#serverTools,
      // A text run's continuation hands on the run, so the next text block joins it too.
      previous: previous?.run ?? previous,
      callName: call?.name ?? null
    });
    this.#views[index] = view;
    this.#starts[index] = t;
  }
  #stopView(index, block, t) {
    const view = this.#views[index];
    if (!view?.stop) return;
    view.render?.();
    const result = view.stop(block, { durationMs: t - this.#starts[index] });
    this.#dirty.add(view);
    if (view instanceof ToolUseView && block.type === "tool_use" && this.#onToolUse) {
      this.#onToolUse({
        index,
        id: block.id,
        name: block.name,
        input: block.input,
        valid: result.valid,
        problems: result.problems
      });
    }
  }
  #schedule() {
    if (this.#frame !== 0 || this.#finished) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      this.flush();
    });
  }
  /** Do the pending DOM work now (the frame callback calls this; so may tests and benchmarks). */
  flush() {
    if (this.#frame !== 0) {
      cancelAnimationFrame(this.#frame);
      this.#frame = 0;
    }
    while (this.#attached < this.#views.length) {
      const view = this.#views[this.#attached];
      if (view === void 0) break;
      if (view.element) this.#root.append(view.element);
      this.#attached += 1;
    }
    for (const view of this.#dirty) view.render?.();
    this.#dirty.clear();
  }
  /** The run is over: final state on the root, open blocks marked incomplete. */
  finish({ status, stop_reason: stopReason, error } = {}) {
    if (this.#finished) return;
    this.flush();
    this.#snapshot?.content.forEach((block, index) => {
      const view = this.#views[index];
      if (block[OPEN] && view?.incomplete) {
        view.incomplete({ durationMs: this.#lastT - this.#starts[index], block });
      }
    });
    this.#finished = true;
    const root = this.#root;
    root.dataset.state = "done";
    root.setAttribute("aria-busy", "false");
    if (status) root.dataset.status = String(status);
    if (stopReason) root.dataset.stopReason = String(stopReason);
    if (error?.code) root.dataset.errorCode = String(error.code);
  }
};

// static/playground/render/message.js
function blockElement(block, { role, key, toolSchemas, serverTools, issue, toolNames }) {
  if (isServerResult(block?.type)) {
    return serverResultElement(block, { callName: toolNames?.[block.tool_use_id] ?? null });
  }
  switch (block?.type) {
    case "text":
      return TextView.stored([block], { markdown: role === "assistant" }).element;
    case "thinking":
      return ThinkingView.stored(block, { key }).element;
    case "redacted_thinking":
      return new RedactedThinkingView(block).element;
    case "compaction":
      return CompactionView.stored(block).element;
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return ToolUseView.stored(block, { toolSchemas, serverTools, issue }).element;
    case "tool_result":
      return toolResultElement(block, { name: toolNames?.[block.tool_use_id] ?? null });
    case "image":
      return imageElement(block);
    case "document":
      return documentElement(block);
    default:
      return unknownElement(block);
  }
}
function* pieces(content, role, carried = 0) {
  let run2 = null;
  for (const [index, block] of content.entries()) {
    if (carried > 0 && index === carried) {
      if (run2 !== null) yield { run: run2 };
      run2 = null;
      yield { mark: true };
    }
    if (role === "assistant" && block?.type === "text") {
      if (run2 === null) run2 = [];
      run2.push(block);
      continue;
    }
    if (run2 !== null) yield { run: run2 };
    run2 = null;
    yield { index, block };
  }
  if (run2 !== null) yield { run: run2 };
}
function renderMessage(message, { toolSchemas, serverTools, toolNames } = {}) {
  const role = message.role === "assistant" ? "assistant" : "user";
  const root = el("div", { className: "pg-turn" });
  root.dataset.role = role;
  root.dataset.state = "done";
  const status = message.run?.status;
  if (typeof status === "string") root.dataset.status = status;
  const content = typeof message.content === "string" ? [{ type: "text", text: message.content }] : Array.isArray(message.content) ? message.content : [];
  const own = message.run?.id ?? message.id;
  const id = own === void 0 || own === null ? "" : String(own);
  const issues = message.run?.block_issues ?? {};
  if (Object.keys(issues).length > 0) root.dataset.flagged = "true";
  const carried = Number.isInteger(message.carried_blocks) ? message.carried_blocks : 0;
  if (message.prefill) {
    root.dataset.prefill = "true";
    root.append(el("p", { className: "pg-continued muted", text: "Prefill: the start of the answer, written by you; Continue sends it" }));
  }
  const names = { ...toolNames };
  for (const block of content) if (typeof block?.id === "string") names[block.id] = block.name;
  for (const { index, block, run: run2, mark } of pieces(content, role, carried)) {
    if (mark) {
      root.append(el("p", { className: "pg-continued muted", text: "Continued from here" }));
      continue;
    }
    if (run2) {
      root.append(TextView.stored(run2, { markdown: true }).element);
      continue;
    }
    const issue = index >= carried ? issues[String(index - carried)] ?? null : null;
    root.append(
      blockElement(block, { role, key: `${id}:${index}`, toolSchemas, serverTools, issue, toolNames: names })
    );
  }
  return root;
}

export {
  IncrementalJsonParser,
  parsePartialJson,
  ProtocolError,
  accumulate,
  renderMarkdownSafe,
  warmUp,
  validateAgainstSchema,
  serverToolNames,
  LiveTurn,
  renderMessage
};
