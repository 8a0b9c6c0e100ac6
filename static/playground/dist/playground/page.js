// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  ModelSuggestions
} from "../chunk-7L37PWW6.js";
import {
  IncrementalJsonParser,
  LiveTurn,
  renderMessage,
  serverToolNames,
  warmUp
} from "../chunk-ELFJ37YP.js";
import "../chunk-BEEXAAQ7.js";
import "../chunk-RM3OCOIM.js";
import {
  AttachTray,
  Modal,
  TokenCount,
  ToolResults,
  blockedReason,
  canAct,
  canContinue,
  canRun,
  connectionText,
  continueHint,
  droppedThinking,
  historyWarnings,
  initialState,
  loadComposerDraft,
  nextTurn,
  pendingCalls,
  retryText,
  rootData,
  runChoices,
  runHint,
  saveComposerDraft,
  sentBack,
  showError,
  stallText,
  step,
  unansweredResults,
  waitText
} from "../chunk-D4QFQD3P.js";
import {
  setFileUrl
} from "../chunk-EMOQE56V.js";
import {
  columnOf,
  liveStats
} from "../chunk-6XGUQ5CV.js";
import {
  abbreviateBase64,
  addCost,
  costText,
  formatMs,
  pretty,
  totalCostText,
  usageText
} from "../chunk-PODVIVX6.js";
import {
  validateAgainstSchema
} from "../chunk-ZZFHTOI2.js";
import {
  ApiError,
  apiFetch,
  setCsrfToken
} from "../chunk-22CQPU6I.js";
import {
  announce,
  copyText,
  el,
  fillUrl,
  nextTask,
  one,
  parts,
  placeChildren,
  readPageData
} from "../chunk-ACANGUXN.js";

// static/playground/turn-meta.js
var STATUS_TEXT = {
  running: "Streaming",
  stopped: "Stopped",
  failed: "Failed",
  truncated: "Truncated",
  interrupted: "Interrupted"
};
var MIN_RATE_SPAN_MS = 250;
function tokensPerSecond(run) {
  const output = run?.usage?.output_tokens;
  const { first_token_ms: first, duration_ms: duration } = run?.timings ?? {};
  if (typeof output !== "number" || typeof duration !== "number") return null;
  const span = duration - (typeof first === "number" ? first : 0);
  if (span < MIN_RATE_SPAN_MS || output <= 0) return null;
  return output / (span / 1e3);
}
function item(label, value, key) {
  if (value === null || value === void 0 || value === "") return null;
  return el(
    "span",
    { className: "meta-item", dataset: { meta: key } },
    el("span", { className: "meta-label", text: label }),
    el("span", { className: "meta-value", text: value })
  );
}
function stopDetailsText(details) {
  if (!details || typeof details !== "object") return null;
  const head = [details.type, details.category ? `(${details.category})` : null].filter(Boolean);
  const text2 = head.join(" ");
  return details.explanation ? `${text2}: ${details.explanation}` : text2 || null;
}
var STOPPABLE_BLOCKS = /* @__PURE__ */ new Set(["text", "thinking", "redacted_thinking"]);
function flaggedText(issues = {}, { status, content = [] } = {}) {
  const names = { invalid_json: "invalid JSON", incomplete: "cut off" };
  const parts2 = Object.entries(issues ?? {}).filter(([index, issue]) => !(status === "stopped" && issue === "incomplete" && STOPPABLE_BLOCKS.has(content?.[index]?.type))).map(([index, issue]) => `block ${index} ${names[issue] ?? issue}`);
  return parts2.length ? parts2.join(", ") : null;
}
function shownChars(content) {
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    if (typeof block?.text === "string") chars += block.text.length;
    if (typeof block?.thinking === "string") chars += block.thinking.length;
    if (block?.type === "tool_use" || block?.type === "server_tool_use") chars += JSON.stringify(block.input ?? {}).length;
  }
  return chars;
}
function usageWords(run, content) {
  const usage = run.usage ?? {};
  const chars = shownChars(content);
  const reported = Number.isFinite(usage.output_tokens) ? usage.output_tokens : 0;
  const estimate = Math.max(1, Math.round(chars / 4));
  const uncounted = run.status !== "complete" && chars > 0 && estimate > reported * 1.5 + 4;
  if (!uncounted) return { text: usageText(run.usage), estimated: false };
  const known = Number.isFinite(usage.input_tokens) ? `in ${usage.input_tokens} \xB7 ` : "";
  return { text: `${known}out \u2248${estimate} (estimated)`, estimated: true };
}
function usageItem(run, content) {
  const { text: text2, estimated } = usageWords(run, content);
  const node = item("usage", text2, "usage");
  if (node === null || !estimated) return node;
  node.dataset.estimated = "true";
  node.title = "The run ended before the upstream sent its output count; estimated from the text shown";
  return node;
}
function hasAnswer(content) {
  return shownChars(content) > 0;
}
function runMeta(run, { content = (
  /** @type {any[] | null} */
  null
) } = {}) {
  if (!run) return null;
  const footer = el("footer", { className: "turn-meta", dataset: { runId: run.id ?? "" } });
  const status = run.status ?? "complete";
  footer.dataset.status = status;
  if (status !== "complete") {
    footer.append(
      el("span", {
        className: `status-badge status-${status}`,
        text: STATUS_TEXT[status] ?? status,
        dataset: { runStatus: status }
      })
    );
  }
  const rate = tokensPerSecond(run);
  const items = [
    item("stop", run.stop_reason, "stop-reason"),
    item("stop sequence", run.stop_sequence == null ? null : JSON.stringify(run.stop_sequence), "stop-sequence"),
    item("stop details", stopDetailsText(run.stop_details), "stop-details"),
    item("container", run.container?.id ?? null, "container"),
    item("flagged", flaggedText(run.block_issues, { status: run.status, content }), "flagged"),
    usageItem(run, content),
    item("cost", costText(run.cost), "cost"),
    item("first token", formatMs(run.timings?.first_token_ms), "ttft"),
    item("total", formatMs(run.timings?.duration_ms), "duration"),
    item("speed", rate === null ? null : `${rate.toFixed(1)} tok/s`, "rate"),
    item("model", [run.model, run.profile].filter(Boolean).join(" \xB7 "), "model")
  ];
  footer.append(...items.filter((node) => node !== null));
  for (const note of run.notes ?? []) {
    footer.append(el("div", { className: "turn-note muted", text: note, dataset: { meta: "note" } }));
  }
  if (run.error) {
    const error = el(
      "div",
      { className: "turn-error", attrs: { role: "status" }, dataset: { errorCode: run.error.code ?? "" } },
      el("strong", { text: run.error.code ?? "error" }),
      run.error.error_type ? el("span", { className: "error-type", text: ` (${run.error.error_type})`, dataset: { errorType: run.error.error_type } }) : null,
      el("span", { text: `: ${run.error.message ?? ""}` })
    );
    if (run.error.request_id) {
      error.append(
        el("span", { className: "request-id", text: ` \xB7 request id ${run.error.request_id}`, dataset: { requestId: run.error.request_id } })
      );
    }
    if (status !== "complete" && hasAnswer(content)) {
      error.append(el("span", { className: "muted", text: " \xB7 the partial answer above is kept" }));
    }
    footer.append(error);
  }
  return footer;
}

// static/playground/compare.js
var COLUMNS_MIN = 2;
var COLUMNS_MAX = 4;
var Compare = class {
  #root;
  #setup;
  #list;
  #view;
  #grid;
  #status;
  #toggle;
  #profiles;
  #settings;
  #onSubmit;
  #onDismiss;
  #onKeep;
  #columns = /* @__PURE__ */ new Map();
  // run id -> the column's DOM: {run, article, turn, stats, keep, messageId}
  constructor(root, { profiles, settings, onSubmit, onDismiss, onKeep, onToggle }) {
    this.#root = root;
    this.#profiles = profiles ?? [];
    this.#settings = settings;
    this.#onSubmit = onSubmit;
    this.#onDismiss = onDismiss;
    this.#onKeep = onKeep;
    const found = parts(root, {
      setup: "[data-compare-setup]",
      list: "[data-compare-columns]",
      view: "[data-compare-view]",
      grid: "[data-compare-grid]",
      status: "[data-compare-status]",
      toggle: "[data-action='toggle-compare']",
      add: "[data-action='compare-add']",
      dismiss: "[data-action='compare-dismiss']"
    });
    ({ setup: this.#setup, list: this.#list, view: this.#view, grid: this.#grid, status: this.#status, toggle: this.#toggle } = found);
    this.#toggle.addEventListener("click", () => {
      this.#arm(this.#setup.hidden);
      onToggle?.();
    });
    found.add.addEventListener("click", () => this.#addEditor(this.#settings()));
    found.dismiss.addEventListener("click", () => this.#dismiss());
    this.#grid.addEventListener("click", (event) => {
      const button = event.target.closest("[data-action='compare-keep']");
      if (button) this.#onKeep(button.dataset.messageId);
    });
  }
  /** Send goes to the columns (the setup is open). */
  get armed() {
    return !this.#setup.hidden;
  }
  #arm(on) {
    this.#setup.hidden = !on;
    this.#toggle.setAttribute("aria-expanded", String(on));
    this.#toggle.classList.toggle("btn-active", on);
    if (on && !this.#list.children.length) {
      const settings = this.#settings();
      this.#addEditor(settings);
      this.#addEditor({ ...settings, temperature: settings.temperature === 1 ? 0.2 : 1 });
    }
  }
  #addEditor(settings) {
    if (this.#list.children.length >= COLUMNS_MAX) return;
    const index = this.#list.children.length;
    const profile = el("select", { className: "input", dataset: { compareField: "profile" }, attrs: { "aria-label": `Column ${index + 1} upstream` } });
    for (const choice of this.#profiles) {
      const option = el("option", { text: choice.label ?? choice.name, attrs: { value: choice.name } });
      option.selected = choice.name === settings.profile;
      profile.append(option);
    }
    const field = (name, label, value, attrs = {}) => el(
      "label",
      { className: "compare-field" },
      el("span", { className: "field-label", text: label }),
      el("input", { className: "input", dataset: { compareField: name }, attrs: { value: value ?? "", ...attrs } })
    );
    const remove = el("button", { className: "btn btn-ghost btn-small", text: "\xD7", dataset: { action: "compare-remove" }, attrs: { type: "button", "aria-label": `Remove column ${index + 1}` } });
    remove.addEventListener("click", () => {
      if (this.#list.children.length > COLUMNS_MIN) editor.remove();
      this.#renumber();
    });
    const editor = el(
      "div",
      { className: "compare-editor", dataset: { compareEditor: "" } },
      el("span", { className: "compare-editor-title", text: `Column ${index + 1}` }),
      el("label", { className: "compare-field" }, el("span", { className: "field-label", text: "Upstream" }), profile),
      field("model", "Model", settings.model, { autocomplete: "off" }),
      field("temperature", "Temperature", settings.temperature, { type: "number", step: "0.1", min: "0", max: "1", placeholder: "default" }),
      field("max_tokens", "Max tokens", settings.max_tokens, { type: "number", min: "1", step: "1" }),
      // A prompt version or label (name@production, name@v3): its settings, under the fields
      // above (prompts/columns.py); the names offered are the library's (_prompt_link.html).
      field("prompt", "Prompt", "", { autocomplete: "off", list: "prompt-references", placeholder: "name@label (optional)" }),
      remove
    );
    this.#list.append(editor);
    this.#renumber();
  }
  #renumber() {
    [...this.#list.children].forEach((editor, index) => {
      editor.querySelector(".compare-editor-title").textContent = `Column ${index + 1}`;
    });
    const count = this.#list.children.length;
    this.#list.dataset.count = String(count);
    this.#setup.querySelector("[data-action='compare-add']").disabled = count >= COLUMNS_MAX;
    for (const button of this.#list.querySelectorAll("[data-action='compare-remove']")) button.disabled = count <= COLUMNS_MIN;
  }
  /** The columns as the `compare` frame takes them: settings changes over the conversation's. */
  columnsToSend() {
    return [...this.#list.children].map((editor) => {
      const value = (name) => editor.querySelector(`[data-compare-field='${name}']`).value.trim();
      const column = { profile: value("profile"), model: value("model") };
      if (value("temperature") !== "") column.temperature = Number(value("temperature"));
      if (value("max_tokens") !== "") column.max_tokens = Number(value("max_tokens"));
      if (value("prompt") !== "") {
        column.prompt = value("prompt");
        const base = this.#settings();
        if (column.profile === base.profile) delete column.profile;
        if (column.model === base.model) delete column.model;
      }
      return column;
    });
  }
  /** Send the composer's content to the columns (through the page's reducer). */
  submit(content) {
    this.#onSubmit(content, this.columnsToSend());
  }
  // -- drawing what the reducer folded -----------------------------------------------------------
  /** A column's run started (`fresh`: the first of a new compare of `count` columns); `sent`:
   * its settings as sent, for its header. */
  column({ run, index, count, fresh, sent }) {
    if (fresh) {
      this.#columns.clear();
      this.#grid.replaceChildren();
      this.#grid.dataset.count = String(count);
      this.#view.hidden = false;
    }
    this.#columns.set(run.id, this.#draw(run, index, sent));
    this.#arm(false);
  }
  #draw(run, index, sent) {
    const settings = sent ? [sent.prompt ? `prompt ${sent.prompt}` : null, sent.temperature !== void 0 ? `temperature ${sent.temperature}` : null, sent.max_tokens ? `max ${sent.max_tokens}` : null].filter(Boolean).join(" \xB7 ") : "";
    const body = el("div", { className: "msg-body" });
    const stats = el("p", { className: "compare-stats muted", dataset: { compareStats: "" }, text: liveStats({ firstTokenMs: null }) });
    const keep = el("div", { className: "compare-keep" });
    const article = el(
      "article",
      { className: "compare-column", dataset: { column: String(index), runId: run.id, columnState: "streaming" } },
      el("header", { className: "compare-column-head" }, el("strong", { text: `Column ${index + 1}` }), el("span", { text: `${run.profile} \xB7 ${run.model}` }), settings ? el("span", { className: "muted", text: settings }) : null),
      body,
      stats,
      keep
    );
    const after = [...this.#grid.children].find((node) => Number(node.dataset.column) > index);
    this.#grid.insertBefore(article, after ?? null);
    const turn = new LiveTurn(body, { key: run.id });
    return { run, article, turn, stats, keep, messageId: null };
  }
  /** A column's events; `folded`: the column as the reducer holds it (its live line's numbers). */
  events(runId, events, folded) {
    const column = this.#columns.get(runId);
    if (!column) return;
    column.turn.applyEvents(events);
    column.stats.textContent = liveStats(folded);
  }
  finished(frame) {
    const column = this.#columns.get(frame.run_id);
    if (!column) return;
    column.turn.finish(frame);
    column.messageId = frame.message?.id ?? null;
    column.article.dataset.columnState = "done";
    column.article.dataset.status = frame.status;
    const run = { ...column.run, ...frame, id: frame.run_id };
    column.stats.replaceWith(runMeta(run, { content: column.turn.message?.content ?? null }));
  }
  /** Every column ended and the conversation was read again: offer Keep on each answer, and
   * mark the one on screen (`shownId`, the path's last message). */
  settle(shownId) {
    for (const column of this.#columns.values()) {
      const { messageId } = column;
      column.keep.replaceChildren();
      column.article.dataset.kept = String(messageId !== null && String(messageId) === String(shownId));
      if (messageId === null) continue;
      const kept = column.article.dataset.kept === "true";
      column.keep.append(
        kept ? el("span", { className: "compare-kept", text: "\u2713 The conversation's turn" }) : el("button", { className: "btn btn-small", text: "Keep this one", dataset: { action: "compare-keep", messageId: String(messageId) }, attrs: { type: "button" } })
      );
    }
  }
  #dismiss() {
    this.#view.hidden = true;
    this.#grid.replaceChildren();
    this.#columns.clear();
    this.#onDismiss();
  }
  /** The root's data-compare and the status line: the live group when it is a compare, else
   * the columns drawn (an ended compare until it is dismissed). */
  mirror(group) {
    const live = Boolean(group && group.count > 1);
    const count = live ? group.count : this.#columns.size;
    let state = null;
    if (count) state = live ? "running" : "done";
    else if (this.armed) state = "setup";
    if (state) this.#root.dataset.compare = state;
    else delete this.#root.dataset.compare;
    this.#status.textContent = count ? `${count} columns \xB7 ${live ? "streaming" : "every column ended: keep one as the turn"}` : "";
  }
};

// static/playground/composer.js
var Composer = class {
  #form;
  #input;
  #send;
  #stop;
  #run;
  #continue;
  #prefill;
  #prefillRow;
  #prefillToggle;
  #canContinue = false;
  #continueHint = "";
  #join;
  #fix;
  /** @type {(() => void) | null} */
  #fixRun = null;
  #why;
  #error;
  #running = false;
  #held = false;
  #blocked = "";
  #canRun = false;
  #canJoin = false;
  #hint = "";
  #onSend;
  #tray;
  #conversationId;
  constructor(form, { onSend, onStop, onRun, onContinue, urls, conversationId = null }) {
    this.#form = form;
    this.#onSend = onSend;
    this.#conversationId = conversationId;
    ({ input: this.#input, send: this.#send, stop: this.#stop, run: this.#run, join: this.#join, fix: this.#fix, why: this.#why, error: this.#error } = parts(form, {
      input: "[data-composer-input]",
      send: "[data-action='send']",
      stop: "[data-action='stop']",
      run: "[data-action='run']",
      join: "[data-action='send-join']",
      fix: "[data-action='composer-fix']",
      why: "[data-composer-why]",
      error: "[data-composer-error]"
    }));
    ({ continue: this.#continue, prefill: this.#prefill, prefillRow: this.#prefillRow, prefillToggle: this.#prefillToggle } = parts(form, {
      continue: "[data-action='continue']",
      prefill: "[data-composer-prefill]",
      prefillRow: "[data-composer-prefill-row]",
      prefillToggle: "[data-action='toggle-prefill']"
    }));
    this.#continue.addEventListener("click", () => onContinue());
    this.#installMore();
    this.#prefillToggle.addEventListener("click", () => this.#togglePrefill());
    this.#prefill.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      this.submit();
    });
    this.#tray = new AttachTray(form, {
      url: urls.attachments,
      fileUrl: urls.attachment,
      onChange: () => this.#changed(),
      onError: (text2) => this.showError(text2)
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("input", () => this.#changed());
    if (conversationId) {
      const draft = loadComposerDraft(conversationId);
      this.#input.value = draft.text;
      if (draft.files.length) this.#tray.restore(draft.files);
    }
    this.#stop.addEventListener("click", () => onStop());
    this.#run.addEventListener("click", () => onRun());
    this.#join.addEventListener("click", () => this.submit({ unanswered: "join" }));
    this.#fix.addEventListener("click", () => this.#fixRun?.());
  }
  get text() {
    return this.#input.value;
  }
  /** The turn as it would be sent: the text, or blocks when files are attached ("" for none). */
  get content() {
    const files = this.#tray.blocks;
    const text2 = this.#input.value;
    if (!files.length) return text2.trim() ? text2 : "";
    return text2.trim() ? [...files, { type: "text", text: text2 }] : files;
  }
  focus() {
    this.#input.focus();
  }
  /** Blocks made elsewhere (an MCP resource, a prompt's non-text parts) attached to the
   * message: [{name, block}]. */
  attach(items) {
    this.#tray.addBlocks(items);
  }
  /** Text put in the message at the caret (an MCP prompt's), as if typed. */
  insertText(text2) {
    const input = this.#input;
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    input.setRangeText(text2, start, end, "end");
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }
  /** how: {unanswered: "join"} to add the text to an unanswered last turn (else it goes alone). */
  submit(how = {}) {
    const content = this.content;
    if (this.#running || this.#blocked || this.#tray.uploading || !content.length) return;
    this.showError("");
    const prefill = this.prefill;
    this.#onSend(content, prefill ? { ...how, prefill } : how);
  }
  /** The start of the answer the person wrote ("" when the field is closed or empty). */
  get prefill() {
    return this.#prefillRow.hidden ? "" : this.#prefill.value;
  }
  /** On a phone, Prefill…, Compare… and Edit request… sit behind More… (app.css): it opens
   * them above the bar; choosing one, Escape or a click elsewhere closes it. */
  #installMore() {
    const toggle = one(this.#form, "[data-action='composer-more']");
    const menu = one(this.#form, "[data-composer-more]");
    const show = (open) => {
      this.#form.dataset.more = open ? "open" : "closed";
      toggle.setAttribute("aria-expanded", String(open));
    };
    toggle.addEventListener("click", () => show(this.#form.dataset.more !== "open"));
    menu.addEventListener("click", (event) => {
      if (event.target.closest("button")) show(false);
    });
    this.#form.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.#form.dataset.more === "open") {
        show(false);
        toggle.focus();
      }
    });
    document.addEventListener("pointerdown", (event) => {
      if (this.#form.dataset.more === "open" && !toggle.contains(event.target) && !menu.contains(event.target)) show(false);
    });
  }
  #togglePrefill() {
    const open = this.#prefillRow.hidden;
    this.#prefillRow.hidden = !open;
    this.#prefillToggle.setAttribute("aria-expanded", String(open));
    if (open) this.#prefill.focus();
  }
  /** The app accepted the message: clear the box, the files and the prefill. */
  sent() {
    this.#input.value = "";
    this.#prefill.value = "";
    this.#tray.clear();
    this.#changed();
  }
  /** The app learnt late that the message was taken (its start was lost with the socket):
   * clear it only if the box still holds what was sent; what was typed since stays. */
  sentIfStill(content) {
    if (JSON.stringify(this.content) === JSON.stringify(content)) this.sent();
  }
  #changed() {
    if (this.#conversationId) {
      saveComposerDraft(this.#conversationId, { text: this.#input.value, files: this.#tray.blocks });
    }
    this.#refresh();
  }
  showError(text2) {
    this.#error.textContent = text2;
    this.#error.hidden = !text2;
  }
  /** running: a run is live; held: a message sent waits for the socket to open (Send says
   * "Connecting…"); blockedReason: why nothing can be sent now ("" when it can); canRun: the
   * last user turn is unanswered, and `hint` says what to do about it; canJoin: new text may be
   * added to it instead of going alone; fix: {label, run} a way to what blocks Send (e.g. the
   * Variables fields), shown beside the reason. */
  update({ running, held = false, blockedReason: blockedReason2 = "", canRun: canRun2 = false, canJoin = false, hint = "", fix = (
    /** @type {{ label: string, run: () => void } | null} */
    null
  ), canContinue: canContinue2 = false, continueHint: continueHint2 = "" }) {
    this.#canContinue = canContinue2;
    this.#continueHint = continueHint2;
    this.#fixRun = fix?.run ?? null;
    this.#fix.textContent = fix?.label ?? "";
    this.#running = running;
    this.#held = held;
    this.#blocked = blockedReason2;
    this.#canRun = canRun2;
    this.#canJoin = canRun2 && canJoin;
    this.#hint = hint;
    this.#refresh();
  }
  #refresh() {
    this.#stop.hidden = !this.#running;
    this.#send.hidden = this.#running;
    const empty = !this.content.length;
    this.#send.disabled = this.#running || Boolean(this.#blocked) || empty || this.#tray.uploading;
    this.#send.textContent = this.#held ? "Connecting\u2026" : "Send";
    this.#input.readOnly = this.#held;
    this.#run.hidden = this.#running || !this.#canRun;
    this.#run.disabled = Boolean(this.#blocked);
    this.#continue.hidden = this.#running || !this.#canContinue;
    this.#continue.disabled = Boolean(this.#blocked);
    this.#continue.classList.toggle("btn-primary", empty);
    this.#join.hidden = this.#running || !this.#canJoin || empty;
    this.#join.disabled = this.#send.disabled;
    this.#send.classList.toggle("btn-primary", !(this.#canRun || this.#canContinue) || !empty);
    this.#run.classList.toggle("btn-primary", empty);
    let why = "";
    if (this.#running) why = "Waiting for the answer to finish. Stop (Esc) to cut it short.";
    else if (this.#blocked) why = this.#blocked;
    else if (this.#canRun) why = this.#hint;
    else if (this.#canContinue) why = this.#continueHint;
    this.#why.textContent = why;
    this.#fix.hidden = this.#running || !this.#blocked || !this.#fixRun;
    this.#form.dataset.waiting = why ? "true" : "false";
  }
};

// static/playground/thinking-view.js
var PREVIEW_CHARS = 160;
var cut = (text2, limit) => text2.length > limit ? `${text2.slice(0, limit)}\u2026` : text2;
function blockRow(block, source) {
  const row = el("li", { className: "sent-back-block", dataset: { type: block.type, signed: String(block.signature !== null) } });
  if (block.type === "redacted_thinking") {
    row.append(el("strong", { text: "redacted_thinking" }), ` \xB7 data, ${block.chars} chars, opaque: sent back as received`);
    row.append(el("code", { className: "sent-back-code", text: cut(String(source.data ?? ""), PREVIEW_CHARS) }));
    return row;
  }
  row.append(el("strong", { text: "thinking" }), ` \xB7 ${block.chars} chars \xB7 `);
  row.append(block.signature === null ? el("span", { className: "sent-back-unsigned", text: "no signature" }) : `signature, ${block.signature.length} chars`);
  row.append(el("q", { className: "sent-back-text", text: cut(String(source.thinking ?? ""), PREVIEW_CHARS) }));
  if (block.signature !== null) row.append(el("code", { className: "sent-back-code", text: block.signature }));
  return row;
}
function sentBackPanel(message, blocks, { latest, open }) {
  const signed = blocks.filter((block) => block.signature !== null).length;
  const details = el("details", { className: "sent-back", dataset: { sentBack: "true", latest: String(latest) } });
  details.open = open;
  details.append(
    el("summary", { text: `Sent back next turn: ${blocks.length} thinking block${blocks.length === 1 ? "" : "s"}, ${signed} signed` }),
    el("p", {
      className: "muted",
      text: latest ? "The latest assistant turn: these blocks go back exactly as received, signature and all; the API refuses a changed or missing one." : "An earlier turn: sent back as stored, like every turn; only the latest turn's thinking is checked."
    }),
    el("ol", { className: "sent-back-list" }, ...blocks.map((block) => blockRow(block, message.content[block.index])))
  );
  return details;
}
var ThinkingView = class {
  #turns;
  #banner;
  #guard;
  #guardText;
  /** @type {((value: any) => void) | null} */
  #answer = null;
  #open = /* @__PURE__ */ new Set();
  // message ids whose panel the person opened
  constructor(root) {
    this.#turns = one(root, "[data-turns]");
    this.#banner = one(root, "[data-thinking-warnings]");
    const dialog = one(root, "[data-thinking-guard]");
    this.#guard = new Modal(dialog, { onClose: () => this.#settle(false) });
    const { text: text2, go } = parts(dialog, { text: "[data-thinking-guard-text]", go: "[data-action='thinking-guard-go']" });
    this.#guardText = text2;
    go.addEventListener("click", () => {
      this.#settle(true);
      this.#guard.close();
    });
  }
  /** Draw the panels and the banner for `messages` under the `thinking` setting. */
  update(messages, { thinking }) {
    const latest = messages.findLastIndex((message) => message.role === "assistant");
    const drawn = /* @__PURE__ */ new Map();
    for (const article of this.#turns.querySelectorAll(".msg[data-message-id]")) {
      if (!drawn.has(article.dataset.messageId)) drawn.set(article.dataset.messageId, article);
    }
    messages.forEach((message, index) => {
      if (message.role !== "assistant") return;
      const article = drawn.get(String(message.id));
      if (!article) return;
      const blocks = sentBack(message.content);
      const old = article.querySelector(":scope > [data-sent-back]");
      const isLatest = String(index === latest);
      if (blocks.length === 0 || old && old.dataset.latest === isLatest) return;
      const panel = sentBackPanel(message, blocks, { latest: index === latest, open: this.#open.has(message.id) });
      panel.addEventListener("toggle", () => panel.open ? this.#open.add(message.id) : this.#open.delete(message.id));
      if (old) old.replaceWith(panel);
      else article.append(panel);
    });
    const warnings = historyWarnings(messages, { thinking });
    this.#banner.replaceChildren(...warnings.map((warning) => el("li", { text: warning.text, dataset: { code: warning.code, latest: String(warning.latest) } })));
    this.#banner.dataset.codes = warnings.map((warning) => warning.code).join(" ");
    this.#banner.hidden = warnings.length === 0;
  }
  /**
   * Ask before dropping the messages from `fromIndex` on (`action`: "edit" | "regenerate")
   * when that drops the latest turn's thinking; resolves true to go on.
   */
  confirmDrop(messages, fromIndex, { action }) {
    const dropped = droppedThinking(messages, fromIndex, { action });
    if (dropped === null) return Promise.resolve(true);
    this.#settle(false);
    this.#guardText.textContent = dropped.text;
    this.#guard.element.dataset.guardAction = action;
    return new Promise((resolve) => {
      this.#answer = resolve;
      this.#guard.open();
    });
  }
  #settle(value) {
    const answer = this.#answer;
    this.#answer = null;
    answer?.(value);
  }
};

// static/playground/debugger.js
var OPENERS = ["open-mocks", "open-replay", "edit-request", "answer-from-mocks"].map((action) => `[data-action='${action}']`).join(", ");
function stepModeLeftOn(conversationId) {
  try {
    return JSON.parse(localStorage.getItem(`pg:step-mode:${conversationId}`) ?? "null")?.enabled === true;
  } catch {
    return false;
  }
}
var Debugger = class {
  #root;
  #options;
  #state;
  /** @type {import("./debugger-tools.js").DebuggerTools | null} */
  #tools = null;
  // DebuggerTools, once built
  /** @type {Promise<void> | null} */
  #loading = null;
  // its import (a promise), started once
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
          this.#load().then(() => opener.click());
        },
        { signal: this.#openers.signal }
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
    return new URLSearchParams(window.location.search).has("replay_of") || tools.length > 0 || this.#options.data.mcp_enabled === true || state.live === null && pendingCalls(state).length > 0 || stepModeLeftOn(this.#options.data.conversation.id);
  }
  #load() {
    this.#loading ??= (async () => {
      this.#root.dataset.debugger = "loading";
      let module;
      try {
        module = await import("./debugger-tools.js");
      } catch (error) {
        this.#root.dataset.debugger = "failed";
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
};

// static/playground/export-menu.js
var SOURCE_NOTES = {
  next_request: "The body the next run would send (no key).",
  last_run: "The conversation ends with an answer: this is the body of the run that produced it, exactly as sent (no key).",
  rebuilt: "The last answer has no recorded run (forked or imported): rebuilt from the turns with the current settings (no key)."
};
async function fetchText(url) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json, text/plain, */*" } });
  } catch {
    throw new ApiError({ code: "network", message: "the server could not be reached" });
  }
  const text2 = await response.text();
  if (!response.ok) {
    let error = {};
    try {
      error = JSON.parse(text2).error ?? {};
    } catch {
    }
    throw new ApiError({
      code: error.code ?? `http_${response.status}`,
      message: error.message ?? `the server answered ${response.status}`,
      field: error.field ?? null,
      status: response.status
    });
  }
  return { text: text2, source: response.headers.get("X-Playground-Request-Source") ?? "" };
}
var Menu = class {
  #button;
  #list;
  constructor(root) {
    this.#button = one(root, "[data-action='toggle-export']");
    this.#list = one(root, "[role='menu']");
    this.#button.addEventListener("click", () => this.#list.hidden ? this.open(false) : this.close());
    this.#button.addEventListener("keydown", (event) => {
      if (event.key === "ArrowDown" || event.key === "ArrowUp") {
        event.preventDefault();
        this.open(event.key === "ArrowUp" ? -1 : 0);
      }
    });
    this.#list.addEventListener("keydown", (event) => this.#onKey(event));
    this.#list.addEventListener("click", (event) => {
      if (event.target.closest("[role='menuitem']")) this.close({ focus: false });
    });
    document.addEventListener("pointerdown", (event) => {
      if (!this.#list.hidden && !root.contains(event.target)) this.close({ focus: false });
    });
    root.addEventListener("focusout", (event) => {
      if (!this.#list.hidden && event.relatedTarget && !root.contains(event.relatedTarget)) this.close({ focus: false });
    });
  }
  get #items() {
    return [...this.#list.querySelectorAll("[role='menuitem']")];
  }
  /** Open; `focusIndex` false keeps focus on the button (a mouse click), -1 is the last item. */
  open(focusIndex) {
    this.#list.hidden = false;
    this.#button.setAttribute("aria-expanded", "true");
    if (focusIndex !== false) this.#items.at(focusIndex)?.focus();
  }
  close({ focus = true } = {}) {
    this.#list.hidden = true;
    this.#button.setAttribute("aria-expanded", "false");
    if (focus) this.#button.focus();
  }
  #onKey(event) {
    const items = this.#items;
    const index = items.indexOf(document.activeElement);
    const moves = { ArrowDown: index + 1, ArrowUp: index - 1, Home: 0, End: items.length - 1 };
    if (event.key in moves) {
      event.preventDefault();
      items.at(moves[event.key] % items.length)?.focus();
    } else if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      this.close();
    } else if (event.key === "Tab") {
      this.close({ focus: false });
    }
  }
};
var ExportMenu = class {
  #urls;
  #requestModal;
  #codeModal;
  #requestText = "";
  #codeTexts = /* @__PURE__ */ new Map();
  constructor(root, { requestDialog, codeDialog }) {
    this.#urls = { request: root.dataset.requestUrl, code: root.dataset.codeUrl };
    new Menu(root);
    this.#requestModal = new Modal(requestDialog);
    this.#codeModal = new Modal(codeDialog);
    const button = one(root, "[data-action='toggle-export']");
    one(root, "[data-export='request']").addEventListener("click", () => this.showRequest(button));
    one(root, "[data-export='code']").addEventListener("click", () => this.showCode(button));
    one(requestDialog, "[data-action='copy-request']").addEventListener(
      "click",
      (event) => copyText(event.currentTarget, this.#requestText)
    );
    this.#wireTabs(codeDialog);
  }
  async showRequest(opener) {
    const dialog = this.#requestModal.element;
    const pre = one(dialog, "[data-export-request-text]");
    const note = one(dialog, "[data-export-request-note]");
    const error = one(dialog, "[data-export-error]");
    pre.dataset.loaded = "false";
    pre.textContent = "Loading\u2026";
    note.textContent = "";
    showError(error, "");
    this.#requestModal.open(opener);
    try {
      const { text: text2, source } = await fetchText(this.#urls.request);
      this.#requestText = text2;
      pre.textContent = abbreviateBase64(text2);
      note.textContent = SOURCE_NOTES[source] ?? "";
      dialog.dataset.source = source;
      pre.dataset.loaded = "true";
    } catch (failure) {
      pre.textContent = "";
      showError(error, `Could not export: ${failure.message}`);
    }
  }
  async showCode(opener) {
    const dialog = this.#codeModal.element;
    this.#codeModal.open(opener);
    const error = one(dialog, "[data-export-error]");
    showError(error, "");
    const panels = [...dialog.querySelectorAll("[data-code-lang]")];
    await Promise.all(
      panels.map(async (panel) => {
        const pre = one(panel, "pre");
        pre.dataset.loaded = "false";
        pre.textContent = "Loading\u2026";
        try {
          const url = `${this.#urls.code}?lang=${encodeURIComponent(panel.dataset.codeLang)}`;
          const { text: text2 } = await fetchText(url);
          this.#codeTexts.set(panel.dataset.codeLang, text2);
          pre.textContent = abbreviateBase64(text2);
          pre.dataset.loaded = "true";
        } catch (failure) {
          pre.textContent = "";
          showError(error, `Could not make the snippet: ${failure.message}`);
        }
      })
    );
  }
  #wireTabs(dialog) {
    const tabs = [...dialog.querySelectorAll("[role='tab']")];
    const select = (tab, focus) => {
      for (const other of tabs) {
        const selected = other === tab;
        other.setAttribute("aria-selected", String(selected));
        other.tabIndex = selected ? 0 : -1;
        one(dialog, `#${other.getAttribute("aria-controls")}`).hidden = !selected;
      }
      if (focus) tab.focus();
    };
    tabs.forEach((tab, index) => {
      tab.addEventListener("click", () => select(tab, false));
      tab.addEventListener("keydown", (event) => {
        const moves = { ArrowRight: index + 1, ArrowLeft: index - 1, Home: 0, End: tabs.length - 1 };
        if (!(event.key in moves)) return;
        event.preventDefault();
        select(tabs.at(moves[event.key] % tabs.length), true);
      });
    });
    dialog.querySelectorAll("[data-code-lang]").forEach((panel) => {
      const pre = one(panel, "pre");
      one(panel, "[data-action='copy-code']").addEventListener(
        "click",
        (event) => copyText(event.currentTarget, pre.dataset.loaded === "true" ? this.#codeTexts.get(panel.dataset.codeLang) ?? "" : "")
      );
    });
    select(tabs[0], false);
  }
};

// static/playground/home-form.js
function installHomeForm(root, { profiles, urls }) {
  const form = root.querySelector("[data-new-conversation]");
  if (!form) return;
  const select = one(form, "[data-home-profile]");
  const model = form.elements.model;
  const list = one(form, "[data-home-models]");
  const chosen = () => profiles.find((profile) => profile.name === select.value);
  const suggestions = new ModelSuggestions({
    fetchModels: (profile) => apiFetch(fillUrl(urls.profile_models, { profile })),
    onLoaded: () => draw()
  });
  const draw = () => {
    const profile = chosen();
    list.replaceChildren(...suggestions.names(profile).map((name) => el("option", { attrs: { value: name } })));
    list.dataset.source = suggestions.source(profile?.name);
    const note = form.querySelector("[data-home-model-note]");
    if (note instanceof HTMLElement) {
      note.textContent = profile ? suggestions.note(profile.name) : "";
      note.hidden = !note.textContent;
    }
    const fallback = profile?.models?.[0];
    model.required = !fallback;
    model.placeholder = fallback ? `the upstream's default (${fallback})` : "required: this upstream names no default model";
  };
  select.addEventListener("change", () => {
    draw();
    suggestions.load(chosen()?.name);
  });
  draw();
  suggestions.load(chosen()?.name);
}

// static/playground/import-dialog.js
var DEFAULT_MAX_BYTES = 1024 * 1024;
var ImportDialog = class {
  #modal;
  #url;
  #form;
  #text;
  #file;
  #error;
  #maxBytes;
  constructor(dialog, { openers, maxBytes = DEFAULT_MAX_BYTES }) {
    this.#modal = new Modal(dialog);
    this.#url = dialog.dataset.importUrl;
    this.#maxBytes = maxBytes;
    this.#form = one(dialog, "[data-import-form]");
    this.#text = one(dialog, "[data-import-text]");
    this.#file = one(dialog, "[data-import-file]");
    this.#error = one(dialog, "[data-import-error]");
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
    this.#file.addEventListener("change", () => this.#readFile());
    this.#text.addEventListener("input", () => this.#setError(null));
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#submit();
    });
  }
  open(opener) {
    this.#setError(null);
    this.#modal.open(opener);
    this.#text.focus();
  }
  async #readFile() {
    const file = this.#file.files?.[0];
    if (!file) return;
    if (file.size > this.#maxBytes) {
      this.#setError({ message: `the file is ${file.size} bytes, over the limit of ${this.#maxBytes}`, field: "file" });
      return;
    }
    try {
      this.#text.value = await file.text();
      this.#setError(null);
    } catch {
      this.#setError({ message: "the file could not be read", field: "file" });
    }
  }
  #setError(error) {
    const input = error?.field === "file" ? this.#file : this.#text;
    this.#text.removeAttribute("aria-invalid");
    this.#file.removeAttribute("aria-invalid");
    if (!error) {
      showError(this.#error, "");
      return;
    }
    showError(this.#error, error);
    input.setAttribute("aria-invalid", "true");
    const field = error.field;
    const prefix = field ? `${field}: ` : "";
    if (field && error.message.startsWith(prefix)) {
      this.#error.replaceChildren(
        el("code", { className: "error-field", text: field }),
        document.createTextNode(`: ${error.message.slice(prefix.length)}`)
      );
    }
  }
  async #submit() {
    if (this.#form.dataset.busy === "true") return;
    const elements = this.#form.elements;
    const body = { request: this.#text.value };
    if (elements.profile.value) body.profile = elements.profile.value;
    if (elements.title.value.trim()) body.title = elements.title.value.trim();
    this.#form.dataset.busy = "true";
    const submit = this.#form.querySelector("button[type='submit']");
    submit.disabled = true;
    try {
      const conversation = await apiFetch(this.#url, { method: "POST", body });
      location.assign(conversation.url);
    } catch (error) {
      this.#setError(error);
      this.#text.focus();
    } finally {
      this.#form.dataset.busy = "false";
      submit.disabled = false;
    }
  }
};

// static/playground/run-request-diff.js
var RunRequestDiff = class {
  #root;
  #url;
  #note;
  #list;
  #token = 0;
  constructor(root, { runUrl }) {
    this.#root = root;
    this.#url = runUrl;
    ({ note: this.#note, list: this.#list } = parts(root, {
      note: "[data-run-request-diff-note]",
      list: "[data-run-request-diff-list]"
    }));
  }
  /** Show `run`'s request against the run `previousId` (null: the first run). */
  async show(run, previousId) {
    const token = ++this.#token;
    this.#root.dataset.runId = run.id;
    if (!previousId) {
      this.#list.replaceChildren();
      this.#note.textContent = "The first run of this conversation: nothing to compare with.";
      this.#root.dataset.state = "first";
      return;
    }
    this.#root.dataset.state = "loading";
    this.#note.textContent = "Loading the run before\u2026";
    try {
      const [before, { drawChanges }, { jsonDiff }] = await Promise.all([
        apiFetch(fillUrl(this.#url, { run_id: previousId })),
        import("./diff-view.js"),
        import("./json-diff.js")
      ]);
      if (token !== this.#token) return;
      const changes = jsonDiff(before.request ?? {}, run.request ?? {});
      this.#note.textContent = `Against the run before (${before.model} on ${before.profile}, ${before.status}).`;
      drawChanges(this.#list, changes, { empty: "The same request as the run before." });
      this.#root.dataset.state = "shown";
    } catch (error) {
      if (token !== this.#token) return;
      this.#note.textContent = `Could not load the run before: ${error.message}`;
      this.#list.replaceChildren();
      this.#root.dataset.state = "failed";
    }
  }
};

// static/playground/inspector.js
function fileReferences(body) {
  const found = { count: 0, bytes: 0 };
  const walk = (value) => {
    if (Array.isArray(value)) value.forEach(walk);
    else if (value && typeof value === "object") {
      if (value.source?.type === "attachment") {
        found.count += 1;
        found.bytes += Number(value.source.size) || 0;
      }
      Object.values(value).forEach(walk);
    }
  };
  walk(body);
  return found;
}
function requestNote(body) {
  const base = "The exact body sent upstream (no key).";
  const { count, bytes } = fileReferences(body);
  if (!count) return base;
  const size = bytes ? ` (${(bytes / 1024).toFixed(bytes < 10240 ? 1 : 0)} KB)` : "";
  const files = count === 1 ? "1 file is" : `${count} files are`;
  return `${base} ${files} shown by reference${size}: "source": {"type": "attachment", "sha256": \u2026}; the body sent held each file's bytes in base64 ("type": "base64", "data": \u2026) in its place.`;
}
var Inspector = class {
  #root;
  #urls;
  #select;
  #filter;
  #list;
  #summary;
  #request;
  #requestNote;
  #download;
  #runId = null;
  #events = [];
  #types = /* @__PURE__ */ new Set();
  #liveRunId = null;
  #loadToken = 0;
  /** @type {Array<{ id: string, label: string }>} */
  #runs = [];
  /** @type {Array<{ id: string, label: string }>} */
  #aside = [];
  /** @type {RunRequestDiff | null} */
  #runDiff = null;
  /**
   * What went on the wire, where the profile's adapter translates the body (hidden otherwise).
   * @param {{ body?: unknown, refused?: string } | null | undefined} wire
   */
  #showWire(wire) {
    const box = (
      /** @type {HTMLElement | null} */
      this.#root.querySelector("[data-inspector-wire]")
    );
    const body = this.#root.querySelector("[data-inspector-wire-body]");
    if (!box || !body) return;
    box.hidden = !wire;
    body.textContent = !wire ? "" : wire.refused ? `(refused: ${wire.refused})` : pretty(wire.body);
  }
  constructor(root, { urls }) {
    this.#root = root;
    this.#urls = urls;
    ({ select: this.#select, filter: this.#filter, list: this.#list, summary: this.#summary, request: this.#request, requestNote: this.#requestNote, download: this.#download } = parts(root, {
      select: "[data-inspector-run]",
      filter: "[data-inspector-filter]",
      list: "[data-inspector-events]",
      summary: "[data-inspector-summary]",
      request: "[data-inspector-request]",
      requestNote: "[data-inspector-request-note]",
      download: "[data-action='download-jsonl']"
    }));
    const diffRoot = root.querySelector("[data-run-request-diff]");
    if (diffRoot) this.#runDiff = new RunRequestDiff(diffRoot, { runUrl: urls.run });
    this.#select.addEventListener("change", () => this.show(this.#select.value));
    this.#filter.addEventListener("change", () => this.#applyFilter());
    one(root, "[data-action='copy-jsonl']").addEventListener("click", (event) => this.#copy(event.currentTarget));
    root.querySelectorAll("[data-tab]").forEach(
      (tab) => tab.addEventListener("click", () => this.#selectTab(tab.dataset.tab))
    );
  }
  get isOpen() {
    return !this.#root.hidden;
  }
  /** Runs to choose from, newest first: [{id, label}]. */
  setRuns(runs) {
    this.#runs = runs;
    this.#drawRuns();
  }
  /** A run beside the conversation (an MCP server's sampling answer, runs/aside.py), listed
   * after the conversation's own: {id, label}. */
  addAsideRun(run) {
    if (this.#aside.some((known) => known.id === run.id)) return;
    this.#aside.push(run);
    this.#drawRuns();
  }
  #drawRuns() {
    const current = this.#select.value;
    const runs = [...this.#runs, ...this.#aside];
    this.#select.replaceChildren(
      ...runs.map((run) => el("option", { text: run.label, attrs: { value: run.id } }))
    );
    if (runs.some((run) => run.id === current)) this.#select.value = current;
    if (runs.length === 0) this.#select.append(el("option", { text: "no runs yet", attrs: { value: "" } }));
  }
  #selectTab(name) {
    this.#root.querySelectorAll("[data-tab]").forEach((tab) => {
      tab.setAttribute("aria-selected", String(tab.dataset.tab === name));
    });
    this.#root.querySelectorAll("[data-tab-panel]").forEach((panel) => {
      panel.hidden = panel.dataset.tabPanel !== name;
    });
  }
  /** Show run `runId` (from the API unless it is the live run). */
  async show(runId) {
    if (!runId) return;
    this.#runId = runId;
    this.#root.dataset.runId = runId;
    this.#select.value = runId;
    this.#download.href = fillUrl(this.#urls.run_events, { run_id: runId });
    this.#download.hidden = false;
    const token = ++this.#loadToken;
    this.#root.dataset.loaded = "false";
    if (runId === this.#liveRunId) {
      this.#redraw();
    } else {
      this.#events = [];
      this.#redraw();
    }
    try {
      const [run, jsonl] = await Promise.all([
        apiFetch(fillUrl(this.#urls.run, { run_id: runId })),
        apiFetch(fillUrl(this.#urls.run_events, { run_id: runId }))
      ]);
      if (token !== this.#loadToken) return;
      this.#request.textContent = run.request ? pretty(run.request) : "(no request recorded)";
      this.#requestNote.textContent = requestNote(run.request);
      this.#showWire(run.wire_request);
      this.#runDiff?.show({ ...run, id: runId }, this.#runBefore(runId));
      if (runId !== this.#liveRunId) {
        this.#events = String(jsonl).split("\n").filter((line) => line.trim()).map((line) => JSON.parse(line));
        this.#redraw();
      }
      this.#summary.textContent = this.#summaryText(run);
    } catch (error) {
      if (token !== this.#loadToken) return;
      this.#summary.textContent = `Could not load the run: ${error.message}`;
    }
    this.#root.dataset.loaded = "true";
  }
  /** The next older run among the choices (they are listed newest first), or null. */
  #runBefore(runId) {
    const ids = [...this.#select.options].map((option) => option.value).filter(Boolean);
    const index = ids.indexOf(runId);
    return index >= 0 && index + 1 < ids.length ? ids[index + 1] : null;
  }
  #summaryText(run) {
    const count = `${this.#events.length} event${this.#events.length === 1 ? "" : "s"}`;
    const aside = run.purpose === "sampling" ? ` \xB7 an MCP server's sampling request, for the call ${run.tool_use_id ?? ""}` : "";
    return `${run.status} \xB7 ${count} \xB7 ${run.model} on ${run.profile}${aside}`;
  }
  /** A new live run: follow it if the person is looking at the live run (or at nothing). */
  liveStarted(runId) {
    const follow = this.#runId === null || this.#runId === this.#liveRunId;
    this.#liveRunId = runId;
    if (follow) {
      this.#runId = runId;
      this.#root.dataset.runId = runId;
      this.#events = [];
      this.#redraw();
    }
  }
  liveEvents(runId, events) {
    if (runId !== this.#liveRunId || runId !== this.#runId) return;
    const last = this.#events.at(-1)?.seq ?? 0;
    const fresh = events.filter((event) => event.seq > last);
    this.#events.push(...fresh);
    if (this.isOpen) this.#append(fresh);
  }
  liveFinished(runId) {
    if (runId === this.#liveRunId && runId === this.#runId && this.isOpen) this.show(runId);
  }
  /** The panel was opened: draw what it holds. */
  opened() {
    if (this.#runId) this.show(this.#runId);
    else if (this.#select.value) this.show(this.#select.value);
  }
  #redraw() {
    this.#list.replaceChildren();
    this.#types = /* @__PURE__ */ new Set();
    this.#append(this.#events);
    this.#summary.textContent = `${this.#events.length} events`;
  }
  #append(events) {
    const rows = events.map((event) => this.#row(event));
    this.#list.append(...rows);
    let added = false;
    for (const event of events) {
      if (!this.#types.has(event.type)) {
        this.#types.add(event.type);
        added = true;
      }
    }
    if (added) this.#drawFilter();
    this.#applyFilter();
    this.#root.dataset.eventCount = String(this.#events.length);
  }
  #row(event) {
    const details = el("details", { className: "event", dataset: { type: String(event.type), seq: String(event.seq) } });
    const summary = el(
      "summary",
      { className: "event-head" },
      el("span", { className: "event-t", text: `+${event.t} ms` }),
      el("span", { className: "event-type", text: String(event.type) }),
      el("span", { className: "event-seq muted", text: `#${event.seq}` })
    );
    const body = el("pre", { className: "json-view" });
    details.append(summary, body);
    details.addEventListener("toggle", () => {
      if (details.open && !body.textContent) body.textContent = pretty(event.data);
    });
    return details;
  }
  #drawFilter() {
    const current = this.#filter.value;
    const types = [...this.#types].sort();
    this.#filter.replaceChildren(
      el("option", { text: "all types", attrs: { value: "" } }),
      ...types.map((type) => el("option", { text: type, attrs: { value: type } }))
    );
    this.#filter.value = types.includes(current) ? current : "";
  }
  #applyFilter() {
    const type = this.#filter.value;
    for (const row of this.#list.children) row.hidden = Boolean(type) && row.dataset.type !== type;
  }
  /** The events shown (after the filter), one JSON object a line. */
  jsonl() {
    const type = this.#filter.value;
    return this.#events.filter((event) => !type || event.type === type).map((event) => JSON.stringify(event)).join("\n");
  }
  #copy(button) {
    return copyText(button, this.jsonl());
  }
};

// static/playground/page-chrome.js
var isDrawer = (node) => getComputedStyle(node).position === "fixed";
var SIDE_BY_SIDE_MIN = 1680;
var REMEMBERED = /* @__PURE__ */ new Set(["settings"]);
var rememberedKey = (name) => `pg:panel:${name}`;
function remembered(name) {
  try {
    return localStorage.getItem(rememberedKey(name));
  } catch {
    return null;
  }
}
function remember(name, open) {
  try {
    localStorage.setItem(rememberedKey(name), open ? "open" : "closed");
  } catch {
  }
}
var Panels = class {
  #root;
  #scrim;
  #panels = /* @__PURE__ */ new Map();
  /** @type {HTMLElement | null} */
  #opener = null;
  constructor(root) {
    this.#root = root;
    this.#scrim = root.querySelector("[data-scrim]");
    this.#scrim?.addEventListener("click", () => this.closeDrawers());
  }
  add(name, node, { onOpen = null, hiddenAttr = true, key = name } = {}) {
    const selector = `[data-action='toggle-${name}']`;
    const panel = { name, key, node, selector, onOpen, hiddenAttr };
    this.#panels.set(name, panel);
    this.#root.querySelectorAll(selector).forEach(
      (button) => button.addEventListener("click", (event) => {
        this.toggle(name, { opener: event.currentTarget });
        if (REMEMBERED.has(name) && !isDrawer(node)) remember(name, this.isOpen(name));
      })
    );
    return panel;
  }
  /** The state the person left a remembered panel in on an earlier page (beside the chat). */
  restore() {
    for (const panel of this.#panels.values()) {
      const state = REMEMBERED.has(panel.name) ? remembered(panel.name) : null;
      if (state && !isDrawer(panel.node)) this.#set(panel, state === "open");
    }
  }
  isOpen(name) {
    return this.#root.dataset[this.#panels.get(name).key] === "open";
  }
  toggle(name, options = {}) {
    if (this.isOpen(name)) this.close(name);
    else this.open(name, options);
  }
  /** @param {string} name @param {{ opener?: HTMLElement | null, focus?: boolean }} [options] */
  open(name, { opener = null, focus = true } = {}) {
    const panel = this.#panels.get(name);
    this.#set(panel, true);
    if (!isDrawer(panel.node) && panel.node.classList.contains("panel") && window.innerWidth < SIDE_BY_SIDE_MIN) {
      for (const other of this.#panels.values()) {
        if (other !== panel && other.node.classList.contains("panel") && this.isOpen(other.name)) this.#set(other, false);
      }
    }
    if (isDrawer(panel.node)) {
      for (const other of this.#panels.values()) if (other !== panel && this.isOpen(other.name) && isDrawer(other.node)) this.#set(other, false);
      this.#opener = opener?.closest("[data-topbar-menu]") ? one(this.#root, "[data-action='toggle-menu']") : opener ?? null;
      if (this.#scrim) this.#scrim.hidden = false;
      if (focus) (panel.node.querySelector("[data-action^='toggle-']") ?? panel.node).focus();
    }
    panel.onOpen?.();
  }
  close(name) {
    const panel = this.#panels.get(name);
    const wasDrawer = isDrawer(panel.node);
    const hadFocus = panel.node.contains(document.activeElement);
    this.#set(panel, false);
    if (!this.#anyDrawerOpen() && this.#scrim) this.#scrim.hidden = true;
    if (wasDrawer || hadFocus) {
      const back = this.#opener && this.#opener.isConnected && this.#opener.offsetParent !== null ? this.#opener : null;
      (back ?? this.#visibleToggle(panel))?.focus();
      this.#opener = null;
    }
  }
  /** Close every drawer (Esc, the scrim); true when one was open. */
  closeDrawers() {
    let closed = false;
    for (const panel of this.#panels.values()) {
      if (this.isOpen(panel.name) && isDrawer(panel.node)) {
        this.close(panel.name);
        closed = true;
      }
    }
    return closed;
  }
  /** A window that narrows into drawer mode (a rotated tablet, a resized window, devtools)
   * shuts the panels it would now lay over the chat, as a page opened there starts; one that
   * widens back takes the remembered state again (never written here: the desktop's choice is
   * kept). `probe` is a panel whose CSS says which mode the width is in. */
  followWidth(probe) {
    let drawers = isDrawer(probe);
    window.addEventListener("resize", () => {
      if (isDrawer(probe) === drawers) return;
      drawers = !drawers;
      if (drawers) this.settle();
      else this.restore();
    });
  }
  /** Drawer mode starts with the drawers shut: on a phone the page opens on the chat (before
   * this runs, app.css keeps a drawer the page was served open from showing). */
  settle() {
    for (const panel of this.#panels.values()) if (this.isOpen(panel.name) && isDrawer(panel.node)) this.#set(panel, false);
    if (this.#scrim) this.#scrim.hidden = !this.#anyDrawerOpen();
  }
  /** The panel that holds the focus, if it is open. */
  focusedPanel() {
    for (const panel of this.#panels.values()) if (this.isOpen(panel.name) && panel.node.contains(document.activeElement)) return panel.name;
    return null;
  }
  #anyDrawerOpen() {
    return [...this.#panels.values()].some((panel) => this.isOpen(panel.name) && isDrawer(panel.node));
  }
  #visibleToggle(panel) {
    return [...this.#root.querySelectorAll(panel.selector)].find((b) => !panel.node.contains(b) && b.offsetParent !== null) ?? null;
  }
  #set(panel, open) {
    if (panel.hiddenAttr) panel.node.hidden = !open;
    this.#root.dataset[panel.key] = open ? "open" : "closed";
    this.#root.querySelectorAll(panel.selector).forEach((b) => b.setAttribute("aria-expanded", String(open)));
  }
};
function installTopbarMenu(root) {
  const bar = one(root, "[data-topbar]");
  const button = one(bar, "[data-action='toggle-menu']");
  const menu = one(bar, "[data-topbar-menu]");
  const set = (open, { focus = false } = {}) => {
    bar.dataset.menu = open ? "open" : "closed";
    button.setAttribute("aria-expanded", String(open));
    if (open && focus) menu.querySelector("button, a")?.focus();
  };
  button.addEventListener("click", () => set(bar.dataset.menu !== "open", { focus: true }));
  menu.addEventListener("click", (event) => {
    const chosen = event.target.closest("button, a");
    if (chosen && chosen.dataset.action !== "toggle-export" && bar.dataset.menu === "open") set(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (bar.dataset.menu === "open" && !bar.contains(event.target)) set(false);
  });
  return {
    isOpen: () => bar.dataset.menu === "open",
    close: () => {
      set(false);
      button.focus();
    }
  };
}
function installEscape(panels, menu) {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
    if (document.querySelector("dialog[open]")) return;
    let handled = false;
    if (menu?.isOpen()) {
      menu.close();
      handled = true;
    } else if (panels.closeDrawers()) {
      handled = true;
    } else {
      const focused = panels.focusedPanel();
      if (focused) {
        panels.close(focused);
        handled = true;
      }
    }
    if (handled) event.preventDefault();
  });
}
function installHomeChrome(root) {
  const panels = new Panels(root);
  panels.add("sidebar", one(root, "[data-sidebar]"), { hiddenAttr: false, key: "conversations" });
  installEscape(panels, null);
  return panels;
}
function installPanels(root, { onInspectorOpened }) {
  const panels = new Panels(root);
  panels.add("sidebar", one(root, "[data-sidebar]"), { hiddenAttr: false, key: "conversations" });
  const settings = panels.add("settings", one(root, "[data-settings-panel]"));
  panels.add("inspector", one(root, "[data-inspector-panel]"), { onOpen: onInspectorOpened });
  const menu = installTopbarMenu(root);
  installEscape(panels, menu);
  panels.restore();
  panels.settle();
  panels.followWidth(settings.node);
  const help = one(root, "[data-help]");
  one(root, "[data-action='toggle-help']").addEventListener("click", (event) => {
    help.hidden = !help.hidden;
    event.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
  });
  return {
    openInspector() {
      if (!panels.isOpen("inspector")) panels.open("inspector", { focus: false });
    },
    openSettings() {
      if (!panels.isOpen("settings")) panels.open("settings");
    }
  };
}
function installRename(root, { currentTitle, onRename }) {
  const form = one(root, "[data-rename-form]");
  const input = form.elements.title;
  const title = one(root, "[data-conversation-title]");
  const renameButton = one(root, "[data-action='rename']");
  const close = () => {
    form.hidden = true;
    title.hidden = false;
    renameButton.hidden = false;
  };
  renameButton.addEventListener("click", () => {
    input.value = currentTitle();
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
    if (await onRename(input.value.trim())) close();
  });
}

// static/playground/tools-editor.js
var WEATHER = {
  name: "get_weather",
  description: "Current weather for a city.",
  input_schema: {
    type: "object",
    properties: {
      location: { type: "string", description: "City name, e.g. Paris" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] }
    },
    required: ["location"]
  }
};
var TIME = {
  name: "get_time",
  description: "Current local time in a city.",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"]
  }
};
var SEARCH = {
  name: "search_docs",
  description: "Search the documentation; returns the best passages.",
  input_schema: {
    type: "object",
    properties: {
      query: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 10 }
    },
    required: ["query"]
  }
};
var PRESETS = {
  weather: [WEATHER],
  weather_time: [WEATHER, TIME],
  search: [SEARCH],
  none: []
};
function checkTools(value, { namePattern, nameMax }) {
  if (!Array.isArray(value)) return [{ path: "tools", message: "must be a JSON array of tools" }];
  const problems2 = [];
  const seen = /* @__PURE__ */ new Set();
  value.forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool === null || typeof tool !== "object" || Array.isArray(tool)) {
      problems2.push({ path: where, message: "must be an object {name, description?, input_schema}" });
      return;
    }
    if ((tool.type ?? "custom") !== "custom") return;
    if (typeof tool.name !== "string" || !namePattern.test(tool.name)) {
      problems2.push({
        path: `${where}.name`,
        message: `name ${JSON.stringify(tool.name ?? null)} is invalid: use 1 to ${nameMax} letters, digits, _ or -`
      });
    } else if (seen.has(tool.name)) {
      problems2.push({ path: `${where}.name`, message: `duplicate name ${JSON.stringify(tool.name)}` });
    }
    if (typeof tool.name === "string") seen.add(tool.name);
    const schema = tool.input_schema;
    if (schema === null || typeof schema !== "object" || schema.type !== "object") {
      problems2.push({ path: `${where}.input_schema`, message: 'must be a JSON Schema with "type": "object"' });
    }
  });
  return problems2;
}
var ToolsEditor = class {
  #textarea;
  #status;
  #onChange;
  #limits;
  constructor(root, { onChange = () => {
  } } = {}) {
    this.#textarea = one(root, "[data-tools-json]");
    const { namePattern, nameMax } = this.#textarea.dataset;
    this.#limits = { namePattern: new RegExp(namePattern), nameMax: Number(nameMax) };
    this.#status = one(root, "[data-tools-status]");
    this.#onChange = onChange;
    const preset = one(root, "[data-tools-preset]");
    preset.addEventListener("change", () => {
      if (preset.value in PRESETS) this.setValue(PRESETS[preset.value]);
      preset.value = "";
      this.#onChange();
    });
    this.#textarea.addEventListener("input", () => {
      this.check();
      this.#onChange();
    });
  }
  setValue(tools) {
    this.#textarea.value = tools && tools.length ? JSON.stringify(tools, null, 2) : "";
    this.check();
  }
  /** {ok, value, problems}: an empty box means no tools. */
  check() {
    const text2 = this.#textarea.value.trim();
    let result;
    if (!text2) {
      result = { ok: true, value: [], problems: [] };
    } else {
      try {
        const value = JSON.parse(text2);
        const problems2 = checkTools(value, this.#limits);
        result = { ok: problems2.length === 0, value, problems: problems2 };
      } catch (error) {
        result = { ok: false, value: void 0, problems: [{ path: "tools", message: `invalid JSON: ${error.message}` }] };
      }
    }
    this.#show(result);
    return result;
  }
  /** Tool names from the box as it is now (for tool_choice and schema checks). */
  names() {
    const { value } = this.check();
    return Array.isArray(value) ? value.filter((t) => typeof t?.name === "string").map((t) => t.name) : [];
  }
  #show({ ok, value, problems: problems2 }) {
    this.#textarea.setAttribute("aria-invalid", ok ? "false" : "true");
    this.#status.dataset.state = ok ? "ok" : "error";
    if (!ok) {
      this.#status.textContent = problems2.map((p) => `${p.path}: ${p.message}`).join("\n");
    } else if (value.length === 0) {
      this.#status.textContent = "No tools.";
    } else {
      this.#status.textContent = `${value.length} tool${value.length > 1 ? "s" : ""}: ${value.map((t) => t.name).join(", ")}`;
    }
  }
};

// static/playground/output-schema-editor.js
function outputConfigOf(schema) {
  return schema ? { format: { type: "json_schema", schema } } : null;
}
function schemaOf(outputConfig) {
  const format = outputConfig?.format;
  return format?.type === "json_schema" && format.schema && typeof format.schema === "object" ? format.schema : null;
}
var OutputSchemaEditor = class {
  #textarea;
  #status;
  constructor(root, { onChange = () => {
  } } = {}) {
    this.#textarea = one(root, "[data-output-schema]");
    this.#status = one(root, "[data-output-schema-status]");
    this.#textarea.addEventListener("input", () => {
      this.check();
      onChange();
    });
  }
  setValue(outputConfig) {
    const schema = schemaOf(outputConfig);
    this.#textarea.value = schema ? JSON.stringify(schema, null, 2) : "";
    this.check();
  }
  /** {ok, value (the output_config or null), problems}. */
  check() {
    const text2 = this.#textarea.value.trim();
    let result = { ok: true, value: null, problems: [] };
    if (text2) {
      try {
        const schema = JSON.parse(text2);
        const isObject = schema !== null && typeof schema === "object" && !Array.isArray(schema);
        result = isObject && (typeof schema.type === "string" || Array.isArray(schema.type)) ? { ok: true, value: outputConfigOf(schema), problems: [] } : { ok: false, value: void 0, problems: [{ path: "schema", message: 'a JSON Schema object with a "type", e.g. {"type": "object", \u2026}' }] };
      } catch (error) {
        result = { ok: false, value: void 0, problems: [{ path: "schema", message: `invalid JSON: ${error.message}` }] };
      }
    }
    this.#textarea.setAttribute("aria-invalid", result.ok ? "false" : "true");
    this.#status.dataset.state = result.ok ? "ok" : "error";
    this.#status.textContent = result.ok ? result.value ? "The answer must be JSON that fits this schema." : "No structured output: the answer is free text." : result.problems.map((p) => `${p.path}: ${p.message}`).join("\n");
    return result;
  }
};

// static/playground/settings-fields.js
var FieldError = class extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
};
function optionalNumber(form, name, { integer }) {
  const raw = form.elements[name].value.trim();
  if (raw === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || integer && !Number.isInteger(value)) {
    throw new FieldError(name, `expected ${integer ? "an integer" : "a number"}, got ${JSON.stringify(raw)}`);
  }
  return value;
}
function problems(name, result) {
  return new FieldError(name, result.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
}
function readObject(name, text2) {
  if (text2.trim() === "") return {};
  let value;
  try {
    value = JSON.parse(text2);
  } catch (error) {
    throw new FieldError(name, `not valid JSON: ${error.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new FieldError(name, 'expected a JSON object {"name": value, \u2026}');
  }
  return value;
}
function showObject(value) {
  return value && Object.keys(value).length ? JSON.stringify(value, null, 2) : "";
}
var text = {
  load: ({ form }, row, value) => {
    form.elements[row.name].value = value ?? "";
  },
  collect: ({ form }, row) => form.elements[row.name].value
};
var number = {
  load: ({ form }, row, value) => {
    form.elements[row.name].value = value ?? "";
  },
  collect: ({ form }, row) => optionalNumber(form, row.name, { integer: row.type.type === "integer" })
};
var WIDGETS = {
  profile: text,
  model: { load: text.load, collect: ({ form }, row) => form.elements[row.name].value.trim() },
  textarea: text,
  integer: number,
  number,
  // One of the row's choices (its JSON Schema's enum); "" is unset (null).
  choice: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = value ?? "";
    },
    collect: ({ form }, row) => form.elements[row.name].value || null
  },
  lines: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = (value ?? []).join("\n");
    },
    collect: ({ form }, row) => form.elements[row.name].value.split("\n").filter((line) => line !== "")
  },
  thinking: {
    load: ({ form }, row, thinking) => {
      const type = thinking?.type === "enabled" || thinking?.type === "adaptive" ? thinking.type : "off";
      form.elements.thinking_type.value = type;
      if (thinking?.budget_tokens) form.elements.budget_tokens.value = thinking.budget_tokens;
    },
    collect: ({ form }, row) => {
      const type = form.elements.thinking_type.value;
      if (type === "adaptive") return { type: "adaptive" };
      if (type !== "enabled") return null;
      const budget = optionalNumber(form, "budget_tokens", { integer: true });
      if (budget === null) throw new FieldError(row.name, "enabled thinking needs a budget");
      return { type: "enabled", budget_tokens: budget };
    }
  },
  tools: {
    load: ({ tools }, row, value) => tools.setValue(value ?? []),
    collect: ({ tools }, row) => {
      const result = tools.check();
      if (!result.ok) throw problems(row.name, result);
      return result.value;
    }
  },
  output_config: {
    load: ({ output }, row, value) => output.setValue(value ?? null),
    collect: ({ output }, row) => {
      const result = output.check();
      if (!result.ok) throw problems(row.name, result);
      return result.value;
    }
  },
  tool_choice: {
    load: ({ form }, row, choice) => {
      const f = form.elements;
      f.tool_choice_type.value = choice?.type ?? "";
      f.tool_choice_name.value = choice?.name ?? "";
      f.disable_parallel_tool_use.checked = choice?.disable_parallel_tool_use === true;
    },
    collect: ({ form }) => {
      const f = form.elements;
      const type = f.tool_choice_type.value;
      if (!type) return null;
      const choice = { type };
      if (type === "tool") choice.name = f.tool_choice_name.value.trim();
      if (f.disable_parallel_tool_use.checked && type !== "none") choice.disable_parallel_tool_use = true;
      return choice;
    }
  },
  extra_fields: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = showObject(value);
    },
    collect: ({ form }, row) => readObject(row.name, form.elements[row.name].value)
  }
};
function collectFields(context, rows) {
  return Object.fromEntries(rows.map((row) => [row.name, WIDGETS[row.widget].collect(context, row)]));
}
function loadFields(context, rows, settings) {
  for (const row of rows) WIDGETS[row.widget].load(context, row, settings[row.name]);
}

// static/playground/settings-panel.js
function fieldRoot(path) {
  return String(path ?? "").split(/[.[]/)[0];
}
function fitThinking({ budget, maxTokens, fallback }) {
  const limit = maxTokens ?? fallback;
  if (!Number.isInteger(budget) || budget < 1 || limit === null || budget < limit) return null;
  return { budget, maxTokens: budget * 2, was: limit };
}
var SAVE_DELAY_MS = 600;
var CHOICE_DELAY_MS = 50;
var SettingsPanel = class {
  #form;
  #root;
  #profiles;
  #url;
  #tools;
  #output;
  #state;
  #error;
  #onSaved;
  #suggestions;
  #fields;
  #timer = 0;
  /** @type {Promise<boolean> | null} */
  #saving = null;
  // the save in flight (a promise of true/false)
  #edits = 0;
  // edits since the page loaded: a save answered after newer edits keeps them
  #lastError = "";
  /** fields: the settings table's rows the form shows (``settings_form``, in the page data);
   * suggestions: a ModelSuggestions (model-suggestions.js), or none for the configured list. */
  constructor(root, { fields, profiles, url, onSaved, suggestions = (
    /** @type {import("./model-suggestions.js").ModelSuggestions | null} */
    null
  ) }) {
    this.#root = root;
    this.#fields = fields;
    this.#suggestions = suggestions;
    this.#form = one(root, "[data-settings-form]");
    this.#profiles = profiles;
    this.#url = url;
    this.#onSaved = onSaved;
    this.#state = one(root, "[data-settings-state]");
    this.#error = one(root, "[data-settings-error]");
    this.#tools = new ToolsEditor(this.#form, { onChange: () => this.#dirty() });
    this.#output = new OutputSchemaEditor(this.#form, { onChange: () => this.#dirty() });
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save({ focus: true });
    });
    this.#form.addEventListener("input", (event) => {
      this.#dirty();
      const typed = event.target.matches?.("input:not([type=radio]):not([type=checkbox]), textarea");
      this.#schedule(typed ? SAVE_DELAY_MS : CHOICE_DELAY_MS);
    });
    this.#form.addEventListener("change", (event) => {
      if (["thinking_type", "budget_tokens", "max_tokens"].includes(event.target.name)) this.#fitThinking();
      this.#sync();
      this.#schedule(CHOICE_DELAY_MS);
    });
  }
  /** Tool name → input_schema from the saved settings (for the transcript's checks). */
  static schemas(settings) {
    const map = {};
    for (const tool of settings?.tools ?? []) {
      if (typeof tool?.name === "string") map[tool.name] = tool.input_schema ?? {};
    }
    return map;
  }
  load(settings) {
    loadFields(this.#context(), this.#fields, settings);
    this.#clearErrors();
    this.#sync();
    this.#setState("saved", "Saved");
  }
  #context() {
    return { form: this.#form, tools: this.#tools, output: this.#output };
  }
  /** Thinking turned on (or its budget or max_tokens changed) with a budget not below
   * max_tokens, which every upstream refuses: raise max_tokens, and say so beside it. */
  #fitThinking() {
    const f = this.#form.elements;
    const note = one(this.#form, "[data-thinking-note]");
    note.hidden = true;
    if (f.thinking_type.value !== "enabled") return;
    const number2 = (name) => {
      const raw = f[name].value.trim();
      return raw === "" ? null : Number(raw);
    };
    const fallback = this.#fields.find((row) => row.name === "max_tokens")?.default ?? null;
    const fit = fitThinking({ budget: number2("budget_tokens"), maxTokens: number2("max_tokens"), fallback });
    if (!fit) return;
    f.max_tokens.value = String(fit.maxTokens);
    note.textContent = `max_tokens raised from ${fit.was} to ${fit.maxTokens}: the thinking budget (${fit.budget}) must be below it.`;
    note.hidden = false;
  }
  /** Show/hide dependent fields and refresh the model suggestions. */
  #sync() {
    const f = this.#form.elements;
    const profile = this.#profiles.find((p) => p.name === f.profile.value);
    this.suggestionsChanged(profile);
    one(this.#form, "[data-thinking-budget]").hidden = f.thinking_type.value !== "enabled";
    one(this.#form, "[data-tool-choice-name]").hidden = f.tool_choice_type.value !== "tool";
  }
  /** Redraw the model field's datalist (the upstream's list may have arrived). */
  suggestionsChanged(profile = this.#profiles.find((p) => p.name === this.#form.elements.profile.value)) {
    const list = one(this.#form, "[data-model-suggestions]");
    const names = this.#suggestions ? this.#suggestions.names(profile) : profile?.models ?? [];
    list.replaceChildren(...names.map((m) => el("option", { attrs: { value: m } })));
    if (!this.#suggestions || !profile) return;
    list.dataset.source = this.#suggestions.source(profile.name);
    const note = this.#form.querySelector("[data-model-note]");
    if (note instanceof HTMLElement) {
      note.textContent = this.#suggestions.note(profile.name);
      note.hidden = !note.textContent;
    }
    this.#suggestions.load(profile.name);
  }
  #dirty() {
    this.#edits += 1;
    this.#setState("dirty", "Saving soon\u2026");
  }
  #schedule(delay) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.save(), delay);
  }
  get dirty() {
    return this.#root.dataset.settingsState !== "saved";
  }
  /** Save what is typed now, if anything; resolves to "" when saved, else what is wrong. */
  async flush() {
    if (!this.dirty) return "";
    const ok = await this.save();
    return ok ? "" : this.#lastError || "the settings could not be saved";
  }
  #setState(state, text2) {
    this.#root.dataset.settingsState = state;
    this.#state.textContent = text2;
  }
  /** The form as the API's settings fields; throws FieldError for a value not of its kind. */
  collect() {
    return collectFields(this.#context(), this.#fields);
  }
  /** Save the form now (after the save in flight, if any); resolves to true once saved. */
  async save({ focus = false } = {}) {
    clearTimeout(this.#timer);
    while (this.#saving) await this.#saving;
    if (!this.dirty) return true;
    this.#saving = this.#saveNow({ focus });
    try {
      return await this.#saving;
    } finally {
      this.#saving = null;
    }
  }
  async #saveNow({ focus }) {
    this.#clearErrors();
    let body;
    try {
      body = this.collect();
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      this.#showError(error.field, error.message, { focus });
      return false;
    }
    const edits = this.#edits;
    this.#setState("saving", "Saving\u2026");
    try {
      const conversation = await apiFetch(this.#url, { method: "PATCH", body });
      this.#onSaved(conversation);
      if (conversation.profile_check) showProfileCheck(one(this.#form, "[data-profile-check]"), conversation.profile_check);
      if (edits === this.#edits) this.load(conversation.settings);
      else this.#setState("dirty", "Saving soon\u2026");
      return edits === this.#edits;
    } catch (error) {
      this.#showError(error.field, error.message, { focus });
      return false;
    }
  }
  #clearErrors() {
    this.#form.querySelectorAll(".field-error[data-error-for]").forEach((node) => node.remove());
    this.#form.querySelectorAll("[aria-invalid='true']:not([data-tools-json])").forEach((node) => node.removeAttribute("aria-invalid"));
    this.#error.hidden = true;
    this.#error.textContent = "";
  }
  /** Put the message next to the field it names; unnamed errors go to the form's line. */
  #showError(path, message, { focus = true } = {}) {
    this.#setState("error", "Not saved");
    const root = fieldRoot(path);
    const name = root === "budget_tokens" ? "thinking" : root;
    const field = name ? this.#form.querySelector(`[data-field="${CSS.escape(name)}"]`) : null;
    const text2 = path && !String(message).includes(path) ? `${path}: ${message}` : message;
    this.#lastError = text2;
    if (!field) {
      this.#error.textContent = text2;
      this.#error.hidden = false;
      return;
    }
    const container = field.closest(".field") ?? field;
    const error = el("p", { className: "field-error", text: text2, attrs: { role: "alert" }, dataset: { errorFor: name } });
    container.append(error);
    const control = field.matches("input, select, textarea") ? field : field.querySelector("input, select, textarea");
    control?.setAttribute("aria-invalid", "true");
    if (focus) control?.focus();
  }
};
function showProfileCheck(box, { dialect, was, refused, changes }) {
  const lines = [];
  if (refused) {
    const where = refused.field ? ` (${refused.field})` : "";
    lines.push(el("p", { className: "profile-check-refused", text: `The ${dialect} rules refuse this conversation: ${refused.message}${where}. Send is refused until it changes.` }));
  }
  if (changes.length) {
    lines.push(el("p", { text: `Moving from the ${was} rules to the ${dialect} rules:` }));
    lines.push(el("ul", {}, ...changes.map((change) => el("li", { text: change }))));
  }
  if (!lines.length) lines.push(el("p", { className: "muted", text: `Checked by the ${dialect} rules: nothing in this conversation changes.` }));
  box.replaceChildren(...lines);
  box.dataset.refused = refused ? "true" : "false";
  box.hidden = false;
}

// static/playground/share-dialog.js
function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "");
  return date.toLocaleString(void 0, { dateStyle: "medium", timeStyle: "short" });
}
function checkbox(name, label, checked) {
  const input = el("input", { attrs: { type: "checkbox", name } });
  input.checked = checked;
  return { input, label: el("label", { className: "check" }, input, document.createTextNode(` ${label}`)) };
}
var ShareDialog = class {
  #modal;
  #root;
  #url;
  #list;
  #empty;
  #error;
  #newBox;
  #newUrl;
  #createForm;
  constructor(root, { opener }) {
    this.#root = root;
    this.#url = root.dataset.sharesUrl;
    this.#modal = new Modal(root, { onClose: () => this.#forgetLink() });
    ({ list: this.#list, empty: this.#empty, error: this.#error, newBox: this.#newBox, newUrl: this.#newUrl, createForm: this.#createForm } = parts(root, {
      list: "[data-share-list]",
      empty: "[data-share-empty]",
      error: "[data-share-error]",
      newBox: "[data-share-new]",
      newUrl: "[data-share-new-url]",
      createForm: "[data-share-create]"
    }));
    this.#createForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#create();
    });
    one(root, "[data-action='copy-share-link']").addEventListener(
      "click",
      (event) => copyText(event.currentTarget, this.#newUrl.value)
    );
    this.#newUrl.addEventListener("focus", () => this.#newUrl.select());
    opener.addEventListener("click", () => this.open(opener));
  }
  open(opener) {
    this.#forgetLink();
    showError(this.#error, "");
    this.#modal.open(opener);
    this.refresh();
  }
  async refresh() {
    this.#list.dataset.state = "loading";
    try {
      const { shares } = await apiFetch(this.#url);
      this.#draw(shares.filter((share) => share.active));
    } catch (error) {
      showError(this.#error, `Could not load the links: ${error.message}`);
    }
    this.#list.dataset.state = "ready";
  }
  #draw(shares) {
    this.#list.replaceChildren(...shares.map((share) => this.#item(share)));
    this.#empty.hidden = shares.length > 0;
  }
  #options(form) {
    return {
      include_thinking: form.elements.include_thinking.checked,
      include_tools: form.elements.include_tools.checked
    };
  }
  async #create() {
    const button = this.#createForm.querySelector("button[type='submit']");
    button.disabled = true;
    try {
      const created = await apiFetch(this.#url, { method: "POST", body: this.#options(this.#createForm) });
      this.#showLink(created.url, "Your new link");
      showError(this.#error, "");
      await this.refresh();
    } catch (error) {
      showError(this.#error, error);
    } finally {
      button.disabled = false;
    }
  }
  #showLink(url, heading) {
    one(this.#newBox, "[data-share-new-heading]").textContent = heading;
    this.#newUrl.value = url;
    this.#newBox.hidden = false;
    this.#root.dataset.newLink = "shown";
    this.#newUrl.focus();
  }
  #forgetLink() {
    this.#newUrl.value = "";
    this.#newBox.hidden = true;
    delete this.#root.dataset.newLink;
  }
  #item(share) {
    const thinking = checkbox("include_thinking", "thinking", share.include_thinking);
    const tools = checkbox("include_tools", "tool calls and results", share.include_tools);
    const update = el("button", { className: "btn btn-small", text: "Update snapshot", attrs: { type: "submit" } });
    const rotate = el("button", {
      className: "btn btn-small",
      text: "New link",
      attrs: { type: "button", title: "Replace the link: the old one stops working" }
    });
    const revoke = el("button", { className: "btn btn-small btn-danger-outline", text: "Revoke", attrs: { type: "button" } });
    const hidden = [];
    if (!share.include_thinking) hidden.push("no thinking");
    if (!share.include_tools) hidden.push("no tool calls");
    const form = el(
      "form",
      { className: "share-item-form" },
      el(
        "div",
        { className: "share-item-head" },
        el("code", { className: "share-hint", text: `/s/${share.token_hint}\u2026` }),
        el("span", {
          className: "muted share-item-meta",
          text: [
            `${share.message_count} message${share.message_count === 1 ? "" : "s"}`,
            `created ${when(share.created_at)}`,
            `snapshot ${when(share.snapshot_at)}`,
            ...hidden
          ].join(" \xB7 ")
        })
      ),
      el("fieldset", { className: "share-item-options" }, el("legend", { className: "sr-only", text: "Include" }), thinking.label, tools.label),
      el("div", { className: "share-item-actions" }, update, rotate, revoke)
    );
    const item2 = el("li", { className: "share-item", dataset: { shareId: share.id } }, form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#patch(share, { ...this.#options(form) });
    });
    rotate.addEventListener("click", () => this.#patch(share, { ...this.#options(form), rotate: true }));
    revoke.addEventListener("click", () => this.#revoke(share, revoke));
    return item2;
  }
  async #patch(share, body) {
    try {
      const answer = await apiFetch(share.api_url, { method: "PATCH", body });
      if (answer.url) this.#showLink(answer.url, "Your new link (the old one no longer works)");
      showError(this.#error, "");
      await this.refresh();
    } catch (error) {
      showError(this.#error, error);
    }
  }
  async #revoke(share, button) {
    if (button.dataset.confirm !== "true") {
      button.dataset.confirm = "true";
      button.textContent = "Confirm revoke";
      button.setAttribute("aria-label", `Confirm revoking /s/${share.token_hint}\u2026`);
      return;
    }
    try {
      await apiFetch(share.api_url, { method: "DELETE" });
      showError(this.#error, "");
    } catch (error) {
      showError(this.#error, error);
    }
    await this.refresh();
    this.#createForm.querySelector("button[type='submit']").focus();
  }
};

// static/playground/shortcuts.js
function installShortcuts({ onSend, onStop, onNew }) {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    if (event.key === "Escape" && onStop) {
      if (onStop()) event.preventDefault();
      return;
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && onSend) {
      event.preventDefault();
      onSend();
      return;
    }
    if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === "KeyN" && onNew) {
      event.preventDefault();
      onNew();
    }
  });
}

// static/playground/search.js
var WORD = /[\p{L}\p{N}_]+/gu;
var TERMS_MAX = 8;
var WORD_MAX = 64;
function termsOf(query) {
  const words = (String(query ?? "").match(WORD) ?? []).map((word) => word.slice(0, WORD_MAX).toLowerCase());
  return [...new Set(words)].slice(0, TERMS_MAX);
}
function matchRanges(text2, terms) {
  if (terms.length === 0) return [];
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.join("|")})[\\p{L}\\p{N}_]*`, "giu");
  const ranges = [];
  for (const match of text2.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  return ranges;
}
function queryOf(search) {
  return new URLSearchParams(search).get("q") ?? "";
}

// static/playground/search-highlight.js
function decorateResult(link, main2, summary, query) {
  if (!summary.match || !query) return;
  const url = new URL(summary.url, location.href);
  url.searchParams.set("q", query);
  link.href = url.pathname + url.search;
  const snippet = el("span", { className: "sidebar-snippet muted", dataset: { searchSnippet: "" } });
  appendMarked(snippet, summary.match.snippet, termsOf(query));
  main2.append(snippet);
}
function appendMarked(parent, text2, terms) {
  let at = 0;
  for (const [start, end] of matchRanges(text2, terms)) {
    parent.append(text2.slice(at, start), el("mark", { className: "search-hit", text: text2.slice(start, end) }));
    at = end;
  }
  parent.append(text2.slice(at));
}
function highlightTurns(root, transcript, query) {
  const terms = termsOf(query);
  const texts = [];
  for (const turn of transcript.querySelectorAll(".msg")) {
    const walker = document.createTreeWalker(turn, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement?.closest("button, mark")) texts.push(
        /** @type {Text} */
        node
      );
    }
  }
  let count = 0;
  for (const node of texts) {
    const ranges = matchRanges(node.data, terms);
    if (ranges.length === 0) continue;
    const pieces = document.createDocumentFragment();
    appendMarked(pieces, node.data, terms);
    count += ranges.length;
    node.replaceWith(pieces);
  }
  root.dataset.searchHits = String(count);
  transcript.querySelector("mark.search-hit")?.scrollIntoView({ block: "center" });
  return count;
}

// static/playground/sidebar.js
var FILTER_DELAY_MS = 150;
var PAGE_SIZE = 50;
var MAX_PAGE_SIZE = 500;
var UNTITLED = "Untitled";
var Sidebar = class {
  #root;
  #list;
  #empty;
  #error;
  #filter;
  #urls;
  #currentId;
  #timer = 0;
  #onRenamed;
  #more;
  #next = null;
  // the cursor of the page after the last one shown, or null
  #wanted = PAGE_SIZE;
  // how many a refresh asks for: as many as were shown
  constructor(root, { urls, currentId = null, onRenamed = (
    /** @type {(summary: any) => void} */
    (() => {
    })
  ) }) {
    this.#root = root;
    this.#urls = urls;
    this.#currentId = currentId;
    this.#onRenamed = onRenamed;
    ({ list: this.#list, empty: this.#empty, error: this.#error, filter: this.#filter, more: this.#more } = parts(root, {
      list: "[data-sidebar-list]",
      empty: "[data-sidebar-empty]",
      error: "[data-sidebar-error]",
      filter: "[data-sidebar-filter]",
      more: "[data-action='sidebar-more']"
    }));
    this.#filter.addEventListener("input", () => {
      clearTimeout(this.#timer);
      this.#wanted = PAGE_SIZE;
      this.#timer = setTimeout(() => this.refresh(), FILTER_DELAY_MS);
    });
    this.#more.addEventListener("click", () => this.showOlder());
    one(root, "[data-action='new-conversation']").addEventListener("click", () => this.create());
  }
  async refresh() {
    const query = this.#filter.value.trim();
    this.#list.dataset.state = "loading";
    try {
      const page = await apiFetch(this.#pageUrl(query, Math.min(this.#wanted, MAX_PAGE_SIZE)));
      if (query !== this.#filter.value.trim()) return;
      this.#draw(page.conversations);
      this.#setNext(page.next);
      this.#showError("");
    } catch (error) {
      this.#showError(`Could not load conversations: ${error.message}`);
    }
    this.#list.dataset.state = "ready";
  }
  /** Append the page after the last one shown. */
  async showOlder() {
    const query = this.#filter.value.trim();
    const before = this.#next;
    if (before === null) return;
    this.#more.disabled = true;
    try {
      const page = await apiFetch(this.#pageUrl(query, PAGE_SIZE, before));
      if (query !== this.#filter.value.trim() || before !== this.#next) return;
      const shown = new Set([...this.#list.children].map((item2) => item2.dataset.conversationId));
      const older = page.conversations.filter((summary) => !shown.has(summary.id));
      const items = older.map((summary) => this.#item(summary));
      this.#list.append(...items);
      this.#wanted = this.#list.children.length;
      const hadFocus = document.activeElement === this.#more;
      this.#setNext(page.next);
      if (hadFocus && this.#more.hidden) items[0]?.querySelector("a")?.focus();
      this.#showError("");
    } catch (error) {
      this.#showError(`Could not load older conversations: ${error.message}`);
    } finally {
      this.#more.disabled = false;
    }
  }
  #pageUrl(query, limit, before = null) {
    const params = new URLSearchParams({ q: query, limit: String(limit) });
    if (before !== null) params.set("before", before);
    return `${this.#urls.api_conversations}?${params}`;
  }
  #setNext(next) {
    this.#next = next ?? null;
    this.#more.hidden = this.#next === null;
  }
  /** Open a new conversation: the newest one still as created, or a new one (the server's
   * choice), so clicking again and again leaves no trail of Untitled entries. Already on it,
   * the page stays (a reload would drop what is being typed) and the composer takes the focus. */
  async create() {
    try {
      const conversation = await apiFetch(`${this.#urls.api_conversations}?reuse=untouched`, {
        method: "POST",
        body: {}
      });
      if (conversation.id === this.#currentId) {
        document.querySelector("[data-composer-input]")?.focus();
        return;
      }
      location.assign(conversation.url);
    } catch (error) {
      this.#showError(`Could not create a conversation: ${error.message}`);
    }
  }
  #showError(text2) {
    this.#error.textContent = text2;
    this.#error.hidden = !text2;
  }
  #draw(conversations) {
    const current = conversations.find((summary) => summary.id === this.#currentId);
    if (current) this.#onRenamed(current);
    this.#list.replaceChildren(...conversations.map((summary) => this.#item(summary)));
    this.#empty.hidden = conversations.length > 0;
    this.#empty.textContent = this.#filter.value.trim() ? "No conversations match." : "No conversations yet: New conversation starts one.";
  }
  #item(summary) {
    const current = summary.id === this.#currentId;
    const link = el("a", {
      className: "sidebar-link",
      text: summary.shown_title || summary.title || UNTITLED,
      attrs: { href: summary.url, title: summary.shown_title || summary.title || UNTITLED }
    });
    if (current) link.setAttribute("aria-current", "page");
    const meta = el("span", { className: "sidebar-meta", text: summary.model });
    link.setAttribute("aria-describedby", "sidebar-keys");
    const rename = el("button", {
      className: "icon-btn",
      text: "Rename",
      attrs: { type: "button", tabindex: "-1", "aria-label": `Rename ${summary.title || UNTITLED}` }
    });
    const remove = el("button", {
      className: "icon-btn icon-btn-danger",
      text: "Delete",
      attrs: { type: "button", tabindex: "-1", "aria-label": `Delete ${summary.title || UNTITLED}` }
    });
    const main2 = el("div", { className: "sidebar-main" }, link, meta);
    decorateResult(link, main2, summary, this.#filter.value.trim());
    const item2 = el(
      "li",
      { className: "sidebar-item", dataset: { conversationId: summary.id } },
      main2,
      el("div", { className: "sidebar-actions" }, rename, remove)
    );
    if (current) item2.dataset.current = "true";
    const stops = [link, rename, remove];
    item2.addEventListener("keydown", (event) => {
      const at = stops.indexOf(
        /** @type {any} */
        event.target
      );
      if (at < 0 || event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      event.preventDefault();
      const next = stops[Math.min(stops.length - 1, Math.max(0, at + (event.key === "ArrowRight" ? 1 : -1)))];
      next.focus();
    });
    rename.addEventListener("click", () => this.#startRename(item2, summary));
    remove.addEventListener("click", () => this.#delete(item2, remove, summary));
    return item2;
  }
  #startRename(item2, summary) {
    const input = el("input", {
      className: "input input-small",
      attrs: { "aria-label": "New title", maxlength: "200" }
    });
    input.value = summary.title;
    const form = el("form", { className: "sidebar-rename" }, input);
    item2.replaceChildren(form);
    input.focus();
    input.select();
    const done = async (save) => {
      if (form.dataset.done) return;
      form.dataset.done = "true";
      if (save && input.value.trim() !== summary.title) {
        await this.rename(summary, input.value.trim());
      }
      await this.refresh();
    };
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      done(true);
    });
    input.addEventListener("keydown", (event) => {
      if (event.key === "Escape") {
        event.stopPropagation();
        done(false);
      }
    });
    input.addEventListener("blur", () => done(true));
  }
  async rename(summary, title) {
    const url = this.#urls.api_conversations + encodeURIComponent(summary.id) + "/";
    try {
      const updated = await apiFetch(url, { method: "PATCH", body: { title } });
      if (summary.id === this.#currentId) this.#onRenamed(updated);
    } catch (error) {
      this.#showError(`Could not rename: ${error.message}`);
    }
  }
  async #delete(item2, button, summary) {
    if (button.dataset.confirm !== "true") {
      button.dataset.confirm = "true";
      button.textContent = "Confirm";
      button.setAttribute("aria-label", `Confirm deleting ${summary.title || UNTITLED}`);
      return;
    }
    const url = this.#urls.api_conversations + encodeURIComponent(summary.id) + "/";
    try {
      await apiFetch(url, { method: "DELETE" });
    } catch (error) {
      this.#showError(`Could not delete: ${error.message}`);
      return;
    }
    if (summary.id === this.#currentId) {
      location.assign(this.#urls.home);
      return;
    }
    item2.remove();
    await this.refresh();
  }
};

// static/playground/socket.js
var FINAL_CODES = /* @__PURE__ */ new Set([4403, 4404]);
var BASE_DELAY_MS = 500;
var MAX_DELAY_MS = 1e4;
var HEARTBEAT_MS = 3e3;
var PONG_TIMEOUT_MS = 3e3;
var ConversationSocket = class {
  #url;
  #onFrame;
  #onState;
  /** @type {WebSocket | null} */
  #ws = null;
  #attempt = 0;
  #timer = 0;
  #closedByUs = false;
  #heartbeat = 0;
  #deadline = 0;
  #pingId = 0;
  #maxBytes;
  constructor(path, { onFrame, onState, maxBytes = Infinity }) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.#url = `${scheme}//${location.host}${path}`;
    this.#onFrame = onFrame;
    this.#onState = onState;
    this.#maxBytes = maxBytes;
  }
  get isOpen() {
    return this.#ws !== null && this.#ws.readyState === WebSocket.OPEN;
  }
  connect() {
    clearTimeout(this.#timer);
    this.#onState("connecting", { attempt: this.#attempt });
    const ws = new WebSocket(this.#url);
    this.#ws = ws;
    ws.addEventListener("open", () => {
      this.#attempt = 0;
      this.#onState("open", {});
      this.#startHeartbeat(ws);
    });
    ws.addEventListener("message", (event) => {
      if (this.#ws === ws) this.#alive();
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return;
      }
      if (frame?.type === "pong") return;
      this.#onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      this.#stopHeartbeat();
      if (this.#closedByUs) return;
      if (FINAL_CODES.has(event.code)) {
        this.#onState("refused", { code: event.code });
        return;
      }
      this.#scheduleReconnect();
    });
  }
  #startHeartbeat(ws) {
    this.#stopHeartbeat();
    this.#heartbeat = setInterval(() => {
      if (this.#ws !== ws || ws.readyState !== WebSocket.OPEN) return;
      this.#pingId += 1;
      ws.send(JSON.stringify({ action: "ping", id: this.#pingId }));
      if (this.#deadline === 0) this.#deadline = setTimeout(() => this.#dead(ws), PONG_TIMEOUT_MS);
    }, HEARTBEAT_MS);
  }
  #alive() {
    clearTimeout(this.#deadline);
    this.#deadline = 0;
  }
  #stopHeartbeat() {
    clearInterval(this.#heartbeat);
    this.#alive();
  }
  /** No answer to a ping: drop this socket (its close event may never come) and reconnect. */
  #dead(ws) {
    if (this.#ws !== ws) return;
    this.#ws = null;
    this.#stopHeartbeat();
    ws.close();
    this.#scheduleReconnect({ reason: "heartbeat" });
  }
  #scheduleReconnect(extra = {}) {
    const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.#attempt);
    const jittered = Math.round(delay * (0.75 + Math.random() * 0.5));
    this.#attempt += 1;
    this.#onState("closed", { retryInMs: jittered, attempt: this.#attempt, ...extra });
    this.#timer = setTimeout(() => this.connect(), jittered);
  }
  /** Reconnect now (the "retry" button), skipping the wait. */
  retryNow() {
    if (this.#ws === null) this.connect();
  }
  /** Send one action; false when the socket is not open (the caller says so). */
  send(action) {
    const ws = this.#ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) return false;
    const text2 = JSON.stringify(action);
    const size = new TextEncoder().encode(text2).length;
    if (size > this.#maxBytes) {
      const message = `this is ${size} bytes, over the limit of ${this.#maxBytes} bytes; nothing was sent`;
      const frame = { type: "error", action: action.action, error: { code: "too_large", message } };
      setTimeout(() => this.#onFrame(frame), 0);
      return true;
    }
    ws.send(text2);
    return true;
  }
  close() {
    this.#closedByUs = true;
    this.#stopHeartbeat();
    clearTimeout(this.#timer);
    this.#ws?.close();
  }
};

// static/playground/output-check.js
var NOT_YET = /* @__PURE__ */ new Set(["missing", "required", "minItems", "minProperties", "minLength", "minContains", "dependentRequired"]);
function answerText(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((block) => block?.type === "text").map((block) => block.text ?? "").join("");
}
function checkOutput(text2, schema, { partial = false } = {}) {
  const parser = new IncrementalJsonParser();
  parser.feed(text2);
  if (parser.error !== null) {
    return { state: "failed", problems: [{ path: "$", message: `not JSON: ${parser.error.message} (at character ${parser.error.offset})` }] };
  }
  if (partial && !parser.done) {
    const known = parser.value({ trailingStrings: false });
    const problems3 = known === void 0 ? [] : validateAgainstSchema(known, schema).filter((p) => !NOT_YET.has(p.problem));
    return { state: problems3.length ? "failed" : "streaming", problems: problems3.map(({ path, message }) => ({ path, message })) };
  }
  if (!parser.done) return { state: "failed", problems: [{ path: "$", message: "the JSON stops before its end" }] };
  const problems2 = validateAgainstSchema(JSON.parse(text2), schema);
  return { state: problems2.length ? "failed" : "fits", problems: problems2.map(({ path, message }) => ({ path, message })) };
}
var HEADINGS = {
  fits: "Fits the output schema",
  streaming: "Output schema: checking as it streams",
  failed: "Does not fit the output schema"
};
function showOutputCheck(holder, result) {
  let box = holder.querySelector(":scope > .output-check");
  if (!box) {
    box = document.createElement("div");
    box.className = "output-check";
    box.setAttribute("role", "status");
    holder.append(box);
  }
  box.dataset.outputCheck = result.state;
  const heading = document.createElement("p");
  heading.className = "output-check-head";
  heading.textContent = HEADINGS[result.state];
  const list = document.createElement("ul");
  for (const { path, message } of result.problems) {
    const item2 = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = path;
    item2.append(code, ` ${message}`);
    list.append(item2);
  }
  box.replaceChildren(heading, ...result.problems.length ? [list] : []);
}
function outputSchemaOf(settings) {
  return schemaOf(settings?.output_config);
}

// static/playground/scroll-hold.js
var ScrollHold = class {
  #scroller;
  #onScrolled;
  /** @type {Element | null} */
  #anchor = null;
  // the element under the pointer
  #top = 0;
  // its top when last seen where the pointer aims
  #point = { x: 0, y: 0 };
  #scrolledTo = 0;
  // the transcript's scrollTop as this module last saw or set it
  /** @param {HTMLElement} scroller @param {{ onScrolled: (top: number) => void }} options */
  constructor(scroller, { onScrolled }) {
    this.#scroller = scroller;
    this.#onScrolled = onScrolled;
    scroller.dataset.holding = "false";
    scroller.addEventListener("pointermove", (event) => this.#aim(event), { passive: true });
    scroller.addEventListener("pointerleave", () => this.#release(), { passive: true });
    scroller.addEventListener("scroll", () => this.#seen(), { passive: true });
    if (typeof ResizeObserver === "function") {
      const watch = new ResizeObserver(() => this.settle());
      for (const part of scroller.querySelectorAll("[data-turns], [data-hold-scroll]")) watch.observe(part);
    }
  }
  /** Whether the pointer is in a held region now (the transcript then keeps still). */
  get holding() {
    return this.#anchor !== null;
  }
  /** The element under the pointer moved: scroll it back under the pointer. */
  settle() {
    const anchor = this.#anchor;
    if (!anchor?.isConnected) return;
    const moved = anchor.getBoundingClientRect().top - this.#top;
    if (Math.abs(moved) < 0.5) return;
    const scroller = this.#scroller;
    const room = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
    if (moved > room) {
      const padding = parseFloat(getComputedStyle(scroller).paddingBottom) || 0;
      scroller.style.paddingBottom = `${padding + moved - room}px`;
    }
    scroller.scrollTop += moved;
    this.#scrolledTo = scroller.scrollTop;
    this.#onScrolled(this.#scroller.scrollTop);
    this.#top = anchor.getBoundingClientRect().top;
  }
  /** The transcript follows its end again (Send, Jump to latest): the room kept is let go. */
  letGo() {
    this.#scroller.style.paddingBottom = "";
  }
  #aim(event) {
    const target = (
      /** @type {Element | null} */
      event.target instanceof Element ? event.target : null
    );
    if (event.pointerType === "touch" || !target?.closest("[data-hold-scroll]")) return this.#release();
    this.#point = { x: event.clientX, y: event.clientY };
    this.#anchor = target;
    this.#top = target.getBoundingClientRect().top;
    this.#scrolledTo = this.#scroller.scrollTop;
    this.#scroller.dataset.holding = "true";
  }
  /** The reader scrolled (a wheel): what is under the pointer now is what to keep. A scroll
   * event of this module's own scroll, or of the browser pulling an end-scrolled transcript up
   * as what is below shrank, is no reader's: it may come before the frame's ResizeObserver
   * turn with a layout change not yet undone, so it settles rather than aim anew (aiming then
   * kept the aim where the change had moved it: 20 px off, in one run of six). */
  #seen() {
    if (!this.#anchor) return;
    const scroller = this.#scroller;
    const ours = Math.abs(scroller.scrollTop - this.#scrolledTo) < 1;
    const atEnd = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop < 1;
    if (ours || atEnd && scroller.scrollTop < this.#scrolledTo) return this.settle();
    this.#scrolledTo = scroller.scrollTop;
    const under = document.elementFromPoint(this.#point.x, this.#point.y);
    if (!under?.closest("[data-hold-scroll]")) return this.#release();
    this.#anchor = under;
    this.#top = under.getBoundingClientRect().top;
  }
  #release() {
    this.#anchor = null;
    this.#scroller.dataset.holding = "false";
  }
};

// static/playground/transcript.js
var WINDOW = 10;
var DRAW_BUDGET_MS = 16;
var NEAR_BOTTOM_PX = 48;
function textOf(message) {
  if (typeof message.content === "string") return message.content;
  return message.content.filter((block) => block.type === "text").map((block) => block.text).join("\n\n");
}
function toolNamesOf(messages) {
  const names = {};
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content) if (block?.id && block.name) names[block.id] = block.name;
  }
  return names;
}
function isPlainUserText(message) {
  return message.role === "user" && (typeof message.content === "string" || message.content.every((block) => block.type === "text"));
}
var Transcript = class {
  #turns;
  #empty;
  #schemas;
  #serverTools;
  #handlers;
  /** @type {{ turn: LiveTurn, article: HTMLElement, actions: HTMLElement, run: any } | null} */
  #live = null;
  // {turn: LiveTurn, article, run}
  #outputSchema;
  // Turns drawn live and then finished, by message id: reused on redraw, so what the person
  // watched (thinking durations, open/closed choices) stays as it was.
  #kept = /* @__PURE__ */ new Map();
  #drawn = /* @__PURE__ */ new WeakMap();
  // message object -> {article, actions}
  #shown = WINDOW;
  // how many of the latest turns are drawn
  /** @type {{ messages: any[], options: { orphanRun?: any, idle?: boolean, unansweredColumns?: any[] } }} */
  #last = { messages: [], options: {} };
  #older;
  #jump;
  #following = true;
  #setTop = -1;
  // the scrollTop we set ourselves (its scroll event is not the reader's)
  /** @type {IntersectionObserver | null} */
  #observer = null;
  #hold;
  /**
   * @param {HTMLElement} root the [data-transcript] section
   * @param {{toolSchemas: () => object, serverTools?: () => string[] | undefined, onRegenerate: (...args: any[]) => void, onEdit: (...args: any[]) => void, onInspect: (runId: string) => void, onSwitch: (...args: any[]) => void, onFork?: ((message: any) => void) | null, outputSchema?: () => unknown}} options
   *   serverTools: the names server tool calls may carry (render/server-tools.js);
   *   onSwitch(message, alternativeId, direction): show that alternative of the message's turn;
   *   onFork(message): a new conversation up to that message (no Fork button without it)
   *   outputSchema(): the schema answers must follow (output-check.js), or null
   */
  constructor(root, { toolSchemas, serverTools = () => void 0, onRegenerate, onEdit, onInspect, onSwitch, onFork = null, outputSchema = () => null }) {
    this.#outputSchema = outputSchema;
    this.#turns = one(root, "[data-turns]");
    this.#empty = one(root, "[data-empty-state]");
    this.#jump = one(root.parentElement, "[data-action='jump-latest']");
    this.#schemas = toolSchemas;
    this.#serverTools = serverTools;
    this.#handlers = { onRegenerate, onEdit, onInspect, onSwitch, onFork };
    this.scroller = root;
    this.#older = el("button", {
      className: "btn btn-small older-turns",
      attrs: { type: "button" },
      dataset: { action: "show-older" }
    });
    this.#older.addEventListener("click", () => this.showOlder());
    if (typeof IntersectionObserver === "function") {
      this.#observer = new IntersectionObserver(
        (entries) => entries.some((entry) => entry.isIntersecting) && this.showOlder(),
        { root, rootMargin: "600px 0px 0px 0px" }
      );
    }
    root.addEventListener("scroll", () => this.#onScroll(), { passive: true });
    this.#hold = new ScrollHold(root, { onScrolled: (top) => this.#setTop = top });
    this.#jump.addEventListener("click", () => this.follow());
  }
  // -- following the bottom ------------------------------------------------------------------
  get following() {
    return this.#following;
  }
  #distance() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  }
  #onScroll() {
    if (this.#setTop >= 0 && Math.abs(this.scroller.scrollTop - this.#setTop) < 2) return;
    this.#setTop = -1;
    this.#setFollowing(this.#distance() < NEAR_BOTTOM_PX);
  }
  #setFollowing(following) {
    this.#following = following;
    this.scroller.dataset.following = String(following);
    this.#offerJump(!following && this.#distance() >= NEAR_BOTTOM_PX);
  }
  /** Show or hide "Jump to latest". Its row under the transcript stays while the transcript
   * scrolls, the button in it shown or not: a row that came and went with the button changed
   * the transcript's height, and near the bottom that moved the text under the pointer. */
  #offerJump(shown) {
    const jump = this.#jump;
    jump.dataset.shown = String(shown);
    if (shown) {
      jump.hidden = false;
      return;
    }
    const row = jump.hidden ? 0 : jump.parentElement.clientHeight - this.scroller.offsetHeight;
    jump.hidden = this.scroller.scrollHeight <= this.scroller.clientHeight + row;
  }
  #toBottom() {
    const s = this.scroller;
    s.scrollTop = s.scrollHeight;
    this.#setTop = s.scrollTop;
  }
  /** Scroll to the latest turn and follow it from now on (Send, "Jump to latest", opening). */
  follow() {
    this.#hold.letGo();
    this.#toBottom();
    this.#setFollowing(true);
    requestAnimationFrame(() => this.#following && this.#toBottom());
  }
  /** The content grew: stay at the bottom if following, else offer the jump; with a mouse in
   * the tool results, keep what it aims at where it is. */
  keepUp() {
    requestAnimationFrame(() => {
      if (this.#hold.holding) this.#hold.settle();
      else if (this.#following) this.#toBottom();
      else this.#offerJump(this.#distance() >= NEAR_BOTTOM_PX);
    });
  }
  /** Draw the next chunk of older turns above, keeping what the reader sees in place. */
  showOlder() {
    const { messages, options } = this.#last;
    if (this.#shown >= messages.length) return;
    this.#shown += WINDOW;
    this.#keepingPlace(() => this.draw(messages, options));
  }
  get live() {
    return this.#live;
  }
  /** Redraw the stored turns (the latest ones; keeps the live turn, if any, last). Turns not
   * drawn before are rendered newest first within DRAW_BUDGET_MS; the rest follow in the next
   * tasks, so no task grows long however heavy the turns are. */
  /** @param {any[]} messages @param {{ orphanRun?: any, idle?: boolean, unansweredColumns?: any[] }} [options] */
  draw(messages, { orphanRun = null, idle = true, unansweredColumns = [] } = {}) {
    clearTimeout(this.#fillTimer);
    const focused = this.#focusedAction();
    this.#last = { messages, options: { orphanRun, idle, unansweredColumns } };
    const lastAssistant = messages.findLast((m) => m.role === "assistant");
    const ids = new Set(messages.flatMap((message) => (message.branch?.ids ?? [message.id]).map(String)));
    for (const id of this.#kept.keys()) if (!ids.has(id)) this.#kept.delete(id);
    this.#toolNames = toolNamesOf(messages);
    const from = Math.max(0, messages.length - this.#shown);
    const started = performance.now();
    const articles = [];
    let oldest = messages.length;
    let rendered = 0;
    for (let index = messages.length - 1; index >= from; index -= 1) {
      const message = messages[index];
      const canRegenerate = idle && index === messages.length - 1 && message === lastAssistant;
      let drawn = this.#kept.get(String(message.id)) ?? this.#drawn.get(message);
      if (!drawn) {
        if (rendered > 0 && performance.now() - started > DRAW_BUDGET_MS) break;
        drawn = this.#storedArticle(message, { canRegenerate });
        this.#drawn.set(message, drawn);
        rendered += 1;
      } else if (message.role === "assistant") {
        drawn.actions.replaceChildren();
        this.#assistantActions(drawn.actions, message.run, { canRegenerate });
        this.#forkAction(drawn.actions, message);
      }
      this.#branchNav(drawn.article, message, { idle });
      articles.push(drawn.article);
      oldest = index;
    }
    articles.reverse();
    const filling = oldest > from;
    if (!filling && from > 0) {
      this.#older.textContent = `Show ${Math.min(WINDOW, from)} earlier turns (${from} not shown)`;
      articles.unshift(this.#older);
    }
    if (orphanRun) articles.push(this.#orphanArticle(orphanRun, { canRegenerate: idle }));
    const last = messages.at(-1);
    const group = last?.role === "assistant" ? last.run?.compare?.group : orphanRun?.compare?.group;
    for (const run of unansweredColumns) {
      if (!group || run.compare?.group !== group || run.id === orphanRun?.id) continue;
      const article = this.#orphanArticle(run, { canRegenerate: false });
      article.dataset.unansweredColumn = String(run.compare.column);
      articles.push(article);
    }
    if (this.#live) articles.push(this.#live.article);
    placeChildren(this.#turns, articles);
    this.#turns.dataset.shown = String(messages.length - oldest);
    this.#empty.hidden = articles.length > 0;
    if (focused && !this.#turns.contains(document.activeElement)) this.#refocus(focused);
    this.#observer?.disconnect();
    if (filling) this.#fillTimer = setTimeout(() => this.#keepingPlace(() => this.draw(messages, { orphanRun, idle, unansweredColumns })), 0);
    else if (from > 0) this.#observer?.observe(this.#older);
    if (!filling) for (const resolve of this.#whenDrawn.splice(0)) resolve();
  }
  #fillTimer = 0;
  /** The turn's button that has the keyboard focus ({position, action}), or null. */
  #focusedAction() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !this.#turns.contains(active) || !active.dataset.action) return null;
    const position = active.closest(".msg")?.getAttribute("data-position");
    return position == null ? null : { position, action: active.dataset.action };
  }
  /** A redraw replaced the focused button (a background reload, a socket's hello): the same
   * button of the same turn takes the focus back, so a keyboard user is not sent to the top. */
  #refocus({ position, action }) {
    const article = this.#turns.querySelector(`.msg[data-position="${CSS.escape(position)}"]`);
    const button = article?.querySelector(`[data-action="${CSS.escape(action)}"]`);
    if (button instanceof HTMLElement && !(button instanceof HTMLButtonElement && button.disabled)) button.focus();
  }
  /** @type {((value?: unknown) => void)[]} */
  #whenDrawn = [];
  // resolvers waiting for a draw that leaves nothing to fill
  /** Draw every turn, not only the latest (a search result must find its match drawn). */
  showEverything() {
    this.#shown = Number.POSITIVE_INFINITY;
  }
  /** Resolves once the turns being drawn are all in the page (drawing may span tasks). */
  drawn() {
    return new Promise((resolve) => this.#whenDrawn.push(resolve));
  }
  /** Change what is drawn above while the reader's view stays where it was (or at the bottom). */
  #keepingPlace(change) {
    const s = this.scroller;
    const fromBottom = s.scrollHeight - s.scrollTop;
    change();
    if (this.#following) return this.#toBottom();
    s.scrollTop = s.scrollHeight - fromBottom;
    this.#setTop = s.scrollTop;
    return void 0;
  }
  #toolNames = {};
  /** What a tool call is checked against, and what a tool result is named by. */
  #toolChecks() {
    return { toolSchemas: this.#schemas(), serverTools: this.#serverTools(), toolNames: this.#toolNames };
  }
  /** @param {string} role @param {{ messageId?: unknown, runId?: string }} ids */
  #article(role, { messageId, runId }) {
    const article = el("article", { className: `msg msg-${role}`, dataset: { role } });
    if (messageId !== void 0) article.dataset.messageId = String(messageId);
    if (runId) article.dataset.runId = runId;
    const label = el("span", { className: "msg-role", text: role === "user" ? "User" : "Assistant" });
    const actions = el("span", { className: "msg-actions" });
    const nav = el("span", { className: "msg-branch", dataset: { branchNav: "" } });
    article.append(el("header", { className: "msg-head" }, label, nav, actions));
    return { article, actions };
  }
  /** ‹ n/m › for a turn with alternatives; nothing for a turn without. */
  #branchNav(article, message, { idle }) {
    const nav = article.querySelector("[data-branch-nav]");
    if (!nav) return;
    const ids = message.branch?.ids ?? [];
    const index = message.branch?.index ?? 0;
    article.dataset.position = String(message.position);
    if (ids.length < 2) {
      delete article.dataset.branch;
      nav.replaceChildren();
      return;
    }
    const shown = `${index + 1}/${ids.length}`;
    article.dataset.branch = shown;
    const what = message.role === "user" ? "message" : "answer";
    const step2 = (direction, text2, label) => {
      const target = ids[index + direction];
      const button = this.#button(
        text2,
        `branch-${direction < 0 ? "previous" : "next"}`,
        () => this.#handlers.onSwitch(message, target, direction)
      );
      button.setAttribute("aria-label", label);
      button.disabled = !idle || target === void 0;
      return button;
    };
    const count = el("span", {
      className: "msg-branch-count",
      text: shown,
      attrs: { "aria-label": `${what} ${index + 1} of ${ids.length}` }
    });
    nav.setAttribute("role", "group");
    nav.setAttribute("aria-label", `Alternatives of this ${what}`);
    const first = index === 0 ? "this is the first" : `${index} of ${ids.length}`;
    const last = index === ids.length - 1 ? "this is the last" : `${index + 2} of ${ids.length}`;
    nav.replaceChildren(step2(-1, "\u2039", `Previous ${what} (${first})`), count, step2(1, "\u203A", `Next ${what} (${last})`));
  }
  /** Focus a turn's ‹ or › after a switch redrew it (keyboard users stay where they were). */
  focusBranch(position, direction) {
    const article = this.#turns.querySelector(`.msg[data-position="${Number(position)}"]`);
    const action = direction < 0 ? "branch-previous" : "branch-next";
    const button = article?.querySelector(`[data-action="${action}"]`);
    const target = button && !button.disabled ? button : article?.querySelector("[data-branch-nav] button:not(:disabled)");
    target?.focus();
  }
  #button(text2, action, onClick) {
    const button = el("button", {
      className: "btn btn-ghost btn-small",
      text: text2,
      attrs: { type: "button" },
      dataset: { action }
    });
    button.addEventListener("click", onClick);
    return button;
  }
  #storedArticle(message, { canRegenerate }) {
    const { article, actions } = this.#article(message.role, {
      messageId: message.id,
      runId: message.run?.id
    });
    const body = renderMessage(message, this.#toolChecks());
    article.append(body);
    if (message.role === "assistant") {
      this.#assistantActions(actions, message.run, { canRegenerate });
      this.#checkOutput(article, message.content, { partial: false });
      const meta = runMeta(message.run, { content: message.content });
      if (meta) article.append(meta);
    } else if (isPlainUserText(message)) {
      actions.append(this.#button("Edit", "edit", () => this.#startEdit(article, body, message)));
    }
    this.#forkAction(actions, message);
    return { article, actions };
  }
  #forkAction(actions, message) {
    const onFork = this.#handlers.onFork;
    if (!onFork) return;
    const fork = this.#button("Fork", "fork", () => onFork(message));
    fork.title = "A new conversation with the turns up to this one (this one stays as it is)";
    fork.setAttribute("aria-label", "Fork from here");
    actions.append(fork);
  }
  #assistantActions(actions, run, { canRegenerate }) {
    if (run?.id) {
      actions.append(this.#button("Inspect", "inspect", () => this.#handlers.onInspect(run.id)));
    }
    if (canRegenerate) {
      actions.append(this.#button("Regenerate", "regenerate", () => this.#handlers.onRegenerate()));
    }
  }
  #orphanArticle(run, { canRegenerate }) {
    const { article, actions } = this.#article("assistant", { runId: run.id });
    article.dataset.orphan = "true";
    if (run.kept_content) {
      article.dataset.kept = "true";
      const message = { id: `kept-${run.id}`, role: "assistant", content: run.kept_content.content, run };
      article.append(renderMessage(message, this.#toolChecks()));
      article.append(el("p", { className: "turn-kept muted", attrs: { role: "status" }, text: run.kept_content.reason }));
    } else {
      const body = el("div", { className: "pg-turn", dataset: { role: "assistant", state: "done", status: run.status } });
      body.append(el("p", { className: "muted", text: "No answer was received." }));
      article.append(body);
    }
    this.#assistantActions(actions, run, { canRegenerate });
    const meta = runMeta(run, { content: run.kept_content?.content ?? null });
    if (meta) article.append(meta);
    return article;
  }
  #startEdit(article, body, message) {
    const textarea = el("textarea", {
      className: "input edit-input",
      attrs: { rows: "4", "aria-label": "Edit message" }
    });
    textarea.value = textOf(message);
    const save = this.#button(
      "Save and resend",
      "edit-save",
      () => this.#handlers.onEdit(message, textarea.value)
    );
    save.classList.replace("btn-ghost", "btn-primary");
    const cancel = this.#button("Cancel", "edit-cancel", () => form.replaceWith(body));
    const form = el("div", { className: "edit-form" }, textarea, el("div", { className: "form-actions" }, cancel, save));
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        save.click();
      } else if (event.key === "Escape") {
        event.stopPropagation();
        cancel.click();
      }
    });
    body.replaceWith(form);
    textarea.focus();
  }
  /** Start drawing a live run (or keep the current one if it is the same run: a resume). */
  startLive(run) {
    if (this.#live?.run.id === run.id) return this.#live;
    this.#live?.turn.finish({});
    const { article, actions } = this.#article("assistant", { runId: run.id });
    article.dataset.live = "true";
    const body = el("div", { className: "msg-body" });
    article.append(body);
    const turn = new LiveTurn(body, { ...this.#toolChecks(), key: run.id });
    this.#assistantActions(actions, run, { canRegenerate: false });
    this.#turns.querySelectorAll(`.msg[data-run-id="${CSS.escape(run.id)}"]`).forEach((n) => n.remove());
    this.#turns.append(article);
    this.#empty.hidden = true;
    this.#live = { turn, article, actions, run };
    return this.#live;
  }
  /** The live turn's status line: a retry, a silent upstream ("" removes it). */
  liveNote(text2) {
    const live = this.#live;
    if (!live) return;
    let note = live.article.querySelector(".turn-live-note");
    if (!text2) {
      note?.remove();
      delete live.article.dataset.liveNote;
      return;
    }
    if (!note) {
      note = el("p", { className: "turn-live-note", attrs: { role: "status" } });
      one(live.article, ".msg-body").before(note);
    }
    if (note.textContent !== text2) note.textContent = text2;
    live.article.dataset.liveNote = "true";
  }
  /** Append the user turn a run answers (sent by run.started). */
  appendUser(message) {
    const { article } = this.#storedArticle(message, { canRegenerate: false });
    if (this.#live) this.#turns.insertBefore(article, this.#live.article);
    else this.#turns.append(article);
    this.#empty.hidden = true;
  }
  applyEvents(runId, events) {
    const live = this.#live;
    if (live === null || live.run.id !== runId) return;
    live.turn.applyEvents(events);
    this.#checkOutput(live.article, live.turn.message?.content, { partial: true });
  }
  /** A structured answer's check against the output schema, drawn on its turn. */
  #checkOutput(article, content, { partial }) {
    const schema = this.#outputSchema();
    if (!schema) return;
    showOutputCheck(article, checkOutput(answerText(content), schema, { partial }));
  }
  /** The run's stream is over but its end is not saved yet (run.saving): say so, in place. */
  showSaving(frame) {
    const live = this.#live;
    if (!live || live.run.id !== frame.run_id) return;
    live.article.dataset.saveState = "pending";
    let note = live.article.querySelector(".turn-saving");
    if (!note) {
      note = el("p", { className: "turn-saving", attrs: { role: "status" } });
      live.article.append(note);
    }
    const retry = typeof frame.retry_in_ms === "number" ? ` (attempt ${frame.attempt}; next in ${Math.ceil(frame.retry_in_ms / 100) / 10} s)` : "";
    note.textContent = `Not saved yet: ${frame.error?.message ?? "the server is retrying"}${retry}`;
  }
  /** The run ended: final state and footer; the turn stays in place until the next redraw. */
  finishLive(frame) {
    const live = this.#live;
    if (!live || live.run.id !== frame.run_id) return;
    live.turn.finish(frame);
    this.liveNote("");
    live.article.querySelector(".turn-saving")?.remove();
    delete live.article.dataset.saveState;
    const { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content } = frame;
    const outcome = { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content };
    const run = { ...live.run, ...frame.message?.run ?? {}, ...outcome };
    live.article.dataset.live = "false";
    if (frame.message?.id !== void 0 && !(frame.message.carried_blocks > 0)) {
      live.article.dataset.messageId = String(frame.message.id);
      this.#kept.set(String(frame.message.id), { article: live.article, actions: live.actions });
    }
    const content = frame.message?.content ?? live.turn.message?.content ?? null;
    this.#checkOutput(live.article, content, { partial: false });
    const meta = runMeta(run, { content });
    if (meta) live.article.append(meta);
    this.#live = null;
  }
};

// static/playground/variables.js
var NAME_MAX = 64;
var NAME = `[A-Za-z_][A-Za-z0-9_]{0,${NAME_MAX - 1}}`;
var BLANK = "[ \\t\\r\\n]";
var PLACEHOLDER = `\\{\\{${BLANK}*(${NAME})${BLANK}*\\}\\}`;
var NOT_BLANK = /[^ \t\r\n]/;
function namesIn(text2) {
  if (typeof text2 !== "string") return [];
  return [...new Set([...text2.matchAll(new RegExp(PLACEHOLDER, "g"))].map((match) => match[1]))];
}
function fillText(text2, values) {
  return text2.replace(
    new RegExp(PLACEHOLDER, "g"),
    (whole, name) => present(Object.hasOwn(values, name) ? values[name] : void 0) ? values[name] : whole
  );
}
function present(value) {
  return typeof value === "string" && NOT_BLANK.test(value);
}
function textsOf(content) {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((block) => block?.type === "text" && typeof block.text === "string").map((block) => block.text);
}
function namesInConversation({ system = "", messages = [], draft = "" }) {
  const texts = [...textsOf(system)];
  for (const message of messages) if (message.role === "user") texts.push(...textsOf(message.content));
  texts.push(draft);
  return [...new Set(texts.flatMap(namesIn))];
}
function missingNames(names, values) {
  return names.filter((name) => !present(Object.hasOwn(values, name) ? values[name] : void 0));
}
function missingReason(missing) {
  if (missing.length === 0) return "";
  const listed = missing.map((name) => `{{${name}}}`).join(", ");
  return `No value for ${listed}: fill it in under Variables.`;
}

// static/playground/variables-panel.js
var SAVE_PAUSE_MS = 300;
var VariablesPanel = class {
  #root;
  #list;
  #empty;
  #error;
  #stateLine;
  #url;
  #values;
  #onChange;
  #fields = /* @__PURE__ */ new Map();
  // name -> textarea
  #timer = 0;
  /** @type {Promise<any> | null} */
  #saving = null;
  // the save in flight (a promise)
  #dirty = false;
  /** The values as saved or typed now (a copy). */
  get values() {
    return { ...this.#values };
  }
  constructor(root, { url, values, draftInput, onChange }) {
    this.#root = root;
    this.#url = url;
    this.#values = { ...values ?? {} };
    this.#onChange = onChange;
    ({ list: this.#list, empty: this.#empty, error: this.#error, stateLine: this.#stateLine } = parts(root, {
      list: "[data-variables-list]",
      empty: "[data-variables-empty]",
      error: "[data-variables-error]",
      stateLine: "[data-variables-state]"
    }));
    draftInput.addEventListener("input", () => this.#onChange());
  }
  /** Draw the fields for what the next request names; the reason Send is blocked, or "". */
  refresh({ system, messages, draft }) {
    const names = namesInConversation({ system, messages, draft });
    this.#draw(names);
    const missing = missingNames(names, this.#values);
    this.#root.dataset.missing = missing.join(",");
    if (this.#dirty || this.#saving) return "Saving the variables\u2026";
    if (this.#root.dataset.saveState === "failed") return "The variables are not saved: see Variables.";
    return missingReason(missing);
  }
  /** Focus the first variable without a value (or the first one); false when there is none. */
  focusMissing() {
    const missing = (this.#root.dataset.missing || "").split(",").filter(Boolean);
    const input = this.#fields.get(missing[0]) ?? this.#fields.values().next().value;
    if (!input) return false;
    input.scrollIntoView({ block: "nearest" });
    input.focus();
    return true;
  }
  #draw(names) {
    for (const [name, input] of this.#fields) {
      if (!names.includes(name)) {
        input.closest("[data-variable-row]").remove();
        this.#fields.delete(name);
      }
    }
    names.forEach((name, index) => {
      let input = this.#fields.get(name);
      if (!input) {
        input = el("textarea", { className: "input", attrs: { rows: "1", "aria-label": `Value of ${name}` }, dataset: { variable: name } });
        input.value = Object.hasOwn(this.#values, name) ? String(this.#values[name] ?? "") : "";
        input.addEventListener("input", () => this.#edited(name, input.value));
        const label = el("span", { className: "field-label" }, el("code", { text: `{{${name}}}` }));
        const row2 = el("label", { className: "field", dataset: { variableRow: name } }, label, input);
        this.#fields.set(name, input);
        this.#list.append(row2);
      }
      const row = input.closest("[data-variable-row]");
      if (this.#list.children[index] !== row) this.#list.insertBefore(row, this.#list.children[index] ?? null);
    });
    this.#empty.hidden = names.length > 0;
  }
  #edited(name, value) {
    this.#values = { ...this.#values, [name]: value };
    this.#dirty = true;
    this.#root.dataset.saveState = "pending";
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#save(), SAVE_PAUSE_MS);
    this.#onChange();
  }
  async #save() {
    if (this.#saving) return;
    this.#dirty = false;
    const values = this.#values;
    this.#saving = apiFetch(this.#url, { method: "PUT", body: { variables: values } });
    try {
      const conversation = await this.#saving;
      this.#showError("");
      if (!this.#dirty) {
        this.#values = { ...conversation.variables };
        this.#root.dataset.saveState = "saved";
        this.#stateLine.textContent = "Saved";
      }
    } catch (error) {
      this.#root.dataset.saveState = "failed";
      this.#showError(`Could not save the variables: ${error.message}`);
    } finally {
      this.#saving = null;
    }
    if (this.#dirty) this.#save();
    this.#onChange();
  }
  #showError(text2) {
    this.#error.textContent = text2;
    this.#error.hidden = !text2;
  }
};

// static/playground/budget-chip.js
var BudgetChip = class {
  #chip;
  #url;
  /** @type {LimitLeft[]} */
  #limits = [];
  #busy = false;
  #again = false;
  /**
   * @param {HTMLElement} chip
   * @param {{ url: string, limits?: LimitLeft[] }} options
   */
  constructor(chip, { url, limits = [] }) {
    this.#chip = chip;
    this.#url = url;
    this.show(limits);
  }
  /** @param {LimitLeft[]} limits */
  show(limits) {
    this.#limits = limits;
    const chip = this.#chip;
    const [tightest] = limits;
    chip.hidden = tightest === void 0;
    if (tightest === void 0) {
      chip.textContent = "";
      return;
    }
    chip.textContent = tightest.left_text;
    chip.dataset.out = String(tightest.fraction_left <= 0);
    chip.title = limits.map((limit) => `${limit.text}: ${limit.left} left, resets ${limit.resets_at.slice(0, 16).replace("T", " ")} UTC`).join("\n");
  }
  /** Ask the server what is left now (after a run ended); what was shown stays on a failure. */
  async refresh() {
    if (this.#limits.length === 0) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    try {
      do {
        this.#again = false;
        const answer = await apiFetch(this.#url);
        this.show(Array.isArray(answer?.limits) ? answer.limits : []);
      } while (this.#again);
    } catch {
    } finally {
      this.#busy = false;
    }
  }
};

// static/playground/page.js
function installImport(root, data) {
  return new ImportDialog(one(root, "[data-import-dialog]"), {
    openers: root.querySelectorAll("[data-action='open-import']"),
    maxBytes: data.limits?.max_import_bytes
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
var TICK_MS = 1e3;
var nextFrame = () => document.hidden ? nextTask() : new Promise((resolve) => requestAnimationFrame(resolve));
var ConversationPage = class {
  #state;
  #lastDataAt = 0;
  // performance.now() of the live run's last event (or its start)
  #retryAt = 0;
  // when the run.retrying frame came
  #ticker = 0;
  #cost = null;
  // every ended run's cost together ({amount, currency, unpriced_runs})
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
      onRenamed: (conversation) => this.#dispatch({ type: "renamed", title: conversation.title })
    });
    this.transcript = new Transcript(one(root, "[data-transcript]"), {
      toolSchemas: () => SettingsPanel.schemas(this.#state.conversation.settings),
      serverTools: () => serverToolNames(this.#state.conversation.settings?.tools),
      onRegenerate: () => this.debugger.guardDrop(this.#state.messages.length - 1, "regenerate", () => this.#dispatch({ type: "regenerate" })),
      onEdit: (message, text2) => this.debugger.guardDrop(this.#state.messages.indexOf(message) + 1, "edit", () => this.#editAndResend(message, text2)),
      onInspect: (runId) => this.#inspect(runId),
      onSwitch: (message, alternativeId, direction) => this.#switchBranch(message, alternativeId, direction),
      onFork: (message) => this.#fork(message),
      outputSchema: () => outputSchemaOf(this.#state.conversation.settings)
    });
    this.composer = new Composer(one(root, "[data-composer]"), {
      onSend: (content, how) => this.#sendWithSettings(content, how),
      onStop: () => this.#stop(),
      onRun: () => this.#dispatch({ type: "run" }),
      onContinue: () => this.#dispatch({ type: "continue" }),
      urls: this.urls,
      conversationId: id
    });
    this.tokenCount = new TokenCount(one(root, "[data-token-count]"), { maxBytes: data.limits?.max_frame_bytes });
    one(root, "[data-composer]").addEventListener("input", () => this.#countTokens());
    this.compare = new Compare(root, {
      profiles: data.profiles,
      settings: () => ({ ...this.#state.conversation.settings, profile: this.#state.conversation.profile, model: this.#state.conversation.model }),
      onSubmit: (content, columns) => this.#dispatch({ type: "compare", content, columns }),
      onDismiss: () => this.#dispatch({ type: "compare.dismissed" }),
      onKeep: (messageId) => this.#keep(messageId),
      onToggle: () => this.#controls()
    });
    this.toolResults = new ToolResults(one(root, "[data-tool-results]"), {
      conversationId: id,
      onSend: ({ results, text: text2 }) => this.#dispatch({ type: "tool_results", results, text: text2 }),
      urls: this.urls
    });
    this.settings = new SettingsPanel(one(root, "[data-settings-panel]"), {
      fields: data.settings_form,
      profiles: data.profiles,
      url: this.urls.conversation,
      onSaved: (conversation) => this.#dispatch({ type: "settings.saved", conversation }),
      suggestions: new ModelSuggestions({
        fetchModels: (profile) => apiFetch(fillUrl(this.urls.profile_models, { profile })),
        onLoaded: () => this.settings.suggestionsChanged()
      })
    });
    this.variables = new VariablesPanel(one(root, "[data-variables]"), {
      url: this.urls.variables,
      values: data.conversation.variables,
      draftInput: one(root, "[data-composer-input]"),
      onChange: () => {
        this.#controls();
        this.#effect({ do: "title" });
      }
    });
    this.inspector = new Inspector(one(root, "[data-inspector-panel]"), { urls: this.urls });
    this.shareDialog = new ShareDialog(one(root, "[data-share-dialog]"), {
      opener: one(root, "[data-action='open-share']")
    });
    this.exportMenu = new ExportMenu(one(root, "[data-export-menu]"), {
      requestDialog: one(root, "[data-export-request]"),
      codeDialog: one(root, "[data-export-code]")
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
      inspector: { addRun: (run) => this.inspector.addAsideRun(run), show: (runId) => this.#inspect(runId) }
    });
    const replayOf = new URLSearchParams(window.location.search).get("replay_of");
    const socketUrl = replayOf ? `${this.urls.websocket}?replay_of=${encodeURIComponent(replayOf)}` : this.urls.websocket;
    this.socket = new ConversationSocket(socketUrl, {
      maxBytes: data.limits?.max_frame_bytes,
      onFrame: (frame) => this.#frame(frame),
      onState: (connection, detail) => {
        if (connection !== "open" && connection !== "connecting") this.debugger.mcpSocketLost();
        this.#dispatch({ type: "connection", connection, detail });
      }
    });
    this.panels = installPanels(root, { onInspectorOpened: () => this.inspector.opened() });
    installRename(root, { currentTitle: () => this.#state.conversation.title, onRename: (title) => this.#rename(title) });
    installShortcuts({
      onSend: () => this.toolResults.pending ? this.toolResults.submit() : this.composer.submit(),
      onStop: () => this.#state.live ? (this.#stop(), true) : false,
      onNew: () => this.sidebar.create()
    });
  }
  async start() {
    this.settings.load(this.#state.conversation.settings);
    this.sidebar.refresh();
    await nextTask();
    await warmUp();
    const query = queryOf(location.search);
    if (query) this.transcript.showEverything();
    const drawn = this.transcript.drawn();
    this.#carryOut([{ do: "draw" }]);
    performance.mark("pg:turns");
    if (query) await drawn.then(() => highlightTurns(this.root, one(this.root, "[data-turns]"), query));
    else {
      await nextFrame();
      this.transcript.follow();
    }
    performance.mark("pg:drawn");
    this.socket.connect();
    this.debugger.start();
    this.root.dataset.ready = "true";
    performance.mark("pg:ready");
    this.composer.focus();
  }
  /** A socket frame: the state's (every column of a group: state.js folds them alike). */
  #frame(frame) {
    if (frame.type === "mcp_call" || frame.type === "error" && frame.action === "mcp_call") return this.debugger.mcpFrame(frame);
    return this.#dispatch(frame);
  }
  #stop() {
    this.#dispatch({ type: "stop" });
  }
  /** Every column of a compare ended: its answers are alternatives of one turn, read again. */
  async #compareDone() {
    await this.#reload();
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
          unansweredColumns: state.conversation.unanswered_columns ?? []
        });
        this.inspector.setRuns(runChoices(state));
        return this.#controls();
      case "controls":
        return this.#controls();
      case "startLive":
        this.transcript.draw(state.messages, { idle: false });
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
        return this.sidebar.refresh();
      // a first message names the conversation
      case "groupEnded":
        return effect.count > 1 ? this.#compareDone() : void 0;
      case "composerSent":
        return effect.content === void 0 ? this.composer.sent() : this.composer.sentIfStill(effect.content);
      case "toolResultsDone":
        return this.toolResults.done();
      case "showError":
        return this.composer.showError(effect.text);
      case "announce":
        return announce(effect.text);
      // The transcript follows a group of one; a compare's columns are drawn beside it, and
      // the page keeps still while they stream.
      case "scroll":
        return (state.live?.count ?? 1) > 1 ? void 0 : this.transcript.keepUp();
      case "follow":
        return (state.live?.count ?? 1) > 1 ? void 0 : this.transcript.follow();
      case "liveNote":
        if (effect.count > 1) return this.compare.events(effect.runId, [], columnOf(state, effect.runId));
        this.#retryAt = performance.now();
        this.#lastDataAt = performance.now();
        this.#startTicker();
        return this.#tick();
      case "reload":
        return this.#reload();
      case "reread":
        return this.#reload("reread");
      case "title": {
        const values = this.variables?.values ?? state.conversation.variables ?? {};
        const shown = fillText(state.conversation.title ?? "", values) || UNTITLED;
        one(this.root, "[data-conversation-title]").textContent = shown;
        document.title = `${shown} \xB7 Messages Playground`;
        return void 0;
      }
      case "model":
        one(this.root, "[data-model-chip]").textContent = `${state.conversation.profile} \xB7 ${state.conversation.model}`;
        this.#controls();
        this.debugger.update();
        return this.sidebar.refresh();
      default:
        throw new Error(`unknown effect ${effect.do}`);
    }
  }
  /** The conversation's cost chip, with a run's cost added once its run.finished came; and
   * what the person's limits have left, asked again. */
  #addCost(frame) {
    if (frame?.run_id && frame.cost !== void 0) {
      this.#cost = addCost(this.#cost, frame.cost);
      this.#showCost();
      this.budget.refresh();
    }
  }
  #showCost() {
    const chip = one(this.root, "[data-conversation-cost]");
    const text2 = totalCostText(this.#cost);
    chip.textContent = text2 ? `cost ${text2}` : "";
    chip.hidden = !text2;
  }
  #send(action) {
    const sent = this.socket.send(action);
    if (action.action === "resume") return;
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
      continueHint: continueHint(state)
    });
    this.toolResults.show(running ? [] : pendingCalls(state));
    this.#countTokens();
    this.toolResults.setEnabled(!running && canAct(state));
    one(this.root, "[data-connection-text]").textContent = connectionText(
      state.connection,
      state.connectionDetail,
      state.liveUpdates
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
  async #sendWithSettings(text2, { unanswered = null, prefill = null } = {}) {
    const problem = await this.settings.flush();
    if (problem) {
      this.composer.showError(`Not sent: a setting you changed is not saved (${problem}). Fix it in Settings, then Send.`);
      this.panels.openSettings();
      return;
    }
    if (this.compare.armed) return this.compare.submit(text2);
    this.#dispatch({ type: "send", text: text2, unanswered, prefill });
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
    let text2 = "";
    if (state.retrying) text2 = retryText(state.retrying, state.retrying.retryInMs - (now - this.#retryAt));
    else if (state.waiting) text2 = waitText(state.waiting);
    else if (state.connection === "open") text2 = stallText(now - this.#lastDataAt);
    if (!state.retrying && !state.waiting && text2) this.root.dataset.stalled = "true";
    else delete this.root.dataset.stalled;
    this.transcript.liveNote(text2);
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
  async #editAndResend(message, text2) {
    if (!text2.trim()) return;
    const files = (Array.isArray(message.content) ? message.content : []).filter((b) => b?.type === "image" || b?.type === "document");
    const content = files.length ? [...files, { type: "text", text: text2 }] : text2;
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
    if (this.#state.live || alternativeId === void 0) return;
    try {
      const url = fillUrl(this.urls.message_select, { message_id: alternativeId });
      const conversation = await apiFetch(url, { method: "POST", body: {} });
      this.#dispatch({ type: "switched", conversation, position: message.position });
      this.transcript.focusBranch(message.position, direction);
      this.sidebar.refresh();
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
};
function main() {
  performance.mark("pg:main");
  const root = document.getElementById("app");
  if (!root) return;
  const data = readPageData();
  setCsrfToken(data.csrf_token);
  setFileUrl(data.urls?.attachment);
  if (root.dataset.page !== "conversation") return startHome(root, data);
  return nextTask().then(() => new ConversationPage(root, data).start());
}
main();
