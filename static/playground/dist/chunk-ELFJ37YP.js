// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  ne
} from "./chunk-BEEXAAQ7.js";
import {
  purify_default
} from "./chunk-RM3OCOIM.js";
import {
  documentElement,
  imageElement
} from "./chunk-EMOQE56V.js";
import {
  pretty
} from "./chunk-PODVIVX6.js";
import {
  validateAgainstSchema
} from "./chunk-ZZFHTOI2.js";
import {
  copyText,
  el,
  nextTask
} from "./chunk-ACANGUXN.js";

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
    const text = (
      /** @type {Text} */
      node
    );
    if (text.data.includes(MARK_OPEN)) found.push(text);
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
    const groups = [[faults, "pg-tool-problems"], [notes, "pg-tool-notes"]];
    for (const [items, className] of groups) {
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
  /** @type {any} the folded message so far (accumulate.js) */
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
  /** @param {{ status?: string, stop_reason?: string | null, error?: { code?: string, message?: string } | null }} [end] */
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
  serverToolNames,
  LiveTurn,
  renderMessage
};
