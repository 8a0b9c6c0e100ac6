/**
 * The playground page's entry: reads the page data, wires the modules, drives the run state.
 *
 * Rule: this is the only module that holds the conversation's state (messages, the live run
 * and the last seq drawn) and the only one that reads socket frames; the others draw and
 * report. UI state is mirrored on the root element for CSS and tests:
 *   data-run-state="idle|running"  data-connection="connecting|open|closed|refused"
 *   data-settings / data-inspector="open|closed"  data-last-status (the last run's status)
 *   data-finished-runs (runs seen ending since the page loaded)  data-last-seq
 *   data-save-state="pending" (a run ended but the server has not saved it yet: run.saving)
 */

import { apiFetch, setCsrfToken } from "./api.js";
import { Composer } from "./composer.js";
import { announce, fillUrl, one, readPageData } from "./dom.js";
import { ExportMenu } from "./export-menu.js";
import { ImportDialog } from "./import-dialog.js";
import { Inspector } from "./inspector.js";
import { SettingsPanel } from "./settings-panel.js";
import { ShareDialog } from "./share-dialog.js";
import { installShortcuts } from "./shortcuts.js";
import { Sidebar } from "./sidebar.js";
import { ConversationSocket } from "./socket.js";
import { ToolResults } from "./tool-results.js";
import { Transcript } from "./transcript.js";

const STATUS_WORDS = {
  complete: "Answer complete",
  stopped: "Stopped; the partial answer is kept",
  failed: "The run failed",
  truncated: "The answer was cut off",
  interrupted: "The run was interrupted",
};

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
  constructor(root, data) {
    this.root = root;
    this.data = data;
    this.urls = data.urls;
    this.conversation = data.conversation;
    this.messages = [...data.conversation.messages];
    this.orphanRun = null;
    this.live = null; // {id, lastSeq, profile, model}
    this.resumingRunId = null;
    this.pendingSend = null;
    this.connection = "connecting";

    this.sidebar = new Sidebar(one(root, "[data-sidebar]"), {
      urls: this.urls,
      currentId: this.conversation.id,
      onRenamed: (conversation) => this.#setTitle(conversation.title),
    });
    this.transcript = new Transcript(one(root, "[data-transcript]"), {
      toolSchemas: () => SettingsPanel.schemas(this.conversation.settings),
      onRegenerate: () => this.regenerate(),
      onEdit: (message, text) => this.editAndResend(message, text),
      onInspect: (runId) => this.inspect(runId),
    });
    this.composer = new Composer(one(root, "[data-composer]"), {
      onSend: (text) => this.send(text),
      onStop: () => this.stop(),
    });
    this.toolResults = new ToolResults(one(root, "[data-tool-results]"), {
      conversationId: this.conversation.id,
      onSend: (payload) => this.sendToolResults(payload),
    });
    this.settings = new SettingsPanel(one(root, "[data-settings-panel]"), {
      profiles: data.profiles,
      url: this.urls.conversation,
      onSaved: (conversation) => this.#settingsSaved(conversation),
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
    this.socket = new ConversationSocket(this.urls.websocket, {
      onFrame: (frame) => this.#onFrame(frame),
      onState: (state, detail) => this.#onConnection(state, detail),
    });
    this.#wireChrome();
    installShortcuts({
      onSend: () => (this.toolResults.pending ? this.toolResults.submit() : this.composer.submit()),
      onStop: () => (this.live ? (this.stop(), true) : false),
      onNew: () => this.sidebar.create(),
    });
  }

  start() {
    this.settings.load(this.conversation.settings);
    this.orphanRun = this.#findOrphan(this.conversation.last_run);
    this.#redraw();
    this.sidebar.refresh();
    this.socket.connect();
    this.root.dataset.ready = "true";
    this.composer.focus();
  }

  // -- chrome: panels, rename ----------------------------------------------------------------

  #wireChrome() {
    const settingsPanel = one(this.root, "[data-settings-panel]");
    const inspectorPanel = one(this.root, "[data-inspector-panel]");
    const help = one(this.root, "[data-help]");
    const toggle = (panel, name, buttonSelector, onOpen) => {
      const open = panel.hidden;
      panel.hidden = !open;
      this.root.dataset[name] = open ? "open" : "closed";
      this.root.querySelectorAll(buttonSelector).forEach((b) => b.setAttribute("aria-expanded", String(open)));
      if (open) onOpen?.();
    };
    this.root.querySelectorAll("[data-action='toggle-settings']").forEach((button) =>
      button.addEventListener("click", () => toggle(settingsPanel, "settings", "[data-action='toggle-settings']")),
    );
    this.root.querySelectorAll("[data-action='toggle-inspector']").forEach((button) =>
      button.addEventListener("click", () =>
        toggle(inspectorPanel, "inspector", "[data-action='toggle-inspector']", () => this.inspector.opened()),
      ),
    );
    this.openInspector = () => {
      if (inspectorPanel.hidden) toggle(inspectorPanel, "inspector", "[data-action='toggle-inspector']");
    };
    one(this.root, "[data-action='toggle-help']").addEventListener("click", (event) => {
      help.hidden = !help.hidden;
      event.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
    });
    const form = one(this.root, "[data-rename-form]");
    const input = form.elements.title;
    const title = one(this.root, "[data-conversation-title]");
    const renameButton = one(this.root, "[data-action='rename']");
    const close = () => {
      form.hidden = true;
      title.hidden = false;
      renameButton.hidden = false;
    };
    renameButton.addEventListener("click", () => {
      input.value = this.conversation.title;
      form.hidden = false;
      title.hidden = true;
      renameButton.hidden = true;
      input.focus();
      input.select();
    });
    one(form, "[data-action='rename-cancel']").addEventListener("click", close);
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.stopPropagation();
        close();
      }
    });
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const updated = await apiFetch(this.urls.conversation, { method: "PATCH", body: { title: input.value.trim() } });
        this.#setTitle(updated.title);
        this.sidebar.refresh();
        close();
      } catch (error) {
        this.composer.showError(`Could not rename: ${error.message}`);
      }
    });
  }

  #setTitle(text) {
    this.conversation.title = text;
    const shown = text || "Untitled";
    one(this.root, "[data-conversation-title]").textContent = shown;
    document.title = `${shown} · Messages Playground`;
  }

  #settingsSaved(conversation) {
    this.conversation.settings = conversation.settings;
    this.conversation.profile = conversation.profile;
    this.conversation.model = conversation.model;
    one(this.root, "[data-model-chip]").textContent = `${conversation.profile} · ${conversation.model}`;
    this.sidebar.refresh();
  }

  // -- state ----------------------------------------------------------------------------------

  #findOrphan(run) {
    // A run that saved no message (e.g. a 429 before the first event) still has an outcome.
    if (!run || run.status === "running") return null;
    if (this.messages.some((message) => message.run?.id === run.id)) return null;
    // An answer the conversation could not take is kept on its run: always shown.
    if (run.kept_content) return run;
    return this.messages.at(-1)?.role === "user" ? run : null;
  }

  #pendingCalls() {
    const last = this.messages.at(-1);
    if (!last || last.role !== "assistant" || !Array.isArray(last.content)) return [];
    return last.content.filter((block) => block.type === "tool_use");
  }

  #redraw() {
    this.transcript.draw(this.messages, { orphanRun: this.orphanRun, idle: !this.live });
    this.#refreshControls();
    this.#refreshRuns();
  }

  #blockedReason() {
    if (this.connection !== "open") return "Not connected to the server; the page reconnects by itself.";
    if (this.#pendingCalls().length > 0) return "The model is waiting for tool results: answer each call above, then Send results.";
    if (this.messages.at(-1)?.role === "user") return "The last message has no answer yet: Regenerate it, or edit it.";
    return "";
  }

  #refreshControls() {
    const running = this.live !== null;
    this.root.dataset.runState = running ? "running" : "idle";
    this.composer.update({ running, blockedReason: running ? "" : this.#blockedReason() });
    this.toolResults.show(running ? [] : this.#pendingCalls());
    this.toolResults.setEnabled(!running && this.connection === "open");
  }

  #refreshRuns() {
    const runs = [];
    const seen = new Set();
    const add = (run, label) => {
      if (!run?.id || seen.has(run.id)) return;
      seen.add(run.id);
      runs.push({ id: run.id, label });
    };
    if (this.live) add(this.live, `live · ${this.live.model ?? ""}`);
    if (this.orphanRun) add(this.orphanRun, `${this.orphanRun.status} · ${this.orphanRun.model}`);
    [...this.messages].reverse().forEach((message, index) => {
      if (message.run) add(message.run, `#${this.messages.length - index} ${message.run.status} · ${message.run.model} · ${message.run.stop_reason ?? "—"}`);
    });
    this.inspector.setRuns(runs);
  }

  // -- actions --------------------------------------------------------------------------------

  #act(action, { onRefused } = {}) {
    if (!this.socket.send(action)) {
      const text = "Not connected to the server; try again once it says Connected.";
      this.composer.showError(text);
      onRefused?.();
      return false;
    }
    this.composer.showError("");
    return true;
  }

  send(text) {
    this.pendingSend = text;
    this.#act({ action: "send", content: text }, { onRefused: () => (this.pendingSend = null) });
  }

  sendToolResults({ results, text }) {
    this.#act({ action: "tool_results", results, text });
  }

  regenerate() {
    this.#act({ action: "regenerate" });
  }

  stop() {
    if (!this.live) return;
    this.root.dataset.stopping = "true";
    this.#act({ action: "stop" });
  }

  async editAndResend(message, text) {
    if (!text.trim()) return;
    try {
      const url = fillUrl(this.urls.message, { message_id: message.id });
      const conversation = await apiFetch(url, { method: "PATCH", body: { content: text } });
      this.messages = [...conversation.messages];
      this.orphanRun = null;
      this.#redraw();
      this.regenerate();
    } catch (error) {
      this.composer.showError(`Could not edit: ${error.message}`);
    }
  }

  inspect(runId) {
    this.openInspector();
    this.inspector.show(runId);
  }

  // -- socket ---------------------------------------------------------------------------------

  #onConnection(state, detail) {
    this.connection = state;
    this.root.dataset.connection = state;
    const text = one(this.root, "[data-connection-text]");
    if (state === "open") text.textContent = "Connected";
    else if (state === "connecting") text.textContent = detail.attempt ? "Reconnecting…" : "Connecting…";
    else if (state === "closed") text.textContent = `Disconnected; retrying in ${Math.ceil(detail.retryInMs / 1000)} s`;
    else text.textContent = "Not allowed to open this conversation";
    this.#refreshControls();
  }

  #onFrame(frame) {
    switch (frame.type) {
      case "hello":
        this.#onHello(frame);
        break;
      case "run.started":
        this.#onRunStarted(frame);
        break;
      case "run.events":
        this.#onRunEvents(frame);
        break;
      case "run.saving":
        this.#onRunSaving(frame);
        break;
      case "run.finished":
        this.#onRunFinished(frame);
        break;
      case "error":
        this.#onError(frame);
        break;
      default:
        break; // a newer server's frame: nothing to do with it here
    }
  }

  #onHello(frame) {
    const active = frame.active_run;
    if (active) {
      // A reload (from 0) or a reconnect (from the last seq drawn) of the same run.
      const after = this.live?.id === active.run_id ? this.live.lastSeq : 0;
      this.#resume(active.run_id, after);
    } else if (this.live) {
      // The run ended while we were away: the server replays its tail and run.finished.
      this.#resume(this.live.id, this.live.lastSeq);
    } else {
      this.#refreshControls();
    }
  }

  #resume(runId, afterSeq) {
    this.resumingRunId = runId;
    this.socket.send({ action: "resume", run_id: runId, after_seq: afterSeq });
  }

  #onRunStarted(frame) {
    const run = frame.run;
    const resumed = this.resumingRunId === run.id || this.live?.id === run.id;
    if (!resumed) {
      if (frame.user_message) {
        this.messages = this.messages.filter((m) => m.id !== frame.user_message.id);
        this.messages.push(frame.user_message);
        const isToolResults = frame.user_message.content.some?.((b) => b.type === "tool_result");
        if (isToolResults) this.toolResults.done();
        if (this.pendingSend !== null && !isToolResults) {
          this.pendingSend = null;
          this.composer.sent();
        }
      } else if (this.messages.at(-1)?.role === "assistant") {
        this.messages.pop(); // regenerate drops the last assistant turn
      }
    }
    // A checkpoint of this run may be among the stored messages: the live turn replaces it.
    this.messages = this.messages.filter((m) => m.run?.id !== run.id);
    this.orphanRun = null;
    if (this.live?.id !== run.id) this.live = { id: run.id, lastSeq: 0, profile: run.profile, model: run.model };
    this.transcript.draw(this.messages, { idle: false });
    this.transcript.startLive(run);
    this.inspector.liveStarted(run.id);
    this.#refreshControls();
    this.#refreshRuns();
    delete this.root.dataset.lastStatus;
    announce(resumed ? "Resuming the live answer" : "Waiting for the answer");
  }

  #onRunEvents(frame) {
    if (!this.live || this.live.id !== frame.run_id || frame.events.length === 0) return;
    const first = this.live.lastSeq === 0;
    this.transcript.applyEvents(frame.run_id, frame.events);
    this.inspector.liveEvents(frame.run_id, frame.events);
    this.live.lastSeq = Math.max(this.live.lastSeq, frame.events.at(-1).seq);
    this.root.dataset.lastSeq = String(this.live.lastSeq);
    if (first) announce("Streaming the answer");
    this.#followScroll();
  }

  #followScroll() {
    const scroller = this.transcript.scroller;
    const nearBottom = scroller.scrollHeight - scroller.scrollTop - scroller.clientHeight < 160;
    if (nearBottom) requestAnimationFrame(() => (scroller.scrollTop = scroller.scrollHeight));
  }

  #onRunSaving(frame) {
    // The stream is over but the database refused its end: never say it completed.
    if (this.live?.id !== frame.run_id) return;
    this.root.dataset.saveState = "pending";
    this.transcript.showSaving(frame);
    announce("The answer is not saved yet; the server keeps it and retries");
  }

  #onRunFinished(frame) {
    if (this.live?.id !== frame.run_id) return;
    delete this.root.dataset.saveState;
    this.transcript.finishLive(frame);
    if (frame.message) {
      this.messages = this.messages.filter((m) => m.id !== frame.message.id);
      this.messages.push(frame.message);
    } else {
      this.orphanRun = { id: frame.run_id, status: frame.status, stop_reason: frame.stop_reason, usage: frame.usage, timings: frame.timings, error: frame.error, kept_content: frame.kept_content ?? null, profile: this.live.profile, model: this.live.model };
    }
    this.live = null;
    this.resumingRunId = null;
    delete this.root.dataset.stopping;
    this.root.dataset.lastStatus = frame.status;
    // A counter, so a test can wait for "the next run ended" even when it ran too fast to see.
    this.root.dataset.finishedRuns = String(Number(this.root.dataset.finishedRuns ?? 0) + 1);
    this.#redraw();
    this.inspector.liveFinished(frame.run_id);
    this.sidebar.refresh(); // a first message names the conversation
    const words = STATUS_WORDS[frame.status] ?? frame.status;
    announce(frame.stop_reason === "tool_use" ? "The model called tools: results are due" : words);
    this.#followScroll();
  }

  #onError(frame) {
    const error = frame.error ?? {};
    if (frame.action === "resume") {
      // The run is gone (another server, or past its end): show what is stored.
      this.live = null;
      this.resumingRunId = null;
      this.#reload();
      return;
    }
    if (frame.action === "send") this.pendingSend = null;
    if (frame.action === "stop") delete this.root.dataset.stopping;
    const field = error.field ? ` (${error.field})` : "";
    this.composer.showError(`${error.message ?? "refused"}${field}`);
    this.root.dataset.lastError = error.code ?? "error";
  }

  async #reload() {
    try {
      const conversation = await apiFetch(this.urls.conversation);
      this.conversation = conversation;
      this.messages = [...conversation.messages];
      this.orphanRun = this.#findOrphan(conversation.last_run);
    } catch (error) {
      this.composer.showError(`Could not reload the conversation: ${error.message}`);
    }
    this.#redraw();
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
