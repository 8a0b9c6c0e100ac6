/**
 * The playground page's entry: reads the page data, wires the modules, carries out effects.
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
 */

import { apiFetch, setCsrfToken } from "./api.js";
import { Composer } from "./composer.js";
import { Debugger } from "./debugger.js";
import { announce, fillUrl, one, readPageData } from "./dom.js";
import { ExportMenu } from "./export-menu.js";
import { ImportDialog } from "./import-dialog.js";
import { Inspector } from "./inspector.js";
import { installPanels, installRename } from "./page-chrome.js";
import { SettingsPanel } from "./settings-panel.js";
import { ShareDialog } from "./share-dialog.js";
import { installShortcuts } from "./shortcuts.js";
import { Sidebar } from "./sidebar.js";
import { ConversationSocket } from "./socket.js";
import { blockedReason, connectionText, initialState, pendingCalls, rootData, runChoices, step } from "./state.js";
import { ToolResults } from "./tool-results.js";
import { Transcript } from "./transcript.js";

/** "Import request…" (sidebar, and the list page's own button). */
function installImport(root, data) {
  return new ImportDialog(one(root, "[data-import-dialog]"), {
    openers: root.querySelectorAll("[data-action='open-import']"),
    maxBytes: data.limits?.max_frame_bytes,
  });
}

function startHome(root, data) {
  const sidebar = new Sidebar(one(root, "[data-sidebar]"), { urls: data.urls });
  installImport(root, data);
  sidebar.refresh();
  installShortcuts({ onNew: () => sidebar.create() });
  root.dataset.ready = "true";
}

class ConversationPage {
  #state;

  constructor(root, data) {
    this.root = root;
    this.urls = data.urls;
    this.#state = initialState(data.conversation);
    const id = data.conversation.id;

    this.sidebar = new Sidebar(one(root, "[data-sidebar]"), {
      urls: this.urls,
      currentId: id,
      onRenamed: (conversation) => this.#dispatch({ type: "renamed", title: conversation.title }),
    });
    this.transcript = new Transcript(one(root, "[data-transcript]"), {
      toolSchemas: () => SettingsPanel.schemas(this.#state.conversation.settings),
      onRegenerate: () => this.debugger.guardDrop(this.#state.messages.length - 1, "regenerate", () => this.#dispatch({ type: "regenerate" })),
      onEdit: (message, text) =>
        this.debugger.guardDrop(this.#state.messages.indexOf(message) + 1, "edit", () => this.#editAndResend(message, text)),
      onInspect: (runId) => this.#inspect(runId),
    });
    this.composer = new Composer(one(root, "[data-composer]"), {
      onSend: (text) => this.#dispatch({ type: "send", text }),
      onStop: () => this.#dispatch({ type: "stop" }),
    });
    this.toolResults = new ToolResults(one(root, "[data-tool-results]"), {
      conversationId: id,
      onSend: ({ results, text }) => this.#dispatch({ type: "tool_results", results, text }),
    });
    this.settings = new SettingsPanel(one(root, "[data-settings-panel]"), {
      profiles: data.profiles,
      url: this.urls.conversation,
      onSaved: (conversation) => this.#dispatch({ type: "settings.saved", conversation }),
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
    });
    this.socket = new ConversationSocket(this.urls.websocket, {
      onFrame: (frame) => this.#dispatch(frame),
      onState: (connection, detail) => this.#dispatch({ type: "connection", connection, detail }),
    });
    this.panels = installPanels(root, { onInspectorOpened: () => this.inspector.opened() });
    installRename(root, { currentTitle: () => this.#state.conversation.title, onRename: (title) => this.#rename(title) });
    installShortcuts({
      onSend: () => (this.toolResults.pending ? this.toolResults.submit() : this.composer.submit()),
      onStop: () => (this.#state.live ? (this.#dispatch({ type: "stop" }), true) : false),
      onNew: () => this.sidebar.create(),
    });
  }

  start() {
    this.settings.load(this.#state.conversation.settings);
    this.#carryOut([{ do: "draw" }]);
    this.sidebar.refresh();
    this.socket.connect();
    this.debugger.start();
    this.root.dataset.ready = "true";
    this.composer.focus();
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
      case "draw":
        this.transcript.draw(state.messages, { orphanRun: state.orphanRun, idle: !state.live });
        this.inspector.setRuns(runChoices(state));
        return this.#controls();
      case "controls":
        return this.#controls();
      case "startLive":
        this.transcript.draw(state.messages, { idle: false });
        this.transcript.startLive(effect.run);
        this.inspector.liveStarted(effect.run.id);
        this.inspector.setRuns(runChoices(state));
        return this.#controls();
      case "events":
        this.transcript.applyEvents(effect.runId, effect.events);
        return this.inspector.liveEvents(effect.runId, effect.events);
      case "saving":
        return this.transcript.showSaving(effect.frame);
      case "finishLive":
        return this.transcript.finishLive(effect.frame);
      case "runEnded":
        this.inspector.liveFinished(effect.runId);
        return this.sidebar.refresh(); // a first message names the conversation
      case "composerSent":
        return this.composer.sent();
      case "toolResultsDone":
        return this.toolResults.done();
      case "showError":
        return this.composer.showError(effect.text);
      case "announce":
        return announce(effect.text);
      case "scroll":
        return this.#followScroll();
      case "reload":
        return this.#reload();
      case "title": {
        const shown = state.conversation.title || "Untitled";
        one(this.root, "[data-conversation-title]").textContent = shown;
        document.title = `${shown} · Messages Playground`;
        return undefined;
      }
      case "model":
        one(this.root, "[data-model-chip]").textContent = `${state.conversation.profile} · ${state.conversation.model}`;
        this.debugger.update();
        return this.sidebar.refresh();
      default:
        throw new Error(`unknown effect ${effect.do}`);
    }
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
    this.composer.update({ running, blockedReason: blockedReason(state) });
    this.toolResults.show(running ? [] : pendingCalls(state));
    this.toolResults.setEnabled(!running && state.connection === "open");
    one(this.root, "[data-connection-text]").textContent = connectionText(state.connection, state.connectionDetail);
    this.debugger.update();
  }

  #followScroll() {
    const scroller = this.transcript.scroller;
    const nearBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 160;
    if (nearBottom) requestAnimationFrame(() => (scroller.scrollTop = scroller.scrollHeight));
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
    try {
      const url = fillUrl(this.urls.message, { message_id: message.id });
      const conversation = await apiFetch(url, { method: "PATCH", body: { content: text } });
      this.#dispatch({ type: "edited", conversation });
    } catch (error) {
      this.composer.showError(`Could not edit: ${error.message}`);
    }
  }

  async #reload() {
    try {
      const conversation = await apiFetch(this.urls.conversation);
      this.#dispatch({ type: "reloaded", conversation });
    } catch (error) {
      this.#dispatch({ type: "reload.failed", message: error.message });
    }
  }
}

function main() {
  const root = document.getElementById("app");
  if (!root) return;
  const data = readPageData();
  setCsrfToken(data.csrf_token);
  if (root.dataset.page === "conversation") new ConversationPage(root, data).start();
  else startHome(root, data);
}

main();
