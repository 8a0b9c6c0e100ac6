// @ts-check
/**
 * The fold of upstream stream events into an assistant message snapshot, in the browser.
 *
 * Rule: the same rules as the Python core (playground/protocol/accumulate.py), kept pure:
 * `accumulate(snapshot, event)` never mutates its arguments and returns the next snapshot, or
 * throws a ProtocolError naming the event that cannot follow (the caller keeps its snapshot).
 * Bad tool JSON is not a protocol error: the block is kept and flagged with ISSUE. Before
 * message_start, events that need a message are passed over (see `passedOver`), not refused.
 *
 * Cost per event stays flat: only the content array and the one block touched are copied,
 * strings grow by concatenation (ropes in V8), and tool JSON is parsed once, at the block's
 * stop. Per-block state that is not part of the API's JSON (the raw tool JSON, open, issue)
 * lives under Symbol keys, so JSON.stringify(snapshot) is the message in the API's shape.
 */

/** On tool blocks: the partial_json text received so far. */
export const RAW_JSON = Symbol("rawJson");
/** On tool blocks: how many input_json_deltas arrived (none means keep the start's input). */
export const DELTAS = Symbol("deltas");
/** On blocks between their content_block_start and content_block_stop. */
export const OPEN = Symbol("open");
/** On blocks with a problem: "invalid_json" or "incomplete". */
export const ISSUE = Symbol("issue");
/** On the message once message_stop arrived. */
export const STOPPED = Symbol("stopped");

import { parseCompleteValues } from "./partial-json.js";

export class ProtocolError extends Error {
  constructor(message, eventType) {
    super(message);
    this.name = "ProtocolError";
    this.code = "protocol_error";
    this.eventType = eventType;
  }
}

const TEXT = "text";
const THINKING = "thinking";
const TOOL = "tool";
const COMPACTION = "compaction";
const OTHER = "other";

/** Which deltas a block accepts, decided by its start (as the Python core does). */
export function blockKind(block) {
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
    const at = index === undefined ? "" : ` for index ${index}`;
    throw new ProtocolError(`${event.type}${at}: arrived ${where}`, event.type);
  }
}

function openBlock(snapshot, event, kinds) {
  const name =
    event.type === "content_block_delta"
      ? `content_block_delta (${event.delta?.type})`
      : event.type;
  requireOpenMessage(snapshot, event, event.index);
  const block = snapshot.content[event.index];
  if (block === undefined || !block[OPEN]) {
    const why =
      block === undefined ? "no block was started there" : "that block was already stopped";
    throw new ProtocolError(`${name} for index ${event.index}: ${why}`, event.type);
  }
  if (kinds !== null && !kinds.includes(blockKind(block))) {
    throw new ProtocolError(
      `${name} for index ${event.index}: does not fit a ${block.type} block`,
      event.type,
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
      // A signature replaces, never appends: one arrives just before the stop.
      const block = openBlock(snapshot, event, [THINKING]);
      return replaceBlock(snapshot, index, { ...block, signature: delta.signature });
    }
    case "citations_delta": {
      const block = openBlock(snapshot, event, [TEXT]);
      const citations = block.citations ? [...block.citations, delta.citation] : [delta.citation];
      return replaceBlock(snapshot, index, { ...block, citations });
    }
    case "compaction_delta": {
      // Each replaces both fields, as the SDK's beta fold does (absent means null).
      const block = openBlock(snapshot, event, [COMPACTION]);
      return replaceBlock(snapshot, index, {
        ...block,
        content: delta.content ?? null,
        encrypted_content: delta.encrypted_content ?? null,
      });
    }
    case "input_json_delta": {
      const block = openBlock(snapshot, event, [TOOL]);
      return replaceBlock(snapshot, index, {
        ...block,
        [RAW_JSON]: block[RAW_JSON] + (delta.partial_json ?? ""),
        [DELTAS]: block[DELTAS] + 1,
      });
    }
    default:
      // An unknown delta still names a block, so it must name an open one; never acted on.
      openBlock(snapshot, event, null);
      return snapshot;
  }
}

function onBlockStart(snapshot, event) {
  requireOpenMessage(snapshot, event, event.index);
  const expected = snapshot.content.length;
  const started = snapshot.content[event.index];
  if (event.index < expected && started[OPEN] && started.type === event.content_block?.type) {
    // llama.cpp's final result starts again a block still open: the block goes on (as the
    // Python core does; the SDK appends a copy of the start instead).
    return snapshot;
  }
  if (event.index !== expected) {
    throw new ProtocolError(
      `content_block_start for index ${event.index}: the next block index is ${expected}`,
      event.type,
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

/** Strict parse of a tool block's buffer: an object, or undefined when it is not one. */
export function parseToolInput(raw) {
  if (raw === "") return {};
  try {
    const value = JSON.parse(raw);
    // Tool input must be an object to be sent back; anything else is as bad as a typo.
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? value
      : undefined;
  } catch {
    return undefined;
  }
}

function onBlockStop(snapshot, event) {
  const block = { ...openBlock(snapshot, event, null) };
  delete block[OPEN];
  if (blockKind(block) === TOOL && block[DELTAS] > 0) {
    const input = parseToolInput(block[RAW_JSON]);
    if (input === undefined) block[ISSUE] = "invalid_json";
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
  // Blocks already present at the start are finished; new ones are numbered after them.
  message.content = Array.isArray(message.content)
    ? message.content.filter((b) => b && typeof b === "object").map((b) => ({ ...b }))
    : [];
  return message;
}

function onMessageDelta(snapshot, event) {
  requireOpenMessage(snapshot, event);
  const next = { ...snapshot, ...(event.delta ?? {}) };
  next.content = snapshot.content;
  // Beside the delta, not in it; kept on the message as the SDK's beta helper does.
  if (event.context_management != null) next.context_management = event.context_management;
  if (event.usage && typeof event.usage === "object") {
    const usage = { ...snapshot.usage };
    for (const [key, value] of Object.entries(event.usage)) {
      // Running totals: replace, never add; an absent or null field leaves the old value.
      if (value !== null && value !== undefined) usage[key] = value;
    }
    next.usage = usage;
  }
  return next;
}

function onMessageStop(snapshot, event) {
  requireOpenMessage(snapshot, event);
  const content = snapshot.content.map((block) =>
    block[OPEN] ? { ...block, [ISSUE]: "incomplete" } : block,
  );
  return { ...snapshot, content, [STOPPED]: true };
}

/** Events that need a message: before message_start they are passed over, not refused. */
const EARLY_KEPT = new Set([
  "content_block_start",
  "content_block_delta",
  "content_block_stop",
  "message_delta",
  "message_stop",
]);

/** Whether an event arriving now would be passed over (before message_start). */
export function passedOver(snapshot, event) {
  return snapshot == null && EARLY_KEPT.has(event?.type);
}

const FOLDS = {
  message_start: onMessageStart,
  content_block_start: onBlockStart,
  content_block_delta: onDelta,
  content_block_stop: onBlockStop,
  message_delta: onMessageDelta,
  message_stop: onMessageStop,
};

/**
 * Fold one upstream event (the `data` of a relay event) into `snapshot` (null before
 * message_start). Returns the next snapshot; `ping`, `error` and unknown event types return
 * `snapshot` itself (the caller keeps errors for display). Throws ProtocolError when the event
 * cannot follow what came before.
 */
export function accumulate(snapshot, event) {
  // Nothing to fold into yet: passed over (the event log keeps it), as the SDK's helper does.
  if (passedOver(snapshot, event)) return snapshot;
  const fold = Object.hasOwn(FOLDS, event?.type) ? FOLDS[event.type] : null;
  // ping, error and event types newer than this code: valid anywhere, nothing to fold.
  return fold === null ? snapshot : fold(snapshot, event);
}

/**
 * The snapshot in the API's JSON shape (a deep copy without the Symbol-keyed state). A tool
 * call never stopped shows the complete values of its JSON so far, as the Python core does.
 */
export function toApiMessage(snapshot) {
  if (snapshot == null) return null;
  const message = JSON.parse(JSON.stringify(snapshot));
  snapshot.content.forEach((block, index) => {
    const open = block[OPEN] || block[ISSUE] === "incomplete";
    if (!open || blockKind(block) !== TOOL || !block[DELTAS] || block[RAW_JSON] === "") return;
    const input = parseCompleteValues(block[RAW_JSON]);
    if (input !== undefined) message.content[index].input = input;
  });
  return message;
}
