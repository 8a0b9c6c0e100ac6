// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  validateAgainstSchema
} from "./chunk-ZZFHTOI2.js";
import {
  McpCatalog,
  annotationWords,
  approvalFor,
  connectBody,
  elicitationLink,
  exchangeLabel,
  exchangeRecords,
  isDestructive,
  marksOf,
  mergeTools,
  noticeText,
  policyOf,
  ranOnServer,
  readLines,
  recordKey,
  samplingText,
  schemaForm,
  sessionRecords,
  splitCalls,
  storedRecords,
  toolIndex,
  toolMatches,
  unavailableWhy,
  withApproval
} from "./chunk-VPOJLUZU.js";
import {
  apiFetch,
  apiUpload,
  csrfHeaders
} from "./chunk-22CQPU6I.js";
import {
  copyText,
  el,
  one
} from "./chunk-ACANGUXN.js";
import {
  schemaFields
} from "./chunk-FZMVVHNY.js";

// static/playground/mock-match.js
var isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
function equal(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  return Object.is(a, b);
}
function inputMatches(match, input) {
  if (!isObject(match)) return false;
  if (!isObject(input)) return Object.keys(match).length === 0;
  return Object.entries(match).every(([key, wanted]) => {
    if (!Object.hasOwn(input, key)) return false;
    return isObject(wanted) && isObject(input[key]) ? inputMatches(wanted, input[key]) : equal(wanted, input[key]);
  });
}
function mockFor(call, mocks) {
  const ofTool = (mocks ?? []).filter((mock) => mock.tool === call.name);
  return ofTool.find((mock) => isObject(mock.match) && inputMatches(mock.match, call.input)) ?? ofTool.find((mock) => !isObject(mock.match)) ?? null;
}
function answerCalls(calls, mocks) {
  const answered = [];
  const missing = [];
  for (const call of calls) {
    const mock = mockFor(call, mocks);
    if (mock) answered.push({ call, mock });
    else missing.push(call);
  }
  return { answered, missing };
}
function resultText(content) {
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}
function mockFromCall(call, { content, isError }) {
  const input = isObject(call.input) && Object.keys(call.input).length > 0 ? call.input : null;
  return { tool: String(call.name), match: input, content, is_error: Boolean(isError), auto: false };
}
function describeMatch(match) {
  if (!isObject(match) || Object.keys(match).length === 0) return "any call";
  return Object.entries(match).map(([key, value]) => `${key} = ${JSON.stringify(value)}`).join(", ");
}

// static/playground/mcp-inspector.js
var McpInspector = class {
  #root;
  #list;
  #urls;
  /** @type {Map<string, any>} */
  #records = /* @__PURE__ */ new Map();
  constructor(root, { urls }) {
    this.#root = root;
    this.#urls = urls;
    this.#list = one(root, "[data-mcp-exchanges]");
    one(root, "[data-action='copy-mcp-jsonl']").addEventListener("click", (event) => copyText(
      /** @type {HTMLElement} */
      event.currentTarget,
      this.jsonl()
    ));
  }
  /** Every record shown, in the timeline's order, one JSON object a line. */
  jsonl() {
    return this.#sorted().map((record) => JSON.stringify(record)).join("\n");
  }
  /** A call run on this page ended: its messages, placed by when each passed. */
  addCall({ callId, server, tool, startedAt }, exchanges) {
    this.#add(exchangeRecords({ callId, server, tool, startedAt }, exchanges));
  }
  /** The calls the server stored for this conversation (a reload). */
  addStored(calls) {
    this.#add(storedRecords(calls));
    this.#root.dataset.stored = "true";
  }
  storedFailed() {
    this.#root.dataset.stored = "failed";
  }
  /** The sessions' own messages, read again (new ones are added). */
  async loadSessions() {
    if (!this.#urls.mcp_sessions) return;
    try {
      const { sessions } = await apiFetch(this.#urls.mcp_sessions);
      this.#add(sessionRecords(sessions));
      this.#root.dataset.sessions = "true";
    } catch {
      this.#root.dataset.sessions = "failed";
    }
  }
  #sorted() {
    return [...this.#records.values()].sort((a, b) => (a.at ?? 0) - (b.at ?? 0));
  }
  #add(records) {
    for (const record of records) {
      const key = recordKey(record);
      if (this.#records.has(key)) continue;
      this.#records.set(key, record);
      const row = this.#row(record);
      const after = [...this.#list.children].find((other) => Number(
        /** @type {HTMLElement} */
        other.dataset.at
      ) > (record.at ?? 0));
      this.#list.insertBefore(row, after ?? null);
    }
    this.#root.dataset.count = String(this.#records.size);
  }
  #row(record) {
    const json = el("pre", { className: "json-view", text: JSON.stringify(record.message, null, 2) });
    const where = record.session ? `${record.server} session` : `${record.server}/${record.tool}`;
    const time = record.at ? new Date(record.at).toISOString().slice(11, 23) : "";
    const since = record.at_ms !== void 0 ? ` +${record.at_ms} ms` : "";
    return el(
      "li",
      { className: "timeline-row", dataset: { direction: record.direction, at: String(record.at ?? 0), ...record.call_id ? { callId: String(record.call_id) } : { session: record.server } } },
      el("details", {}, el("summary", {}, el("span", { className: "muted", text: `${time}${since} ` }), el("code", { text: `${where} ${exchangeLabel(record)}` })), json)
    );
  }
};

// static/playground/mcp-images.js
var EXTENSIONS = { "image/png": "png", "image/jpeg": "jpg", "image/gif": "gif", "image/webp": "webp" };
async function storeImages(content, { server, urls }) {
  if (!Array.isArray(content)) return { content, pictures: [] };
  const pictures = [];
  let count = 0;
  const stored = await Promise.all(
    content.map(async (block) => {
      const source = block?.source;
      if (block?.type !== "image" || source?.type !== "base64") return block;
      count += 1;
      const name = `${server}-image-${count}.${EXTENSIONS[source.media_type] ?? "bin"}`;
      try {
        const bytes = Uint8Array.from(atob(String(source.data ?? "")), (c) => c.charCodeAt(0));
        const form = new FormData();
        form.append("file", new Blob([bytes], { type: source.media_type }), name);
        const answer = await apiUpload(urls.attachments, form);
        pictures.push(picture(answer.block, { server, name, urls }));
        return answer.block;
      } catch {
        return block;
      }
    })
  );
  return { content: stored, pictures };
}
function imagePreviews(content, { server, urls }) {
  const holder = el("div", { className: "mcp-images", dataset: { images: "storing" } });
  storeImages(content, { server, urls }).then(({ pictures }) => {
    holder.replaceChildren(...pictures);
    holder.dataset.images = String(pictures.length);
  });
  return [holder];
}
function picture(block, { server, name, urls }) {
  const sha = block?.source?.sha256;
  const img = el("img", { className: "mcp-image", attrs: { alt: `${name} from the MCP server ${server}`, loading: "lazy" } });
  if (sha) img.src = urls.attachment.replace("{sha256}", sha);
  return el("figure", { className: "mcp-figure", dataset: { server } }, img, el("figcaption", { className: "muted", text: `image from MCP server ${server}` }));
}

// static/playground/mcp-questions.js
var SAMPLING_PREFIX = "pg:mcp-sampling";
var QUESTION_KINDS = /* @__PURE__ */ new Set(["sampling", "sampling_run", "sampling_text", "sampling_done", "elicitation", "elicitation_done"]);
function showQuestion({ bar, card, server, notice, reply, profiles, runs }) {
  const id = notice.question;
  const box = (
    /** @type {HTMLElement | null} */
    bar.querySelector(`.mcp-question[data-question="${CSS.escape(String(id))}"]`)
  );
  if (notice.kind === "sampling" || notice.kind === "elicitation") {
    if (box) return;
    card.dataset.mcpQuestion = notice.kind;
    bar.append(notice.kind === "sampling" ? samplingBox(server, notice, reply, profiles) : elicitationBox(server, notice, reply));
    return;
  }
  if (!box) return;
  if (notice.kind === "sampling_run") return showRun(box, server, notice.run, runs);
  if (notice.kind === "sampling_text") return void one(box, "[data-sampling-answer]").append(notice.text);
  box.dataset.state = "done";
  delete card.dataset.mcpQuestion;
  let said = `answered: ${notice.action}`;
  if (notice.refused) said = "refused; the server was told";
  else if (notice.failed) said = `not answered (${notice.failed}); the server was told`;
  else if (notice.result) said = `answered by ${notice.profile} \xB7 ${notice.result.model}`;
  one(box, "[data-question-status]").textContent = said;
}
function showRun(box, server, run, runs) {
  if (!run?.id) return;
  const label = `Sampling for ${server} \xB7 ${run.model} on ${run.profile}`;
  runs.addRun({ id: run.id, label });
  const open = el("button", { className: "btn btn-ghost btn-small", text: "Inspect its run", attrs: { type: "button" }, dataset: { action: "mcp-sampling-inspect", runId: run.id } });
  open.addEventListener("click", () => runs.show(run.id));
  one(box, "[data-sampling-run]").replaceChildren(el("span", { className: "muted", text: `A run of its own: ${run.model} on ${run.profile} ` }), open);
}
function samplingBox(server, notice, reply, profiles) {
  const request = notice.request ?? {};
  const key = `${SAMPLING_PREFIX}:${server}`;
  let chosen = {};
  try {
    chosen = JSON.parse(localStorage.getItem(key) ?? "{}") ?? {};
  } catch {
  }
  const profile = el("select", { className: "input input-small", attrs: { "aria-label": "Profile to answer with" }, dataset: { samplingProfile: "" } });
  for (const option of profiles) profile.append(el("option", { text: option.label ?? option.name, attrs: { value: option.name } }));
  if (profiles.some((option) => option.name === chosen.profile)) profile.value = chosen.profile;
  const model = el("input", { className: "input input-small", attrs: { "aria-label": "Model", list: `mcp-models-${notice.question}` }, dataset: { samplingModel: "" } });
  const models = el("datalist", { attrs: { id: `mcp-models-${notice.question}` } });
  const fillModels = () => {
    const found = profiles.find((option) => option.name === profile.value);
    models.replaceChildren(...(found?.models ?? []).map((name) => el("option", { attrs: { value: name } })));
    if (!model.value || !(found?.models ?? []).includes(model.value)) model.value = found?.models?.[0] ?? "";
  };
  profile.addEventListener("change", fillModels);
  fillModels();
  if (chosen.model) model.value = chosen.model;
  const system = el("textarea", { className: "input", attrs: { rows: "2", "aria-label": "System prompt" }, dataset: { samplingSystem: "" } });
  system.value = request.system ?? "";
  const messages = el("textarea", { className: "input mono", attrs: { rows: "4", "aria-label": "Messages (JSON)" }, dataset: { samplingMessages: "" } });
  messages.value = JSON.stringify(request.messages ?? [], null, 2);
  const maxTokens = el("input", { className: "input input-small", attrs: { type: "number", min: "1", "aria-label": "Max tokens" }, dataset: { samplingMaxTokens: "" } });
  maxTokens.value = String(request.max_tokens ?? 1024);
  const status = el("span", { className: "muted", dataset: { questionStatus: "" }, attrs: { "aria-live": "polite" } });
  const approve = el("button", { className: "btn btn-small", text: "Approve", attrs: { type: "button" }, dataset: { action: "mcp-sampling-approve" } });
  const refuse = el("button", { className: "btn btn-ghost btn-small", text: "Refuse", attrs: { type: "button" }, dataset: { action: "mcp-sampling-refuse" } });
  const hints = [request.model_hints?.length ? `model hints: ${request.model_hints.join(", ")}` : "", Object.entries(request.priorities ?? {}).map(([name, value]) => `${name} ${value}`).join(", "), request.include_context ? `context: ${request.include_context}` : ""].filter(Boolean).join(" \xB7 ");
  const box = el(
    "div",
    { className: "mcp-question", dataset: { question: notice.question, questionKind: "sampling", state: "asked" } },
    el("strong", { text: `${server} asks for a model's answer (sampling)` }),
    el("pre", { className: "mcp-question-request", text: samplingText(request) }),
    el("p", { className: "muted", text: hints || "no model preferences" }),
    el("label", { className: "field" }, el("span", { text: "System prompt" }), system),
    el("label", { className: "field" }, el("span", { text: "Messages" }), messages),
    el("div", { className: "field-row" }, profile, model, models, maxTokens),
    el("div", { className: "field-row" }, approve, refuse, status),
    el("p", { className: "field-row", dataset: { samplingRun: "" } }),
    el("pre", { className: "mcp-question-answer", dataset: { samplingAnswer: "" } })
  );
  const settle = (answer, words) => {
    approve.disabled = refuse.disabled = true;
    status.textContent = words;
    box.dataset.state = "answered";
    reply(notice.question, answer);
  };
  approve.addEventListener("click", () => {
    let edited;
    try {
      edited = JSON.parse(messages.value);
    } catch {
      status.textContent = "the messages are not JSON";
      return;
    }
    try {
      localStorage.setItem(key, JSON.stringify({ profile: profile.value, model: model.value }));
    } catch {
    }
    settle({ action: "approve", profile: profile.value, model: model.value, request: { messages: edited, system: system.value, max_tokens: Number(maxTokens.value) } }, `running on ${profile.value} \xB7 ${model.value}\u2026`);
  });
  refuse.addEventListener("click", () => settle({ action: "refuse" }, "refusing\u2026"));
  return box;
}
function elicitationBox(server, notice, reply) {
  const params = notice.params ?? {};
  const status = el("span", { className: "muted", dataset: { questionStatus: "" }, attrs: { "aria-live": "polite" } });
  const button = (text, action, ghost = true) => el("button", { className: `btn btn-small${ghost ? " btn-ghost" : ""}`, text, attrs: { type: "button" }, dataset: { action } });
  const box = el("div", { className: "mcp-question", dataset: { question: notice.question, questionKind: "elicitation", state: "asked" } }, el("strong", { text: `${server} asks you` }), el("p", { text: params.message ?? "" }));
  const settle = (answer) => {
    for (const control of box.querySelectorAll("button, input, select, textarea")) control.disabled = true;
    box.dataset.state = "answered";
    reply(notice.question, answer);
  };
  const decline = button("Decline", "mcp-elicit-decline");
  const cancel = button("Cancel", "mcp-elicit-cancel");
  decline.addEventListener("click", () => settle({ action: "decline" }));
  cancel.addEventListener("click", () => settle({ action: "cancel" }));
  if (params.mode === "url") {
    const link = elicitationLink(params.url);
    const open = button(link ? `Open ${link.origin}\u2026` : "The link is not http(s): not opened", "mcp-elicit-open", false);
    open.disabled = !link;
    const confirm = el("div", { className: "field-row", attrs: { hidden: "" } }, el("span", { text: `Open ${link?.href ?? ""} in a new tab?` }));
    const yes = button("Yes, open it", "mcp-elicit-open-confirm", false);
    confirm.append(yes);
    open.addEventListener("click", () => {
      confirm.hidden = false;
    });
    yes.addEventListener("click", () => {
      if (!link) return;
      window.open(link.href, "_blank", "noopener,noreferrer");
      settle({ action: "accept" });
    });
    box.append(el("div", { className: "field-row" }, open, decline, cancel), confirm, status);
    return box;
  }
  const form = schemaForm(schemaFields(params.requestedSchema), { prefix: "elicit" });
  const accept = button("Accept", "mcp-elicit-accept", false);
  accept.addEventListener("click", () => {
    const read = form.read();
    if (read.error) {
      status.textContent = read.error;
      return;
    }
    settle({ action: "accept", content: read.content });
  });
  box.append(form.element, el("div", { className: "field-row" }, accept, decline, cancel, status));
  return box;
}
function endQuestions(bar, card) {
  for (const box of bar.querySelectorAll(".mcp-question:not([data-state='done'])")) {
    const question = (
      /** @type {HTMLElement} */
      box
    );
    question.dataset.state = "done";
    for (const control of question.querySelectorAll("button:not([data-action='mcp-sampling-inspect']), input, select, textarea")) control.disabled = true;
    one(question, "[data-question-status]").textContent = "the call ended before this was answered; the server was told";
  }
  delete card.dataset.mcpQuestion;
}

// static/playground/mcp-by-hand.js
function byHandBox(tool, { urls, addMock, profiles }) {
  const fields = schemaFields(tool.schema ?? { type: "object" });
  const form = schemaForm(fields, { prefix: "byHand" });
  const run = el("button", { className: "btn btn-small", text: `Run on ${tool.server}`, attrs: { type: "button" }, dataset: { action: "mcp-by-hand-run" } });
  const status = el("p", { className: "muted", attrs: { "aria-live": "polite" }, dataset: { byHandStatus: "" } });
  const notices = el("ol", { className: "mcp-notices" });
  const output = el("pre", { className: "mcp-preview", attrs: { hidden: "" }, dataset: { byHandResult: "" } });
  const pictures = el("div", { className: "mcp-images" });
  const keep = el("button", { className: "btn btn-ghost btn-small", text: "Keep as a mock", attrs: { type: "button", hidden: "" }, dataset: { action: "mcp-by-hand-mock" } });
  const box = el("div", { className: "mcp-by-hand", dataset: { state: "idle" } }, form.element, el("div", { className: "field-row" }, run, keep), status, notices, output, pictures);
  let last = null;
  run.addEventListener("click", async () => {
    const read = form.read();
    const input = read.content ?? {};
    const problems = read.error ? [{ message: read.error }] : validateAgainstSchema(input, tool.schema ?? {});
    if (problems.length) {
      box.dataset.state = "invalid";
      status.textContent = `Not sent: ${problems.map((p) => "path" in p && p.path !== "$" ? `${p.path}: ${p.message}` : p.message).join("; ")}`;
      return;
    }
    box.dataset.state = "running";
    run.disabled = true;
    keep.hidden = true;
    status.textContent = "running\u2026";
    notices.replaceChildren();
    pictures.replaceChildren();
    const reply = (question, answer) => apiFetch(urls.mcp_answers, { method: "POST", body: { question, answer } }).catch((error) => void (status.textContent = `the answer was not taken: ${error.message}`));
    const onNotice = (notice) => {
      if (QUESTION_KINDS.has(notice.kind)) return showQuestion({ bar: box, card: box, server: tool.server, notice, reply, profiles, runs: { addRun: () => {
      }, show: () => {
      } } });
      notices.append(el("li", { text: `+${notice.at_ms} ms ${noticeText(notice)}` }));
    };
    const final = await callOnce(urls.mcp_call, { server: tool.server, tool: tool.mcpName, input, approval: "once" }, onNotice);
    endQuestions(box, box);
    run.disabled = false;
    if (final.type !== "result") {
      box.dataset.state = "failed";
      status.textContent = final.error?.message ?? "the call failed";
      return;
    }
    last = { input, content: final.content, isError: Boolean(final.is_error) };
    output.textContent = resultText(final.content);
    output.hidden = false;
    pictures.replaceChildren(...imagePreviews(final.content, { server: tool.server, urls }));
    box.dataset.state = "done";
    status.textContent = `result in ${final.elapsed_ms} ms${final.is_error ? " (is_error)" : ""}`;
    keep.hidden = addMock === null;
  });
  keep.addEventListener("click", async () => {
    if (!last || !addMock) return;
    const mock = mockFromCall({ name: tool.name, input: last.input }, { content: last.content, isError: last.isError });
    status.textContent = await addMock(mock) ? `kept as a mock of ${tool.name} for this input` : "the mock was not saved (see the mocks dialog)";
  });
  return box;
}
async function callOnce(url, body, onNotice) {
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
      body: JSON.stringify(body)
    });
    if (!response.ok || !response.body) {
      const answer = await response.json().catch(() => null);
      return { type: "error", error: answer?.error ?? { message: `the server answered ${response.status}` } };
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    let final = null;
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      const read = readLines(rest + value);
      rest = read.rest;
      for (const line of read.values) {
        if (line.type === "notice") onNotice(line);
        else if (line.type === "result" || line.type === "error") final = line;
      }
    }
    return final ?? { type: "error", error: { message: "the answer ended before its result" } };
  } catch {
    return { type: "error", error: { message: "the server could not be reached" } };
  }
}

// static/playground/mcp-tools.js
var LOST = { type: "error", error: { code: "connection_lost", message: "the connection was lost during the call (it was cancelled)" } };
var McpTools = class {
  #panel;
  #cardsRoot;
  #urls;
  #servers = [];
  #removed = [];
  // the servers a reloaded file no longer names ([{name, removed_at}])
  #index = /* @__PURE__ */ new Map();
  #policy;
  // {servers, tools}: the server's, as this page last stored it
  #running = /* @__PURE__ */ new Map();
  // call id → AbortController
  #ran = /* @__PURE__ */ new Set();
  // the tool_use ids a server answered with a result (stored, or run here)
  #conversationId;
  #inspector;
  #onAddTools;
  #onChange;
  /** @type {Promise<unknown> | null} */
  #loaded = null;
  // the first listing (a promise), which step mode waits for
  #loadTurn = 0;
  // the newest listing asked for (only its answer is drawn)
  /** @type {Promise<unknown> | null} */
  #latestLoad = null;
  #socket;
  // () => the page's ConversationSocket (or null)
  #marks;
  // () => the conversation's server marks ({name: {server, mcp_name}})
  #profiles;
  // the upstream profiles a sampling request may run on ([{name, label, models}])
  #runs;
  // the inspector: a sampling answer's run is listed there ({addRun, show})
  #onSocket = /* @__PURE__ */ new Map();
  // call_id → {onNotice, resolve, started} of the calls sent on the socket
  #sent = 0;
  #marksQueue = Promise.resolve();
  // the last of the server marks' stores, which go one after another
  #marksFailed = false;
  // one of the queued stores failed (its error is shown)
  #approvalStored = Promise.resolve();
  // the last server choice's store
  #catalog;
  // each server's resources and prompts (mcp-catalog.js)
  #addMock;
  // (mock) => Promise<boolean>: a by-hand result kept as a mock (mocks.js), or null
  #stepOn;
  // () => whether step mode is on (it runs the calls on auto itself)
  #search = "";
  // the picker's search words
  /**
   * @param {HTMLElement} panel
   * @param {{ cardsRoot: any, inspector: any, urls: any, conversationId: string, onAddTools: any, onChange?: () => void, socket?: () => any, marks?: () => Record<string, any>, approval?: { servers?: Record<string, string> }, profiles?: Array<{ name: string, label?: string, models?: string[] }>, runs?: { addRun: (run: { id: string, label: string }) => void, show: (runId: string) => void }, composer?: import("./mcp-catalog.js").ComposerTarget | null, addMock?: ((mock: any) => Promise<boolean>) | null, stepOn?: () => boolean }} options
   */
  constructor(panel, { cardsRoot, inspector, urls, conversationId, onAddTools, onChange = () => {
  }, socket = () => null, marks = () => ({}), approval = {}, profiles = [], runs = { addRun: () => {
  }, show: () => {
  } }, composer = null, addMock = null, stepOn = () => false }) {
    this.#addMock = addMock;
    this.#stepOn = stepOn;
    this.#panel = panel;
    this.#profiles = profiles;
    this.#runs = runs;
    this.#marks = marks;
    this.#socket = socket;
    this.#inspector = new McpInspector(inspector, { urls });
    this.#cardsRoot = cardsRoot;
    this.#urls = urls;
    this.#conversationId = conversationId;
    this.#onAddTools = onAddTools;
    this.#onChange = onChange;
    this.#policy = policyOf(approval, marks() ?? {});
    this.#catalog = new McpCatalog({ urls, composer });
    one(panel, "[data-action='mcp-connect']").addEventListener("click", () => this.load({ connect: true }));
    panel.querySelector("[data-action='mcp-reload']")?.addEventListener("click", () => this.#reload());
  }
  /** Resolves once the servers were listed once (their tools known), failed or not. */
  whenLoaded() {
    return this.#loaded ?? this.load({ connect: true });
  }
  /** The servers as the server lists them; `connect` starts those not started: `true` every
   * one, a list of names those (the ones the conversation's tools come from). */
  load(options) {
    const loading = this.#load(options, ++this.#loadTurn);
    this.#latestLoad = loading;
    this.#loaded ??= loading;
    return loading;
  }
  /** Only the newest listing asked for is drawn: Connect clicked while the page's own listing
   * is out could otherwise be answered first and then drawn over by the older, staler one. A
   * listing overtaken that way resolves when the newest is drawn. */
  async #load({ connect = false } = {}, turn) {
    this.#panel.dataset.loaded = "loading";
    try {
      const body = connectBody(connect);
      const answer = body ? await apiFetch(this.#urls.mcp_connect, { method: "POST", body }) : await apiFetch(this.#urls.mcp_servers);
      if (turn !== this.#loadTurn) return this.#latestLoad;
      this.#servers = answer.servers;
      this.#removed = answer.removed ?? [];
      this.#index = toolIndex(this.#servers);
      this.#drawPanel();
      this.#panel.dataset.loaded = "true";
      this.#inspector.loadSessions();
    } catch (error) {
      if (turn !== this.#loadTurn) return this.#latestLoad;
      one(this.#panel, "[data-mcp-error]").textContent = error.message;
      this.#panel.dataset.loaded = "failed";
    }
    this.#onChange();
  }
  /** Staff: the operator's servers file read again now; what changed is said on the panel. */
  async #reload() {
    const said = one(this.#panel, "[data-mcp-reloaded]");
    said.textContent = "reading the servers file\u2026";
    try {
      const answer = await apiFetch(this.#urls.mcp_reload, { method: "POST", body: {} });
      const change = answer.reloaded;
      const parts = change ? [["added", change.added], ["removed", change.removed], ["restarted", change.changed], ["roots announced", change.roots_changed]].filter(([, names]) => names.length).map(([what, names]) => `${what}: ${names.join(", ")}`) : [];
      said.textContent = change?.error ? `Not reloaded: ${change.error}` : `Reloaded${parts.length ? ` (${parts.join("; ")})` : ": nothing changed"}.`;
      this.#panel.dataset.reloaded = change?.error ? "failed" : "true";
      await this.load({});
    } catch (error) {
      said.textContent = `Not reloaded: ${error.message}`;
      this.#panel.dataset.reloaded = "failed";
    }
  }
  /** The calls the server stored for this conversation (a reload's inspector), drawn before
   * any run on this page; `data-stored` on the tab says it is done ("true", or "failed"). */
  async loadRecorded() {
    try {
      const { calls } = await apiFetch(this.#urls.mcp_calls);
      this.#inspector.addStored(calls);
      for (const id of ranOnServer(calls)) this.#ran.add(id);
      for (const call of calls) {
        for (const run of call.sampling_runs ?? []) this.#runs.addRun({ id: run.id, label: `Sampling for ${call.server} \xB7 ${run.model} on ${run.profile}` });
      }
    } catch {
      this.#inspector.storedFailed();
    }
  }
  /** The tool_use ids answered by a run on their server (replay.js marks them "run again"). */
  ranOnServer() {
    return new Set(this.#ran);
  }
  /** Pending calls split by the approval policy (step mode runs the `auto` ones). */
  split(calls) {
    return splitCalls(calls, this.#index, this.#policy);
  }
  // --- The settings panel -------------------------------------------------------------------
  #drawPanel() {
    const list = one(this.#panel, "[data-mcp-servers]");
    one(this.#panel, "[data-mcp-error]").textContent = "";
    this.#catalog.stop();
    list.replaceChildren(this.#searchBox(), ...this.#servers.map((server) => this.#serverItem(server)));
    this.#filter();
  }
  /** The picker's search: every server's tools whose name, title or description hold every
   * word typed; the others hidden (a tool ticked stays ticked). */
  #searchBox() {
    const input = el("input", { className: "input input-small", attrs: { type: "search", placeholder: "Search the servers' tools", "aria-label": "Search the servers' tools" }, dataset: { mcpSearch: "" } });
    input.value = this.#search;
    input.addEventListener("input", () => {
      this.#search = input.value;
      this.#filter();
    });
    return el("li", { className: "mcp-search" }, input);
  }
  #filter() {
    for (const row of this.#panel.querySelectorAll(".mcp-tool[data-tool-name]")) {
      const found = this.#index.get(
        /** @type {HTMLElement} */
        row.dataset.toolName
      );
      row.hidden = Boolean(found) && !toolMatches({ ...found.tool, title: found.title }, this.#search);
    }
  }
  #serverItem(server) {
    const stopped = server.state === "stopped";
    const state = el("span", { className: "mcp-state", text: stopped ? "not started" : server.state, dataset: { mcpState: server.state } });
    const hint = stopped ? " \u2014 Connect / refresh starts it and lists its tools" : "";
    const why = el("span", { className: "muted", text: server.reason ? ` \u2014 ${server.reason}` : hint });
    const approval = this.#approvalSelect({ server: server.name }, `Approval for ${server.name}`);
    const boxes = server.tools.map((tool) => {
      const box = el("input", { attrs: { type: "checkbox", "aria-label": `Add ${tool.name}` }, dataset: { mcpTool: tool.name } });
      const own = this.#approvalSelect({ server: server.name, mcpName: tool.mcp_name }, `Approval for ${tool.name}`);
      return { tool, box, row: this.#toolRow(server, tool, box, own) };
    });
    const add = el("button", { className: "btn btn-small", text: "Add to tools", attrs: { type: "button" }, dataset: { action: "mcp-add-tools" } });
    add.disabled = boxes.length === 0;
    add.addEventListener("click", () => {
      const chosen = boxes.filter((b) => b.box.checked).map((b) => this.#index.get(b.tool.name));
      if (!chosen.length) return;
      this.#onAddTools((current) => mergeTools(current, chosen.map((entry) => entry.tool)));
      this.#storeMarks(chosen);
    });
    return el(
      "li",
      { className: "mcp-server", dataset: { server: server.name, state: server.state } },
      el("div", { className: "mcp-server-head" }, el("strong", { text: server.name }), server.mine ? el("span", { className: "badge mcp-mine", text: "yours", dataset: { mcpMine: "" } }) : "", el("span", { className: "muted", text: ` ${server.transport} \xB7 ${server.where} \xB7 ` }), state, why),
      el("label", { className: "field-row" }, el("span", { className: "muted", text: "Run calls:" }), approval),
      el("ul", { className: "mcp-tools" }, ...boxes.map((b) => b.row)),
      add,
      this.#catalog.section(server)
    );
  }
  /** A tool of the picker: its name and title, description, annotations, approval, and a
   * Run… that opens a form of its input schema (mcp-by-hand.js). */
  #toolRow(server, tool, box, approval) {
    const words = annotationWords(tool.annotations);
    const open = el("button", { className: "btn btn-ghost btn-small", text: "Run\u2026", attrs: { type: "button", "aria-expanded": "false" }, dataset: { action: "mcp-by-hand" } });
    const place = el("div", { className: "mcp-by-hand-place" });
    open.addEventListener("click", () => {
      const shown = place.firstChild !== null;
      if (shown) place.replaceChildren();
      else place.append(byHandBox({ name: tool.name, server: server.name, mcpName: tool.mcp_name, schema: tool.input_schema }, { urls: this.#urls, addMock: this.#addMock, profiles: this.#profiles }));
      open.setAttribute("aria-expanded", String(!shown));
    });
    return el(
      "li",
      { className: "mcp-tool", dataset: { toolName: tool.name, destructive: String(isDestructive(tool.annotations)) } },
      el("div", { className: "mcp-tool-head" }, el("label", { className: "check" }, box, el("code", { text: tool.name })), approval, open),
      tool.title ? el("span", { className: "mcp-tool-title", text: tool.title }) : "",
      tool.description ? el("p", { className: "muted mcp-description", text: tool.description }) : "",
      words.length ? el("span", { className: "mcp-annotations", text: words.join(" \xB7 "), dataset: { annotations: words.join(" ") } }) : "",
      el("details", { className: "mcp-schema" }, el("summary", { text: "Input schema" }), el("pre", { className: "mcp-preview", text: JSON.stringify(tool.input_schema ?? {}, null, 2), dataset: { mcpSchema: "" } })),
      place
    );
  }
  #approvalSelect(where, label) {
    const select = el("select", { className: "input input-small", attrs: { "aria-label": label }, dataset: { mcpApproval: where.mcpName ?? "" } });
    const inherited = where.mcpName ? [["", "as the server"]] : [];
    const auto = where.mcpName ? "auto" : "auto (not destructive tools)";
    for (const [value, text] of [...inherited, ["ask", "ask"], ["auto", auto]]) select.append(el("option", { text, attrs: { value } }));
    const own = where.mcpName ? this.#policy.tools[`${where.server}/${where.mcpName}`] ?? "" : approvalFor(this.#policy, { server: where.server, mcpName: "" });
    select.value = own;
    select.addEventListener("change", () => {
      this.#policy = withApproval(this.#policy, { ...where, mcpName: where.mcpName ?? null, value: select.value || void 0 });
      if (where.mcpName) this.#storeApproval(where.server, where.mcpName);
      else this.#storeServerApproval(where.server, select.value || null);
      this.#onChange();
    });
    return select;
  }
  /** Which server each added tool came from, kept beside the tools (not sent upstream).
   * Adds are stored one at a time, in the order they were made, and data-marks says "saved"
   * only once every one queued is stored: two quick adds once showed "saved" when the first
   * answered, with the second still on its way. Resolves when this add's turn is done. */
  #storeMarks(entries) {
    this.#panel.dataset.marks = "saving";
    const body = { mcp_tools: marksOf(entries, this.#policy) };
    const store = this.#marksQueue.then(async () => {
      try {
        await apiFetch(this.#urls.mcp_marks, { method: "POST", body });
      } catch (error) {
        one(this.#panel, "[data-mcp-error]").textContent = `The tools' servers were not stored: ${error.message}`;
        this.#marksFailed = true;
      }
      if (store !== this.#marksQueue) return;
      this.#panel.dataset.marks = this.#marksFailed ? "failed" : "saved";
      this.#marksFailed = false;
    });
    this.#marksQueue = store;
    return store;
  }
  /** A tool's own approval, stored with its mark on the server (what a grid's loop reads),
   * for the conversation's tools of that server and name. */
  #storeApproval(server, mcpName) {
    const entries = [...this.#index.values()].filter((entry) => entry.server === server && entry.mcpName === mcpName);
    if (entries.length) this.#storeMarks(entries);
  }
  /** A server's choice, stored on the server (which holds every call to it). */
  #storeServerApproval(server, approval) {
    this.#approvalStored = this.#approvalStored.then(() => this.#sendServerApproval(server, approval));
  }
  async #sendServerApproval(server, approval) {
    this.#panel.dataset.approval = "saving";
    try {
      await apiFetch(this.#urls.mcp_approval, { method: "POST", body: { server, approval } });
      this.#panel.dataset.approval = "saved";
    } catch (error) {
      one(this.#panel, "[data-mcp-error]").textContent = `The approval was not stored: ${error.message}`;
      this.#panel.dataset.approval = "failed";
    }
  }
  // --- The result cards ---------------------------------------------------------------------
  #card(callId) {
    return this.#cardsRoot.querySelector(`.tool-card[data-tool-use-id="${CSS.escape(String(callId))}"]`);
  }
  /** The pending calls' cards are drawn: a Run bar on each an MCP server can run, and on each
   * whose tool came from a server that cannot run it now (removed from the configuration,
   * failed, its tool gone) a word saying so, instead of no bar at all. */
  decorate(calls) {
    const marks = this.#marks() ?? {};
    for (const call of calls) {
      const found = this.#index.get(call.name);
      const card = this.#card(call.id);
      if (!card) continue;
      const note = card.querySelector(":scope > .tool-card-mcp[data-mcp-unavailable]");
      if (found && note) {
        note.remove();
        delete card.dataset.mcp;
      }
      if (card.querySelector(":scope > .tool-card-mcp")) continue;
      if (found) {
        card.append(this.#bar(call, card, found));
        card.dataset.mcp ??= "ready";
        if (!this.#stepOn() && !this.#ran.has(call.id) && approvalFor(this.#policy, found) === "auto") {
          card.dataset.mcpAuto = "true";
          this.run(call);
        }
        continue;
      }
      const why = this.#panel.dataset.loaded === "true" ? unavailableWhy(marks[call.name], this.#servers, this.#removed) : null;
      if (!why) continue;
      card.append(el("div", { className: "tool-card-mcp muted", text: why, dataset: { mcpUnavailable: "" } }));
      card.dataset.mcp = "unavailable";
    }
  }
  /** The card's MCP bar: Run on <server> (allow this once), Always allow (this tool runs
   * without asking in this conversation from now on, this call included), Cancel, the status,
   * the notices, and the tool's annotations. */
  #bar(call, card, found) {
    const run = el("button", { className: "btn btn-small", text: `Run on ${found.server}`, attrs: { type: "button", title: "Allow once: run this call on its server" }, dataset: { action: "mcp-run" } });
    const always = el("button", { className: "btn btn-ghost btn-small", text: "Always allow", attrs: { type: "button", title: "Run this tool's calls without asking, in this conversation" }, dataset: { action: "mcp-always" } });
    const cancel = el("button", { className: "btn btn-ghost btn-small", text: "Cancel", attrs: { type: "button", hidden: "" }, dataset: { action: "mcp-cancel" } });
    const status = el("span", { className: "muted", dataset: { mcpStatus: "" }, attrs: { "aria-live": "polite" } });
    const notices = el("ol", { className: "mcp-notices", dataset: { mcpNotices: "" } });
    const words = annotationWords(found.annotations);
    const hints = el("span", { className: "mcp-annotations", text: words.join(" \xB7 "), dataset: { annotations: words.join(" ") } });
    run.addEventListener("click", () => this.run(call, { once: true }));
    always.addEventListener("click", () => {
      this.#policy = withApproval(this.#policy, { server: found.server, mcpName: found.mcpName, value: "auto" });
      this.#storeApproval(found.server, found.mcpName);
      this.#drawPanel();
      this.run(call, { once: true });
      this.#onChange();
    });
    cancel.addEventListener("click", () => this.#running.get(call.id)?.abort());
    return el("div", { className: "tool-card-mcp" }, run, always, cancel, status, hints, notices);
  }
  /** Run `call` on its server and put the converted result in its card; resolves when done
   * (true when a result was put there). `once`: the person allowed this call (a click); else
   * the server runs it only if the conversation's policy says auto for it. */
  async run(call, { once = false } = {}) {
    const found = this.#index.get(call.name);
    const card = this.#card(call.id);
    if (!found || !card || this.#running.has(call.id)) return false;
    const bar = one(card, ".tool-card-mcp");
    const [runButton, always, cancel, status, , notices] = bar.children;
    const abort = new AbortController();
    const startedAt = Date.now();
    this.#running.set(call.id, abort);
    card.dataset.mcp = "running";
    runButton.disabled = true;
    always.disabled = true;
    cancel.hidden = false;
    status.textContent = "running\u2026";
    notices.replaceChildren();
    let final = null;
    try {
      if (!once) await Promise.all([this.#marksQueue, this.#approvalStored]);
      const socket = this.#socket();
      const onSocket = Boolean(socket?.isOpen);
      const reply = (question, answer) => onSocket && socket.isOpen ? socket.send({ action: "mcp_answer", question, answer }) : apiFetch(this.#urls.mcp_answers, { method: "POST", body: { question, answer } }).catch((error) => {
        status.textContent = `the answer was not taken: ${error.message}`;
      });
      const onNotice = (notice) => {
        if (QUESTION_KINDS.has(notice.kind)) return showQuestion({ bar, card, server: found.server, notice, reply, profiles: this.#profiles, runs: this.#runs });
        notices.append(el("li", { text: `+${notice.at_ms} ms ${noticeText(notice)}` }));
      };
      const body = { server: found.server, tool: found.mcpName, input: call.input ?? {}, ...once ? { approval: "once" } : {} };
      final = onSocket ? await this.#callOnSocket(socket, call, body, abort.signal, onNotice) : await this.#callOverHttp(call, body, abort, onNotice);
    } finally {
      this.#running.delete(call.id);
      runButton.disabled = false;
      always.disabled = false;
      cancel.hidden = true;
      endQuestions(bar, card);
    }
    this.#inspector.addCall({ callId: call.id, server: found.server, tool: found.mcpName, startedAt: final.started_at ?? startedAt }, final.exchanges);
    this.#inspector.loadSessions();
    if (final.type === "result") {
      this.#ran.add(call.id);
      status.textContent = "storing the result's images\u2026";
      const { content, pictures } = await storeImages(final.content, { server: found.server, urls: this.#urls });
      final = { ...final, content };
      bar.querySelector(":scope > .mcp-images")?.remove();
      if (pictures.length) bar.append(el("div", { className: "mcp-images", dataset: { images: String(pictures.length) } }, ...pictures));
    }
    return this.#show(call, card, status, final);
  }
  /** The call as a socket action; resolves with its last line (result, error or cancelled). */
  #callOnSocket(socket, call, body, signal, onNotice) {
    this.#sent += 1;
    const callId = String(this.#sent);
    return new Promise((resolve) => {
      this.#onSocket.set(callId, { onNotice, resolve, started: false });
      const sent = socket.send({ action: "mcp_call", call_id: callId, ...body, tool_use_id: call.id });
      if (!sent) this.#settle(callId, LOST);
      signal.addEventListener("abort", () => socket.send({ action: "mcp_cancel", call_id: callId }) || this.#settle(callId, { type: "cancelled" }), { once: true });
    });
  }
  /** A frame of the page's socket about a call sent on it (page.js hands them here). */
  frame(frame) {
    if (frame.type === "error") {
      const [refused] = [...this.#onSocket].find(([, entry2]) => !entry2.started) ?? [];
      if (refused !== void 0) this.#settle(refused, { type: "error", error: frame.error });
      return;
    }
    const entry = this.#onSocket.get(frame.call_id);
    if (!entry) return;
    const line = frame.line ?? {};
    if (line.type === "started") entry.started = true;
    else if (line.type === "notice") entry.onNotice(line);
    else if (["result", "error", "cancelled"].includes(line.type)) this.#settle(frame.call_id, line);
  }
  /** The socket closed: its calls were cancelled by the server, and end here as failed. */
  socketLost() {
    for (const callId of [...this.#onSocket.keys()]) this.#settle(callId, LOST);
  }
  #settle(callId, line) {
    const entry = this.#onSocket.get(callId);
    if (!entry) return;
    this.#onSocket.delete(callId);
    entry.resolve(line);
  }
  async #callOverHttp(call, body, abort, onNotice) {
    try {
      const response = await fetch(this.#urls.mcp_call, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
        body: JSON.stringify({ ...body, conversation: this.#conversationId, tool_use_id: call.id }),
        signal: abort.signal
      });
      if (!response.ok) {
        const answer = await response.json().catch(() => null);
        return { type: "error", error: answer?.error ?? { message: `the server answered ${response.status}` } };
      }
      return await this.#readStream(response, onNotice);
    } catch {
      return abort.signal.aborted ? { type: "cancelled" } : { type: "error", error: { message: "the server could not be reached" } };
    }
  }
  async #readStream(response, onNotice) {
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    let final = null;
    for (; ; ) {
      const { value, done } = await reader.read();
      if (done) break;
      const read = readLines(rest + value);
      rest = read.rest;
      for (const line of read.values) {
        if (line.type === "notice") onNotice(line);
        else if (line.type === "result" || line.type === "error") final = line;
      }
    }
    return final ?? { type: "error", error: { message: "the answer ended before its result" } };
  }
  #show(call, card, status, final) {
    if (final.type === "cancelled") {
      card.dataset.mcp = "cancelled";
      status.textContent = "cancelled (the server was told); answer by hand, or Run again";
      return false;
    }
    if (final.type === "error") {
      card.dataset.mcp = "failed";
      card.dataset.mcpError = final.error.code ?? "error";
      status.textContent = `${final.error.message} \u2014 answer by hand, or Run again`;
      return false;
    }
    const input = one(card, "[data-tool-result-input]");
    input.value = resultText(final.content);
    input.dispatchEvent(new Event("input", { bubbles: true }));
    const toggle = one(card, "[data-tool-result-error]");
    toggle.checked = Boolean(final.is_error);
    toggle.dispatchEvent(new Event("change", { bubbles: true }));
    card.dataset.mcp = "done";
    delete card.dataset.mcpError;
    const omitted = final.omitted_notices ? `; ${final.omitted_notices} more notices not shown` : "";
    status.textContent = `result in ${final.elapsed_ms} ms${final.is_error ? " (is_error)" : ""}${omitted}; edit it before sending if you like`;
    return true;
  }
};

export {
  mockFor,
  answerCalls,
  resultText,
  mockFromCall,
  describeMatch,
  McpTools
};
