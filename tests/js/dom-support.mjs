// A DOM under Node for the components that need nothing else: happy-dom's window, its names
// made global before the render modules load (DOMPurify reads `window` when it is imported).
// Rule: only what needs no layout, no real socket and no navigation is tested here; the rest,
// and everything about the page's Content-Security-Policy, stays in tests/browser/ (Chromium).
// happy-dom is pinned and installed into the tool cache by `python -m tests.ensure_tools`
// (HAPPY_DOM in tools/npm_tools.py, whose version this must match); never fetched here.
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const HAPPY_DOM_VERSION = "21.0.4";
const cache = join(process.env.XDG_CACHE_HOME || join(homedir(), ".cache"), "messages-playground");
const entry = join(cache, `happy-dom-${HAPPY_DOM_VERSION}`, "node_modules/happy-dom/lib/index.js");
if (!existsSync(entry)) {
  throw new Error(`${entry} is missing: run \`.venv/bin/python -m tests.ensure_tools\` first`);
}
const { Window } = await import(pathToFileURL(entry).href);

export const window = new Window({ url: "http://127.0.0.1/" });
// The names the page's modules use as globals in a browser.
const GLOBALS = [
  "window", "document", "navigator", "localStorage", "requestAnimationFrame",
  "cancelAnimationFrame", "HTMLElement", "Element", "Node", "Text", "DocumentFragment",
  "NodeFilter", "DOMParser", "MutationObserver", "Event", "CustomEvent", "CSS",
];
for (const name of GLOBALS) {
  const value = name === "window" ? window : window[name];
  Object.defineProperty(globalThis, name, { value, configurable: true, writable: true });
}

/** The render core (static/playground/render/index.js), loaded once the DOM is in place. */
export const render = await import("../../static/playground/render/index.js");

/** What Playwright's text assertions compare: a text with its runs of whitespace as one. */
export const normalText = (text) => text.replace(/\s+/g, " ").trim();
export const textOf = (node) => normalText(node?.textContent ?? "");

/** Relay events with increasing `seq` and `t` (ms since the run started), as
 * tests/browser/drive.py's Stream builds them: the relay's wire shape. */
export class Stream {
  seq = 0;
  t = 0;
  events = [];

  emit(data, dt = 10) {
    this.seq += 1;
    this.t += dt;
    this.events.push({ seq: this.seq, t: this.t, type: data.type, data });
    return this;
  }

  /** The events emitted since the last take (one relay batch). */
  take() {
    const batch = this.events;
    this.events = [];
    return batch;
  }

  messageStart(id = "msg_test") {
    const message = {
      id, type: "message", role: "assistant", content: [], model: "sim",
      stop_reason: null, stop_sequence: null, usage: { input_tokens: 3, output_tokens: 0 },
    };
    return this.emit({ type: "message_start", message });
  }

  start(index, block, dt = 10) {
    return this.emit({ type: "content_block_start", index, content_block: block }, dt);
  }

  delta(index, delta, dt = 10) {
    return this.emit({ type: "content_block_delta", index, delta }, dt);
  }

  text(index, text) {
    return this.delta(index, { type: "text_delta", text });
  }

  thinking(index, text, dt = 10) {
    return this.delta(index, { type: "thinking_delta", thinking: text }, dt);
  }

  json(index, partial) {
    return this.delta(index, { type: "input_json_delta", partial_json: partial });
  }

  stop(index, dt = 10) {
    return this.emit({ type: "content_block_stop", index }, dt);
  }

  end(stopReason = "end_turn") {
    this.emit({
      type: "message_delta",
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: 42 },
    });
    return this.emit({ type: "message_stop" });
  }
}

/** A live turn in a fresh container, as the harness page makes one: `{turn, calls, apply,
 * finish}`; `apply` draws at once (`flush`), where the page would on the next frame. */
export function newTurn(toolSchemas) {
  const container = document.body.appendChild(document.createElement("main"));
  const calls = [];
  const turn = new render.LiveTurn(container, { toolSchemas, onToolUse: (call) => calls.push(call) });
  return {
    turn,
    calls,
    element: turn.element,
    apply(events) {
      turn.applyEvents(events);
      turn.flush();
    },
    finish({ status = "complete", stop_reason = "end_turn" } = {}) {
      turn.finish({ status, stop_reason, usage: {}, timings: {}, error: null });
      turn.flush();
    },
  };
}

/** A stored message drawn into the document; returns its element. `tools`: the tools
 * setting, whose server tools the server tool calls are checked against. */
export function renderMessage(message, { toolSchemas, tools } = {}) {
  const node = render.renderMessage(message, {
    toolSchemas,
    serverTools: tools ? render.serverToolNames(tools) : undefined,
  });
  document.body.append(node);
  return node;
}
