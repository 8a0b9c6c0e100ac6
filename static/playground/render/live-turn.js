// @ts-check
/**
 * A streaming assistant turn: relay events in, one DOM update per animation frame out.
 *
 * Rule: `applyEvents` folds and records, never touches the DOM; the DOM work happens in
 * `flush`, at most once per frame (or on demand), and only for blocks that changed. Events
 * are de-duplicated by `seq`, so a resumed stream can replay overlapping events. An event the
 * fold rejects is counted and shown as `data-protocol-error`, never thrown at the page.
 */

import { el } from "../dom.js";
import {
  accumulate,
  blockKind,
  OPEN,
  passedOver,
  ProtocolError,
  toApiMessage,
} from "./accumulate.js";
import {
  RedactedThinkingView,
  ThinkingView,
  unknownElement,
} from "./blocks.js";
import { CompactionView, isServerResult, serverResultElement } from "./server-blocks.js";
import { TextView } from "./text-view.js";
import { ToolUseView } from "./tool-use.js";

let turnCounter = 0;

/** `previous`: the view of the block before (a text block after text joins its run);
 * `callName`: the name of the call a server result answers. */
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

export class LiveTurn {
  #root;
  /** @type {any} the folded message so far (accumulate.js) */
  #snapshot = null;
  #views = [];
  #attached = 0;
  #dirty = new Set();
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
      // A tool call still streaming: show the input known so far.
      if (view instanceof ToolUseView && this.#snapshot.content[index][OPEN]) {
        const value = view.parser.value();
        if (value !== undefined) message.content[index].input = JSON.parse(JSON.stringify(value));
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
        if (event.seq <= this.#lastSeq) continue; // replayed on resume: already folded
        this.#lastSeq = event.seq;
      }
      const t = typeof event.t === "number" ? event.t : this.#lastT;
      this.#lastT = t;
      const data = event.data ?? {};
      if (passedOver(this.#snapshot, data)) {
        // Before message_start: kept in the event log, flagged here, never folded.
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
      callName: call?.name ?? null,
    });
    this.#views[index] = view;
    this.#starts[index] = t;
  }

  #stopView(index, block, t) {
    const view = this.#views[index];
    if (!view?.stop) return;
    view.render?.(); // what arrived before the stop is shown before the final form
    const result = view.stop(block, { durationMs: t - this.#starts[index] });
    this.#dirty.add(view);
    if (view instanceof ToolUseView && block.type === "tool_use" && this.#onToolUse) {
      this.#onToolUse({
        index,
        id: block.id,
        name: block.name,
        input: block.input,
        valid: result.valid,
        problems: result.problems,
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
      if (view === undefined) break;
      if (view.element) this.#root.append(view.element); // a text run's later blocks: none
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
}
