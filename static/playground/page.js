// @ts-check
/**
 * The playground pages' wiring (app.js, the entry, imports it): reads the page data, wires the
 * modules, carries out effects.
 *
 * Rule: wiring only. The conversation's state (messages, the live run, the resume asked for,
 * the last seq drawn…) lives in state.js, a pure reducer: every socket frame and every page
 * action goes through `#dispatch`, which steps the state and carries out the effects it names,
 * in order. This is the only module that reads socket frames; the others draw and report. UI
 * state is mirrored on the root element for CSS and tests (state.rootData):
 *   data-run-state="idle|running"  data-connection="connecting|open|closed|refused"
 *   data-settings / data-inspector="open|closed"  data-last-status (the last run's status)
 *   data-finished-runs (runs seen ending since the page loaded)  data-last-seq
 *   data-save-state="pending" (a run ended but the server has not saved it yet: run.saving)
 *   data-stopping, data-last-error (the code of the last refusal)
 *   data-retrying (the attempt number while the upstream is retried before the first event)
 *   data-waiting (the profile while every slot of it is taken, run.waiting)
 *   data-stalled="true" (a live run has had no data for STALL_AFTER_MS, the socket alive)
 *   data-send-held (the action made before the socket opened, waiting for it: held-send.js)
 */

import { apiFetch, setCsrfToken } from "./api.js";
import { serverToolNames, setFileUrl } from "./render/index.js";
import { Compare } from "./compare.js";
import { Composer } from "./composer.js";
import { Debugger } from "./debugger.js";
import { canAct } from "./held-send.js";
import { announce, fillUrl, nextTask, one, readPageData } from "./dom.js";
import { ExportMenu } from "./export-menu.js";
import { installHomeForm } from "./home-form.js";
import { ImportDialog } from "./import-dialog.js";
import { Inspector } from "./inspector.js";
import { ModelSuggestions } from "./model-suggestions.js";
import { installHomeChrome, installPanels, installRename } from "./page-chrome.js";
import { SettingsPanel } from "./settings-panel.js";
import { ShareDialog } from "./share-dialog.js";
import { installShortcuts } from "./shortcuts.js";
import { highlightTurns } from "./search-highlight.js";
import { queryOf } from "./search.js";
import { Sidebar } from "./sidebar.js";
import { ConversationSocket } from "./socket.js";
import {
  blockedReason,
  canContinue,
  canRun,
  columnOf,
  continueHint,
  connectionText,
  initialState,
  pendingCalls,
  retryText,
  rootData,
  runChoices,
  runHint,
  stallText,
  step,
  unansweredResults,
  waitText,
} from "./state.js";
import { TokenCount, nextTurn } from "./token-count.js";
import { outputSchemaOf } from "./output-check.js";
import { ToolResults } from "./tool-results.js";
import { UNTITLED } from "./sidebar.js";
import { Transcript } from "./transcript.js";
import { warmUp } from "./render/index.js";
import { VariablesPanel } from "./variables-panel.js";
import { fillText } from "./variables.js";
import { addCost, totalCostText } from "./format.js";
import { BudgetChip } from "./budget-chip.js";

/** "Import request…" (sidebar, and the list page's own button). */
function installImport(root, data) {
  return new ImportDialog(one(root, "[data-import-dialog]"), {
    openers: root.querySelectorAll("[data-action='open-import']"),
    maxBytes: data.limits?.max_import_bytes,
  });
}

function startHome(root, data) {
  const sidebar = new Sidebar(one(root, "[data-sidebar]"), { urls: data.urls });
  installHomeChrome(root);
  installImport(root, data);
  installHomeForm(root, data);
  sidebar.refresh();
  installShortcuts({ onNew: () => sidebar.create() });
  root.dataset.ready = "true";
}

const TICK_MS = 1000;

// The next frame's start (its layout follows), or the next task in a hidden tab (no frames).
const nextFrame = () =>
  document.hidden ? nextTask() : new Promise((resolve) => requestAnimationFrame(resolve));

class ConversationPage {
  #state;
  #lastDataAt = 0; // performance.now() of the live run's last event (or its start)
  #retryAt = 0; // when the run.retrying frame came
  #ticker = 0;
  #cost = null; // every ended run's cost together ({amount, currency, unpriced_runs})

  constructor(root, data) {
    this.root = root;
    this.urls = data.urls;
    this.#state = initialState(data.conversation);
    const id = data.conversation.id;
    this.#cost = data.conversation.cost ?? null;
    this.#showCost();
    this.budget = new BudgetChip(one(root, "[data-budget-left]"), { url: this.urls.usage_limits, limits: data.budget_limits });

    this.sidebar = new Sidebar(one(root, "[data-sidebar]"), {
      urls: this.urls,
      currentId: id,
      onRenamed: (conversation) => this.#dispatch({ type: "renamed", title: conversation.title }),
    });
    this.transcript = new Transcript(one(root, "[data-transcript]"), {
      toolSchemas: () => SettingsPanel.schemas(this.#state.conversation.settings),
      serverTools: () => serverToolNames(this.#state.conversation.settings?.tools),
      onRegenerate: () => this.debugger.guardDrop(this.#state.messages.length - 1, "regenerate", () => this.#dispatch({ type: "regenerate" })),
      onEdit: (message, text) =>
        this.debugger.guardDrop(this.#state.messages.indexOf(message) + 1, "edit", () => this.#editAndResend(message, text)),
      onInspect: (runId) => this.#inspect(runId),
      onSwitch: (message, alternativeId, direction) => this.#switchBranch(message, alternativeId, direction),
      onFork: (message) => this.#fork(message),
      outputSchema: () => outputSchemaOf(this.#state.conversation.settings),
    });
    this.composer = new Composer(one(root, "[data-composer]"), {
      onSend: (content, how) => this.#sendWithSettings(content, how),
      onStop: () => this.#stop(),
      onRun: () => this.#dispatch({ type: "run" }),
      onContinue: () => this.#dispatch({ type: "continue" }),
      urls: this.urls,
      conversationId: id,
    });
    this.tokenCount = new TokenCount(one(root, "[data-token-count]"), { maxBytes: data.limits?.max_frame_bytes });
    one(root, "[data-composer]").addEventListener("input", () => this.#countTokens());
    this.compare = new Compare(root, {
      profiles: data.profiles,
      settings: () => ({ ...this.#state.conversation.settings, profile: this.#state.conversation.profile, model: this.#state.conversation.model }),
      onSubmit: (content, columns) => this.#dispatch({ type: "compare", content, columns }),
      onDismiss: () => this.#dispatch({ type: "compare.dismissed" }),
      onKeep: (messageId) => this.#keep(messageId),
      onToggle: () => this.#controls(),
    });
    this.toolResults = new ToolResults(one(root, "[data-tool-results]"), {
      conversationId: id,
      onSend: ({ results, text }) => this.#dispatch({ type: "tool_results", results, text }),
      urls: this.urls,
    });
    this.settings = new SettingsPanel(one(root, "[data-settings-panel]"), {
      fields: data.settings_form,
      profiles: data.profiles,
      url: this.urls.conversation,
      onSaved: (conversation) => this.#dispatch({ type: "settings.saved", conversation }),
      suggestions: new ModelSuggestions({
        fetchModels: (profile) => apiFetch(fillUrl(this.urls.profile_models, { profile })),
        onLoaded: () => this.settings.suggestionsChanged(),
      }),
    });
    this.variables = new VariablesPanel(one(root, "[data-variables]"), {
      url: this.urls.variables,
      values: data.conversation.variables,
      draftInput: one(root, "[data-composer-input]"),
      onChange: () => {
        this.#controls();
        this.#effect({ do: "title" });
      },
    });
    this.inspector = new Inspector(one(root, "[data-inspector-panel]"), { urls: this.urls });
    this.shareDialog = new ShareDialog(one(root, "[data-share-dialog]"), {
      opener: one(root, "[data-action='open-share']"),
    });
    this.exportMenu = new ExportMenu(one(root, "[data-export-menu]"), {
      requestDialog: one(root, "[data-export-request]"),
      codeDialog: one(root, "[data-export-code]"),
    });
    this.importDialog = installImport(root, data);
    this.debugger = new Debugger(root, {
      data,
      urls: this.urls,
      state: () => this.#state,
      dispatch: (input) => this.#dispatch(input),
      toolResults: this.toolResults,
      composer: this.composer,
      socket: () => this.socket,
      // A run beside the conversation (an MCP server's sampling answer): listed, and opened.
      inspector: { addRun: (run) => this.inspector.addAsideRun(run), show: (runId) => this.#inspect(runId) },
    });
    // A replay page's socket says so: the runs it starts are counted as a replay's (usage).
    const replayOf = new URLSearchParams(window.location.search).get("replay_of");
    const socketUrl = replayOf ? `${this.urls.websocket}?replay_of=${encodeURIComponent(replayOf)}` : this.urls.websocket;
    this.socket = new ConversationSocket(socketUrl, {
      maxBytes: data.limits?.max_frame_bytes,
      onFrame: (frame) => this.#frame(frame),
      onState: (connection, detail) => {
        if (connection !== "open" && connection !== "connecting") this.debugger.mcpSocketLost();
        this.#dispatch({ type: "connection", connection, detail });
      },
    });
    this.panels = installPanels(root, { onInspectorOpened: () => this.inspector.opened() });
    installRename(root, { currentTitle: () => this.#state.conversation.title, onRename: (title) => this.#rename(title) });
    installShortcuts({
      onSend: () => (this.toolResults.pending ? this.toolResults.submit() : this.composer.submit()),
      onStop: () => (this.#state.live ? (this.#stop(), true) : false),
      onNew: () => this.sidebar.create(),
    });
  }

  async start() {
    this.settings.load(this.#state.conversation.settings);
    this.sidebar.refresh();
    // Tasks of their own: the modules' evaluation, the renderer's first-use costs (marked's
    // and DOMPurify's compiling) and the first draw never add up to one long task.
    await nextTask();
    await warmUp();
    const query = queryOf(location.search); // opened from a search result: show the match
    if (query) this.transcript.showEverything(); // the match may be in any turn
    const drawn = this.transcript.drawn();
    this.#carryOut([{ do: "draw" }]);
    // The turns are drawn. highlight.js, left for after the first draw, is fetched in the next
    // idle moment, which may come before the scroll's frame below (so before "pg:drawn").
    performance.mark("pg:turns");
    if (query) await drawn.then(() => highlightTurns(this.root, one(this.root, "[data-turns]"), query));
    else {
      // A conversation opens at its latest turn. The scroll reads the layout of the turns just
      // drawn: done in the next frame, where the browser lays them out anyway, it is not added
      // to the draw's task (together one task of 40 to 90 ms, docs/benchmarks.md).
      await nextFrame();
      this.transcript.follow();
    }
    performance.mark("pg:drawn");
    this.socket.connect();
    this.debugger.start();
    this.root.dataset.ready = "true";
    performance.mark("pg:ready"); // benchmarks/long_conversation.py times the open to here
    this.composer.focus();
  }

  /** A socket frame: the state's (every column of a group: state.js folds them alike). */
  #frame(frame) {
    // An MCP call's lines, and a refusal of one, are its card's (mcp-tools.js), not the run's.
    if (frame.type === "mcp_call" || (frame.type === "error" && frame.action === "mcp_call")) return this.debugger.mcpFrame(frame);
    return this.#dispatch(frame);
  }

  #stop() {
    this.#dispatch({ type: "stop" });
  }

  /** Every column of a compare ended: its answers are alternatives of one turn, read again. */
  async #compareDone() {
    await this.#reload(); // every column's answer is stored: the first saved is on screen
    this.compare.settle(this.#state.messages.at(-1)?.id);
    this.#controls();
  }

  /** "Keep this one": the column's answer becomes the turn on screen (the others stay as its
   * alternatives, behind ‹ n/m ›). */
  /** Open the settings (where the Variables are) at the first variable with no value. */
  #showVariables() {
    this.panels.openSettings();
    this.variables.focusMissing();
  }

  /** A new conversation with the turns up to `message` (the API's fork), opened. */
  async #fork(message) {
    try {
      const fork = await apiFetch(this.urls.fork, { method: "POST", body: { upto_position: message.position } });
      location.assign(fork.url);
    } catch (error) {
      this.composer.showError(`Could not fork: ${error.message}`);
    }
  }

  async #keep(messageId) {
    try {
      const url = fillUrl(this.urls.message_select, { message_id: messageId });
      // The kept answer's upstream and settings become the conversation's: the next message
      // goes where that answer came from, not quietly to another model.
      const conversation = await apiFetch(url, { method: "POST", body: { adopt_settings: true } });
      const position = conversation.messages.at(-1)?.position;
      this.settings.load(conversation.settings);
      this.#dispatch({ type: "settings.saved", conversation });
      this.#dispatch({ type: "switched", conversation, position });
      this.compare.settle(messageId);
      this.sidebar.refresh();
    } catch (error) {
      this.composer.showError(`Could not keep that answer: ${error.message}`);
    }
  }

  #dispatch(input) {
    const { state, effects } = step(this.#state, input);
    this.#state = state;
    this.#carryOut(effects);
  }

  #carryOut(effects) {
    for (const effect of effects) this.#effect(effect);
    for (const [key, value] of Object.entries(rootData(this.#state))) {
      if (value === null) delete this.root.dataset[key];
      else this.root.dataset[key] = value;
    }
  }

  #effect(effect) {
    const state = this.#state;
    switch (effect.do) {
      case "socket":
        return this.#send(effect.action);
      case "reconnect":
        return this.socket.retryNow();
      case "draw":
        this.transcript.draw(state.messages, {
          orphanRun: state.orphanRun,
          idle: !state.live,
          unansweredColumns: state.conversation.unanswered_columns ?? [],
        });
        this.inspector.setRuns(runChoices(state));
        return this.#controls();
      case "controls":
        return this.#controls();
      case "startLive":
        this.transcript.draw(state.messages, { idle: false });
        // A group of one streams in the transcript, a compare's columns side by side.
        if (effect.count > 1) {
          this.compare.column(effect);
          return this.#controls();
        }
        this.transcript.startLive(effect.run);
        this.#lastDataAt = performance.now();
        this.#startTicker();
        this.inspector.liveStarted(effect.run.id);
        this.inspector.setRuns(runChoices(state));
        return this.#controls();
      case "events":
        if (effect.count > 1) return this.compare.events(effect.runId, effect.events, columnOf(state, effect.runId));
        this.#lastDataAt = performance.now();
        this.#tick();
        this.transcript.applyEvents(effect.runId, effect.events);
        return this.inspector.liveEvents(effect.runId, effect.events);
      case "saving":
        return this.transcript.showSaving(effect.frame);
      case "finishLive":
        this.#addCost(effect.frame);
        if (effect.count > 1) return this.compare.finished(effect.frame);
        this.#stopTicker();
        return this.transcript.finishLive(effect.frame);
      case "runEnded":
        this.inspector.liveFinished(effect.runId);
        return this.sidebar.refresh(); // a first message names the conversation
      case "groupEnded":
        return effect.count > 1 ? this.#compareDone() : undefined;
      case "composerSent":
        return effect.content === undefined ? this.composer.sent() : this.composer.sentIfStill(effect.content);
      case "toolResultsDone":
        return this.toolResults.done();
      case "showError":
        return this.composer.showError(effect.text);
      case "announce":
        return announce(effect.text);
      // The transcript follows a group of one; a compare's columns are drawn beside it, and
      // the page keeps still while they stream.
      case "scroll":
        return (state.live?.count ?? 1) > 1 ? undefined : this.transcript.keepUp();
      case "follow":
        return (state.live?.count ?? 1) > 1 ? undefined : this.transcript.follow();
      case "liveNote":
        if (effect.count > 1) return this.compare.events(effect.runId, [], columnOf(state, effect.runId));
        this.#retryAt = performance.now();
        this.#lastDataAt = performance.now();
        // A retry's countdown changes its number a whole second after the notice: ticks in
        // phase with it show every number even when a busy machine runs them late (out of
        // phase, a tick due just before a change and run just after the next skipped "1 s").
        this.#startTicker();
        return this.#tick();
      case "reload":
        return this.#reload();
      case "reread":
        return this.#reload("reread");
      case "title": {
        // Its {{name}}s filled with the values typed so far, as the request would be.
        const values = this.variables?.values ?? state.conversation.variables ?? {};
        const shown = fillText(state.conversation.title ?? "", values) || UNTITLED;
        one(this.root, "[data-conversation-title]").textContent = shown;
        document.title = `${shown} · Messages Playground`;
        return undefined;
      }
      case "model":
        one(this.root, "[data-model-chip]").textContent = `${state.conversation.profile} · ${state.conversation.model}`;
        this.#controls(); // the system prompt may name other variables
        this.debugger.update();
        return this.sidebar.refresh();
      default:
        throw new Error(`unknown effect ${effect.do}`);
    }
  }

  /** The conversation's cost chip, with a run's cost added once its run.finished came; and
   * what the person's limits have left, asked again. */
  #addCost(frame) {
    if (frame?.run_id && frame.cost !== undefined) {
      this.#cost = addCost(this.#cost, frame.cost);
      this.#showCost();
      this.budget.refresh();
    }
  }

  #showCost() {
    const chip = one(this.root, "[data-conversation-cost]");
    const text = totalCostText(this.#cost);
    chip.textContent = text ? `cost ${text}` : "";
    chip.hidden = !text;
  }

  #send(action) {
    const sent = this.socket.send(action);
    if (action.action === "resume") return; // answered by run.started or an error frame
    if (sent) this.composer.showError("");
    else this.#dispatch({ type: "refused", action: action.action });
  }

  #controls() {
    const state = this.#state;
    const running = state.live !== null;
    this.compare.mirror(state.live);
    const variables = this.variables.refresh({ system: state.conversation.settings.system, messages: state.messages, draft: this.composer.text });
    const blocked = blockedReason(state);
    this.composer.update({
      fix: !blocked && variables ? { label: "Go to Variables", run: () => this.#showVariables() } : null,
      running,
      held: state.held !== null,
      blockedReason: blocked || variables,
      canRun: canRun(state),
      canJoin: !unansweredResults(state),
      hint: runHint(state),
      canContinue: canContinue(state),
      continueHint: continueHint(state),
    });
    this.toolResults.show(running ? [] : pendingCalls(state));
    this.#countTokens();
    // Results made while the socket reconnects wait for it, as a send does (held-send.js).
    this.toolResults.setEnabled(!running && canAct(state));
    one(this.root, "[data-connection-text]").textContent = connectionText(
      state.connection,
      state.connectionDetail,
      state.liveUpdates,
    );
    this.debugger.update();
  }

  /** The next request's input tokens, counted after a pause in typing (token-count.js). */
  #countTokens() {
    const state = this.#state;
    const turn = nextTurn({ toolResults: this.toolResults, composer: this.composer, state });
    this.tokenCount.consider({ turn, running: state.live !== null, state });
  }

  /** Send waits for the settings typed so far; settings the server refused stop it, named. */
  async #sendWithSettings(text, { unanswered = null, prefill = null } = {}) {
    const problem = await this.settings.flush();
    if (problem) {
      this.composer.showError(`Not sent: a setting you changed is not saved (${problem}). Fix it in Settings, then Send.`);
      this.panels.openSettings();
      return;
    }
    if (this.compare.armed) return this.compare.submit(text);
    this.#dispatch({ type: "send", text, unanswered, prefill });
  }

  // The live run's status line, once a second: a retry's countdown, or how long the upstream
  // has been silent (the heartbeat proves the socket alive, so the silence is upstream's).
  #startTicker() {
    clearInterval(this.#ticker);
    this.#ticker = setInterval(() => this.#tick(), TICK_MS);
  }

  #stopTicker() {
    clearInterval(this.#ticker);
    this.#ticker = 0;
    delete this.root.dataset.stalled;
  }

  #tick() {
    const state = this.#state;
    if (!state.live) return;
    const now = performance.now();
    let text = "";
    if (state.retrying) text = retryText(state.retrying, state.retrying.retryInMs - (now - this.#retryAt));
    else if (state.waiting) text = waitText(state.waiting);
    else if (state.connection === "open") text = stallText(now - this.#lastDataAt);
    if (!state.retrying && !state.waiting && text) this.root.dataset.stalled = "true";
    else delete this.root.dataset.stalled;
    this.transcript.liveNote(text);
  }

  #inspect(runId) {
    this.panels.openInspector();
    this.inspector.show(runId);
  }

  async #rename(title) {
    try {
      const updated = await apiFetch(this.urls.conversation, { method: "PATCH", body: { title } });
      this.#dispatch({ type: "renamed", title: updated.title });
      this.sidebar.refresh();
      return true;
    } catch (error) {
      this.composer.showError(`Could not rename: ${error.message}`);
      return false;
    }
  }

  async #editAndResend(message, text) {
    if (!text.trim()) return;
    // An edit changes the words; the turn's files stay (sent again by reference).
    const files = (Array.isArray(message.content) ? message.content : []).filter((b) => b?.type === "image" || b?.type === "document");
    const content = files.length ? [...files, { type: "text", text }] : text;
    try {
      const url = fillUrl(this.urls.message, { message_id: message.id });
      const conversation = await apiFetch(url, { method: "PATCH", body: { content } });
      this.#dispatch({ type: "edited", conversation });
    } catch (error) {
      this.composer.showError(`Could not edit: ${error.message}`);
    }
  }

  /** Show another alternative of a turn: the server moves the branch on screen (refused while
   * a run is live), and what it returns is drawn; focus stays on the turn's ‹ › buttons. */
  async #switchBranch(message, alternativeId, direction) {
    if (this.#state.live || alternativeId === undefined) return;
    try {
      const url = fillUrl(this.urls.message_select, { message_id: alternativeId });
      const conversation = await apiFetch(url, { method: "POST", body: {} });
      this.#dispatch({ type: "switched", conversation, position: message.position });
      this.transcript.focusBranch(message.position, direction);
      this.sidebar.refresh(); // an automatic title follows the first message on screen
    } catch (error) {
      this.composer.showError(`Could not switch: ${error.message}`);
    }
  }

  /** Read the conversation again; `type` the input its answer is ("reloaded", "reread"). */
  async #reload(type = "reloaded") {
    try {
      const conversation = await apiFetch(this.urls.conversation);
      this.#dispatch({ type, conversation });
    } catch (error) {
      this.#dispatch({ type: "reload.failed", message: error.message });
    }
  }
}

function main() {
  performance.mark("pg:main"); // the modules are in: the page's own work starts
  const root = document.getElementById("app");
  if (!root) return;
  const data = readPageData();
  setCsrfToken(data.csrf_token);
  setFileUrl(data.urls?.attachment);
  if (root.dataset.page !== "conversation") return startHome(root, data);
  // Built in a task after the modules' evaluation (each a part of one long task otherwise).
  return nextTask().then(() => new ConversationPage(root, data).start());
}

main();
