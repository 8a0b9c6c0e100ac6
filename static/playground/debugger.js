// @ts-check
/**
 * The tool-loop debugger on the conversation page (docs/debugger.md): thinking integrity now,
 * the tools (request editor, saved mocks, step mode, replay; debugger-tools.js) on first use.
 * Installed by one call from page.js and told of each state change by one more.
 *
 * Rule: a conversation opens without the tools' modules (a dozen of them, with the JSON diff
 * views): debugger-tools.js is imported the first time the page needs it, which is
 *   - a click on one of their buttons (Mocks, Replay…, Edit request…, Answer from mocks): the
 *     click is passed on once they are built, so it opens what it would have opened;
 *   - after the open (start), or at any later state change, when they have something to show:
 *     the page is a replay (?replay_of=), the conversation has tools or calls pending (the step
 *     mode switch and the mocks' bars), or step mode was left on for it.
 * Thinking integrity (the sent-back panels, the banner, the guard before a drop) draws at open,
 * so it is built here. State for tests: data-debugger="loading|loaded" on the page's root.
 */

import { pendingCalls } from "./state.js";
import { ThinkingView } from "./thinking-view.js";

const OPENERS = ["open-mocks", "open-replay", "edit-request", "answer-from-mocks"]
  .map((action) => `[data-action='${action}']`)
  .join(", ");

function stepModeLeftOn(conversationId) {
  try {
    return JSON.parse(localStorage.getItem(`pg:step-mode:${conversationId}`) ?? "null")?.enabled === true;
  } catch {
    return false; // unreadable storage: step mode starts off (step-mode.js reads it the same way)
  }
}

export class Debugger {
  #root;
  #options;
  #state;
  /** @type {import("./debugger-tools.js").DebuggerTools | null} */
  #tools = null; // DebuggerTools, once built
  /** @type {Promise<void> | null} */
  #loading = null; // its import (a promise), started once
  #started = false;
  #openers = new AbortController();

  /**
   * `state()` is the page's current state; `dispatch(input)` steps it; `toolResults` and
   * `composer` are the page's components (the turn about to be sent is read from them);
   * `socket()` is the page's ConversationSocket (MCP calls go on it when it is open).
   */
  constructor(root, options) {
    this.#root = root;
    this.#options = options;
    this.#state = options.state;
    this.thinking = new ThinkingView(root);
    for (const opener of root.querySelectorAll(OPENERS)) {
      opener.addEventListener(
        "click",
        (event) => {
          event.stopImmediatePropagation();
          this.#load().then(() => opener.click()); // the tools' own listeners now take it
        },
        { signal: this.#openers.signal },
      );
    }
  }

  /** After the socket connects: load the tools if they have something to show. */
  start() {
    this.#started = true;
    this.update();
  }

  /** The page's controls were redrawn (a frame, an action): each piece looks at the state. */
  update() {
    const state = this.#state();
    this.thinking.update(state.messages, { thinking: state.conversation.settings?.thinking });
    if (this.#tools) this.#tools.update();
    else if (this.#started && this.#needed(state)) this.#load();
  }

  #needed(state) {
    const tools = state.conversation.settings?.tools ?? [];
    return (
      new URLSearchParams(window.location.search).has("replay_of") ||
      tools.length > 0 ||
      this.#options.data.mcp_enabled === true ||
      (state.live === null && pendingCalls(state).length > 0) ||
      stepModeLeftOn(this.#options.data.conversation.id)
    );
  }

  #load() {
    this.#loading ??= (async () => {
      this.#root.dataset.debugger = "loading";
      let module;
      try {
        module = await import("./debugger-tools.js");
      } catch (error) {
        this.#root.dataset.debugger = "failed"; // not fetched: the next click tries again
        this.#loading = null;
        throw error;
      }
      const { DebuggerTools } = module;
      this.#openers.abort();
      this.#tools = new DebuggerTools(this.#root, this.#options);
      this.#root.dataset.debugger = "loaded";
      this.#tools.start();
      this.#tools.update();
    })();
    return this.#loading;
  }

  /** A socket frame about an MCP call sent on it (mcp-tools.js). */
  mcpFrame(frame) {
    this.#tools?.mcp?.frame(frame);
  }

  /** The socket closed: the MCP calls sent on it end (the server cancelled them). */
  mcpSocketLost() {
    this.#tools?.mcp?.socketLost();
  }

  /** Run `go` unless dropping the messages from `fromIndex` on (an edit, a regenerate) would
   * lose the latest turn's thinking and the person cancels. */
  async guardDrop(fromIndex, action, go) {
    if (await this.thinking.confirmDrop(this.#state().messages, fromIndex, { action })) go();
  }
}
