// @ts-check
/**
 * The tool-loop debugger's tools (docs/debugger.md): the request editor, saved mocks, step mode
 * and replay, built by debugger.js the first time the page needs one (a dynamic import: none
 * of these modules is loaded when a conversation opens) and told of each state change.
 *
 * Rule: wiring only, as page.js is: each piece is its own module; this one builds them from the
 * page's elements and data, and passes them what they read of the page's state (state.js's
 * values, never mutated). Sends go back through the page's `dispatch`, so every debugger action
 * is an ordinary page action (`send`, `tool_results`, `send_request`).
 */

import { apiFetch } from "./api.js";
import { one } from "./dom.js";
import { canAct, cannotActReason } from "./held-send.js";
import { serversInUse } from "./mcp-plan.js";
import { McpOwnServers } from "./mcp-own.js";
import { McpTools } from "./mcp-tools.js";
import { ToolMocks } from "./mocks.js";
import { RenderedPrompt } from "./rendered-prompt.js";
import { ReplayLauncher, ReplayView, replaySource } from "./replay.js";
import { RequestEditor } from "./request-editor.js";
import { pendingCalls } from "./state.js";
import { StepMode } from "./step-mode.js";
import { nextTurn } from "./token-count.js";

/** Why the request editor's Send is off while a run is live. */
const LIVE_TEXT = "A run is live: send this once it ends.";

export class DebuggerTools {
  #state;
  #profiles;

  /**
   * `state()` is the page's current state; `dispatch(input)` steps it; `toolResults` and
   * `composer` are the page's components (the turn about to be sent is read from them).
   */
  constructor(root, { data, urls, state, dispatch, toolResults, composer, socket = () => null, inspector = { addRun: () => {}, show: () => {} } }) {
    this.#state = state;
    this.#profiles = new Map((data.profiles ?? []).map((profile) => [profile.name, profile]));
    const settings = () => state().conversation.settings ?? {};
    this.mocks = new ToolMocks(one(root, "[data-mocks-dialog]"), {
      url: urls.mocks,
      mocks: data.conversation.tool_mocks,
      toolNames: () => (settings().tools ?? []).map((tool) => tool.name),
      toolResults: one(root, "[data-tool-results]"),
      openers: root.querySelectorAll("[data-action='open-mocks']"),
    });
    // MCP servers' tools (mcp-tools.js): only when the server has some configured.
    /** @type {McpTools | null} */
    this.mcp = data.mcp_enabled
      ? new McpTools(one(root, "[data-mcp-panel]"), {
          cardsRoot: one(root, "[data-tool-results]"),
          inspector: one(root, "[data-mcp-inspector]"),
          urls,
          conversationId: data.conversation.id,
          onAddTools: (merge) => addTools(root, merge),
          onChange: () => this.update(),
          socket, // its calls go on the page's socket when it is open
          marks: () => state().conversation?.mcp_tools, // which server each tool came from
          approval: data.conversation.mcp_approval ?? {}, // which servers' tools run unasked (the server holds it)
          profiles: data.profiles ?? [], // what a server's sampling request may run on
          runs: inspector, // a sampling answer's run, listed in the inspector and opened there
          // A server's resource attached to the message, its prompt inserted: the prompt's turns
          // up to its last assistant turn are stored as they are (POST …/turns/) and drawn.
          composer: composer && {
            attach: (items) => composer.attach(items),
            insertText: (text) => composer.insertText(text),
            insertTurns: async (turns) => dispatch({ type: "reloaded", conversation: await apiFetch(urls.turns, { method: "POST", body: { turns } }) }),
          },
          addMock: (mock) => this.mocks.save([...this.mocks.mocks, mock]), // a by-hand result kept
          stepOn: () => this.stepMode.enabled, // step mode runs the calls on auto itself
        })
      : null;
    // A person's own servers (login mode, mcp-own.js): a change lists the servers again.
    const own = root.querySelector("[data-mcp-own]");
    if (own && this.mcp) {
      const tools = this.mcp;
      new McpOwnServers(/** @type {HTMLElement} */ (own), { url: urls.mcp_my_servers, onChange: () => tools.load({}) }).load();
    }
    this.stepMode = new StepMode(one(root, "[data-step-mode]"), {
      conversationId: data.conversation.id,
      mocks: this.mocks,
      toolResults,
      mcp: this.mcp,
    });
    this.replay = new ReplayLauncher(one(root, "[data-replay-dialog]"), {
      openers: root.querySelectorAll("[data-action='open-replay']"),
      profiles: data.profiles,
      urls,
      source: () => ({ conversation: { ...state().conversation, tool_mocks: this.mocks.mocks }, messages: state().messages }),
    });
    this.replayView = new ReplayView(one(root, "[data-replay-view]"), {
      sourceId: replaySource(),
      urls,
      onSend: (content) => dispatch({ type: "send", text: content }),
    });
    this.requestEditor = new RequestEditor(one(root, "[data-request-editor]"), {
      openers: root.querySelectorAll("[data-action='edit-request']"),
      // The turn the next send would add: the tool results due, the composer's text (and its
      // prefill), or going on with the answer that ends the conversation (Continue).
      turn: () => nextTurn({ toolResults, composer, state: state() }),
      // Made while the socket (re)connects, it waits for it as a composer's send does; while
      // one is held, Send says so.
      blocked: () => (state().live !== null ? LIVE_TEXT : cannotActReason(state())),
      onSend: ({ turn, request }) => dispatch({ type: "send_request", turn, request }),
      onChange: ({ opened }) => (opened ? this.renderedPrompt.reset() : this.renderedPrompt.changed()),
    });
    const editor = one(root, "[data-request-editor]");
    this.renderedPrompt = new RenderedPrompt(one(editor, "[data-rendered-prompt]"), {
      button: one(editor, "[data-action='show-rendered']"),
      body: () => this.requestEditor.renderBody(),
    });
  }

  /** After the socket connects: a replay page loads its source, then looks again. */
  start() {
    this.replayView.load().then(() => this.update());
    // Only the servers this conversation's tools come from start now (a page opened is not a
    // use of every configured server; in login mode each user's would start). A replay's new
    // conversation has no marks yet and may run its source's tools again: every server.
    const used = serversInUse(this.#state().conversation?.mcp_tools);
    this.mcp?.load({ connect: replaySource() ? true : used });
    this.mcp?.loadRecorded().then(() => this.update());
  }

  /** The page's controls were redrawn (a frame, an action): each piece looks at the state. */
  update() {
    const state = this.#state();
    const running = state.live !== null;
    // Step mode's results and replay's next turn are the page's own actions: made while the
    // socket (re)connects, they wait for it as a typed send does (held-send.js).
    const free = canAct(state);
    const calls = running ? [] : pendingCalls(state);
    const { settings = {}, profile, model } = state.conversation;
    this.mocks.decorate(calls);
    this.mcp?.decorate(calls);
    const { refused } = state; // an action of theirs refused: they stop waiting for its run
    this.stepMode.consider({ calls, running, canAct: free, refused, hasTools: (settings.tools ?? []).length > 0 });
    const ranAgain = this.mcp?.ranOnServer() ?? new Set();
    this.replayView.consider({ messages: state.messages, running, canAct: free, refused, pending: pendingCalls(state).length, label: `${profile} · ${model}`, ranAgain });
    this.requestEditor.refresh();
    // Only a profile with a chat render endpoint offers the rendered prompt (FriendliAI's).
    this.renderedPrompt.consider({ offered: this.#profiles.get(profile)?.renders_prompt === true });
  }
}

/** Put a server's tools in the settings' tools box (as if typed: it is checked, and Save
 * settings stores them). `merge(current)` is mcp-plan.js's mergeTools. */
function addTools(root, merge) {
  const box = one(root, "[data-tools-json]");
  let current = [];
  try {
    current = box.value.trim() ? JSON.parse(box.value) : [];
  } catch {
    return; // the box holds text that is no JSON: the person's, left as it is
  }
  box.value = JSON.stringify(merge(current).tools, null, 2);
  box.dispatchEvent(new Event("input", { bubbles: true }));
}
