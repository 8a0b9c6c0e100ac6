// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  Modal,
  canAct,
  cannotActReason,
  nextTurn,
  parseResultContent,
  pendingCalls,
  requestWarnings,
  showError
} from "../chunk-D4QFQD3P.js";
import "../chunk-EMOQE56V.js";
import {
  drawChanges
} from "../chunk-53BXYIXD.js";
import {
  describeChange,
  jsonDiff
} from "../chunk-EDSQLX5D.js";
import "../chunk-6XGUQ5CV.js";
import {
  pretty
} from "../chunk-PODVIVX6.js";
import {
  McpTools,
  answerCalls,
  describeMatch,
  mockFor,
  mockFromCall,
  resultText
} from "../chunk-YXJ4D33X.js";
import "../chunk-ZZFHTOI2.js";
import {
  serversInUse
} from "../chunk-VPOJLUZU.js";
import {
  apiFetch
} from "../chunk-22CQPU6I.js";
import {
  announce,
  copyText,
  el,
  one,
  parts
} from "../chunk-ACANGUXN.js";
import "../chunk-FZMVVHNY.js";

// static/playground/mcp-own.js
var McpOwnServers = class {
  #root;
  #url;
  #onChange;
  /** @type {Array<any>} */
  #servers = [];
  /** @type {string | null} */
  #editing = null;
  // the id of the server the form changes, or null: a new one
  /**
   * @param {HTMLElement} root
   * @param {{ url: string, onChange: () => void }} options
   */
  constructor(root, { url, onChange }) {
    this.#root = root;
    this.#url = url;
    this.#onChange = onChange;
    const form = (
      /** @type {HTMLFormElement} */
      one(root, "[data-mcp-own-form]")
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#save(form);
    });
    one(root, "[data-action='mcp-own-header']").addEventListener("click", () => this.#headerRow(form, { name: "", set: false }));
    one(root, "[data-action='mcp-own-new']").addEventListener("click", () => this.#fill(form, null));
    const signedIn = new URLSearchParams(location.search).get("mcp_signed_in");
    if (signedIn) this.#say(`Signed in to ${signedIn}.`);
  }
  async load() {
    this.#root.dataset.loaded = "loading";
    try {
      this.#servers = (await apiFetch(this.#url)).servers;
      this.#draw();
      this.#root.dataset.loaded = "true";
    } catch (error) {
      this.#say(error.message, true);
      this.#root.dataset.loaded = "failed";
    }
  }
  #draw() {
    const form = (
      /** @type {HTMLFormElement} */
      one(this.#root, "[data-mcp-own-form]")
    );
    const items = this.#servers.map((server) => {
      const headers = server.headers.map((header) => `${header.name}: value set`).join(", ");
      const how = server.auth === "oauth" ? server.signed_in ? "OAuth \xB7 signed in" : "OAuth \xB7 not signed in" : headers || "no headers";
      const buttons = [this.#button("Change", "mcp-own-edit", () => this.#fill(form, server))];
      if (server.auth === "oauth") buttons.push(this.#button("Sign in", "mcp-own-sign-in", () => this.#signIn(server)));
      if (server.auth === "oauth" && server.signed_in) buttons.push(this.#button("Disconnect", "mcp-own-disconnect", () => this.#act(server, "disconnect/", `Disconnected from ${server.name}: its tokens are deleted.`)));
      buttons.push(this.#button("Remove", "mcp-own-remove", () => this.#act(server, "delete/", `Removed ${server.name}.`)));
      return el(
        "li",
        { className: "mcp-own-server", dataset: { ownServer: server.name, signedIn: String(server.signed_in) } },
        el("strong", { text: server.name }),
        el("span", { className: "muted", text: ` ${server.where} \xB7 ${how}${server.unreadable ? " \xB7 its secrets no longer open: enter them again" : ""}` }),
        el("span", { className: "field-row" }, ...buttons)
      );
    });
    one(this.#root, "[data-mcp-own-list]").replaceChildren(...items);
  }
  #button(text, action, onClick) {
    const button = el("button", { className: "btn btn-ghost btn-small", text, attrs: { type: "button" }, dataset: { action } });
    button.addEventListener("click", onClick);
    return button;
  }
  /** The form filled with a server to change (its header values never: "value set"), or
   * emptied for a new one. */
  #fill(form, server) {
    this.#editing = server?.id ?? null;
    form.elements.namedItem("name").value = server?.name ?? "";
    form.elements.namedItem("url").value = server?.url ?? "";
    form.elements.namedItem("auth").value = server?.auth ?? "headers";
    one(form, "[data-mcp-own-headers]").replaceChildren();
    for (const header of server?.headers ?? []) this.#headerRow(form, header);
    one(form, "[data-mcp-own-save]").textContent = server ? `Save ${server.name}` : "Add server";
    (form.closest("details") ?? form).setAttribute("open", "");
  }
  #headerRow(form, header) {
    const name = el("input", { className: "input input-small", attrs: { "aria-label": "Header name", placeholder: "Authorization" }, dataset: { headerName: "" } });
    name.value = header.name;
    const value = el("input", { className: "input input-small", attrs: { type: "password", autocomplete: "off", "aria-label": `Value of ${header.name || "the header"}`, placeholder: header.set ? "value set (blank keeps it)" : "value" }, dataset: { headerValue: "" } });
    const row = el("div", { className: "field-row mcp-own-header" }, name, value);
    one(form, "[data-mcp-own-headers]").append(row);
  }
  async #save(form) {
    const field = (name) => (
      /** @type {HTMLInputElement} */
      form.elements.namedItem(name).value
    );
    const headers = [...form.querySelectorAll(".mcp-own-header")].map((row) => ({ name: (
      /** @type {HTMLInputElement} */
      one(row, "[data-header-name]").value.trim()
    ), value: (
      /** @type {HTMLInputElement} */
      one(row, "[data-header-value]").value
    ) })).filter((header) => header.name);
    const body = { name: field("name").trim(), url: field("url").trim(), auth: field("auth"), headers };
    const url = this.#editing ? `${this.#url}${this.#editing}/` : this.#url;
    try {
      const saved = await apiFetch(url, { method: "POST", body });
      this.#fill(form, null);
      this.#say(`Saved ${saved.name}.`);
      await this.load();
      this.#onChange();
    } catch (error) {
      this.#say(error.message, true);
    }
  }
  async #signIn(server) {
    try {
      const answer = await apiFetch(`${this.#url}${server.id}/sign-in/`, { method: "POST", body: { return_to: location.pathname + location.search.replace(/([?&])mcp_signed_in=[^&]*&?/, "$1").replace(/[?&]$/, "") } });
      if (answer.authorize_url) location.assign(answer.authorize_url);
      else this.#say(`${server.name} let us in without signing in.`);
    } catch (error) {
      this.#say(error.message, true);
    }
  }
  async #act(server, action, said) {
    try {
      await apiFetch(`${this.#url}${server.id}/${action}`, { method: "POST", body: {} });
      this.#say(said);
      await this.load();
      this.#onChange();
    } catch (error) {
      this.#say(error.message, true);
    }
  }
  #say(text, failed = false) {
    const status = one(this.#root, "[data-mcp-own-status]");
    status.textContent = text;
    status.dataset.failed = String(failed);
  }
};

// static/playground/mocks.js
function setField(node, property, value, eventName) {
  node[property] = value;
  node.dispatchEvent(new Event(eventName, { bubbles: true }));
}
var ToolMocks = class {
  #modal;
  #url;
  #mocks;
  #parts;
  #cardsRoot;
  #toolNames;
  #calls = [];
  #version = 0;
  #autoFilled = /* @__PURE__ */ new Set();
  // call ids an auto mock filled once (a person may clear it after)
  constructor(dialog, { url, mocks, toolNames, toolResults, openers }) {
    this.#modal = new Modal(dialog);
    this.#url = url;
    this.#mocks = [...mocks ?? []];
    this.#toolNames = toolNames;
    this.#cardsRoot = toolResults;
    this.#parts = parts(dialog, {
      list: "[data-mock-list]",
      form: "[data-mock-form]",
      tool: "[data-mock-tool]",
      names: "[data-mock-tool-names]",
      match: "[data-mock-match]",
      content: "[data-mock-content]",
      isError: "[data-mock-is-error]",
      auto: "[data-mock-auto]",
      error: "[data-mock-error]"
    });
    this.#parts.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#addFromForm();
    });
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
    one(toolResults, "[data-action='answer-from-mocks']").addEventListener("click", () => this.answerAll());
    this.#drawList();
  }
  get mocks() {
    return this.#mocks;
  }
  open(opener) {
    this.#parts.names.replaceChildren(...this.#toolNames().map((name) => el("option", { attrs: { value: name } })));
    showError(this.#parts.error, "");
    this.#modal.open(opener);
  }
  /** Replace the list on the server; true when it was stored. */
  async save(mocks) {
    try {
      const answer = await apiFetch(this.#url, { method: "PUT", body: { tool_mocks: mocks } });
      this.#mocks = answer.tool_mocks;
      this.#version += 1;
      this.#drawList();
      this.decorate(this.#calls);
      return true;
    } catch (error) {
      showError(this.#parts.error, { message: `${error.message}${error.field ? ` (${error.field})` : ""}`, field: error.field });
      return false;
    }
  }
  async #addFromForm() {
    const { tool, match, content, isError, auto } = this.#parts;
    let matchValue = null;
    if (match.value.trim()) {
      try {
        matchValue = JSON.parse(match.value);
      } catch (error) {
        showError(this.#parts.error, { message: `match is not JSON: ${error.message}`, field: "match" });
        return;
      }
    }
    const mock = { tool: tool.value.trim(), match: matchValue, content: parseResultContent(content.value).content, is_error: isError.checked, auto: auto.checked };
    if (await this.save([...this.#mocks, mock])) {
      this.#parts.form.reset();
      showError(this.#parts.error, "");
    }
  }
  #drawList() {
    const list = this.#parts.list;
    list.dataset.count = String(this.#mocks.length);
    if (this.#mocks.length === 0) {
      list.replaceChildren(el("li", { className: "muted", text: "No mocks yet. Add one below, or \u201CSave as mock\u201D on a result card." }));
      return;
    }
    list.replaceChildren(
      ...this.#mocks.map((mock, index) => {
        const remove = el("button", { className: "btn btn-ghost btn-small", text: "Delete", attrs: { type: "button", "aria-label": `Delete mock ${index + 1}` }, dataset: { action: "delete-mock" } });
        remove.addEventListener("click", () => this.save(this.#mocks.filter((_, i) => i !== index)));
        const flags = [mock.is_error ? "is_error" : "", mock.auto ? "auto" : ""].filter(Boolean).join(" \xB7 ");
        return el(
          "li",
          { className: "mock-row", dataset: { tool: mock.tool, auto: String(mock.auto), isError: String(mock.is_error) } },
          el("code", { className: "mock-tool", text: mock.tool }),
          el("span", { className: "mock-match muted", text: describeMatch(mock.match) }),
          el("code", { className: "mock-content", text: resultText(mock.content).slice(0, 200) }),
          el("span", { className: "mock-flags", text: flags }),
          remove
        );
      })
    );
  }
  #card(callId) {
    return this.#cardsRoot.querySelector(`.tool-card[data-tool-use-id="${CSS.escape(String(callId))}"]`);
  }
  /** Fill `call`'s card with `mock`'s result; `how` is mirrored on the card. */
  fill(call, mock, how = "used") {
    const card = this.#card(call.id);
    if (!card) return false;
    setField(one(card, "[data-tool-result-input]"), "value", resultText(mock.content), "input");
    setField(one(card, "[data-tool-result-error]"), "checked", Boolean(mock.is_error), "change");
    card.dataset.mock = how;
    return true;
  }
  /** Fill every card that has a mock; {answered, missing} as mock-match.answerCalls. */
  answerAll(calls = this.#calls) {
    const outcome = answerCalls(calls, this.#mocks);
    for (const { call, mock } of outcome.answered) this.fill(call, mock);
    this.#cardsRoot.dataset.mocksMissing = String(outcome.missing.length);
    return outcome;
  }
  /** The pending calls' cards are drawn: add the mock bar to each; auto mocks fill empty cards. */
  decorate(calls) {
    this.#calls = calls;
    for (const call of calls) {
      const card = this.#card(call.id);
      if (!card) continue;
      const mock = mockFor(call, this.#mocks);
      const old = card.querySelector(":scope > .tool-card-mock");
      if (!old || old.dataset.version !== String(this.#version)) {
        const bar = this.#bar(call, card, mock);
        if (old) old.replaceWith(bar);
        else card.append(bar);
        if (!card.dataset.mock || card.dataset.mock === "none" || card.dataset.mock === "available") card.dataset.mock = mock ? "available" : "none";
      }
      const input = one(card, "[data-tool-result-input]");
      if (mock?.auto && !input.value.trim() && !this.#autoFilled.has(call.id)) {
        this.#autoFilled.add(call.id);
        this.fill(call, mock, "auto");
      }
    }
  }
  #bar(call, card, mock) {
    const bar = el("div", { className: "tool-card-mock", dataset: { version: String(this.#version) } });
    if (mock) {
      const use = el("button", { className: "btn btn-small", text: "Use mock", attrs: { type: "button", title: `Mock for ${describeMatch(mock.match)}` }, dataset: { action: "use-mock" } });
      use.addEventListener("click", () => this.fill(call, mock));
      bar.append(use, el("span", { className: "muted", text: `${describeMatch(mock.match)}${mock.is_error ? " \xB7 is_error" : ""}${mock.auto ? " \xB7 auto" : ""}` }));
    } else {
      bar.append(el("span", { className: "muted", text: "No mock for this call." }));
    }
    const keep = el("button", { className: "btn btn-ghost btn-small", text: "Save as mock", attrs: { type: "button" }, dataset: { action: "save-mock" } });
    keep.addEventListener("click", () => {
      const text = one(card, "[data-tool-result-input]").value;
      if (!text.trim()) return;
      const isError = one(card, "[data-tool-result-error]").checked;
      this.save([...this.#mocks, mockFromCall(call, { content: parseResultContent(text).content, isError })]);
    });
    bar.append(keep);
    return bar;
  }
};

// static/playground/rendered-prompt.js
var RenderedPrompt = class {
  #section;
  #parts;
  #url;
  #body;
  #text = "";
  #token = 0;
  /**
   * `section` is the editor's rendered-prompt area, `button` the one that shows it; `body()`
   * what to render ({content} | {results, text} | {}, with `request` for an edit), or null
   * when the editor's text is no JSON (the editor says so).
   */
  constructor(section, { button, body }) {
    this.#section = section;
    this.#url = section.dataset.renderedUrl;
    this.#body = body;
    this.button = button;
    this.#parts = parts(section, {
      text: "[data-rendered-text]",
      error: "[data-rendered-error]",
      notes: "[data-rendered-notes]",
      status: "[data-rendered-status]",
      copy: "[data-action='copy-rendered']"
    });
    button.addEventListener("click", () => this.show());
    this.#parts.copy.addEventListener("click", (event) => copyText(event.currentTarget, this.#text));
  }
  /** The conversation's profile renders or not: the button follows; off, the area goes. */
  consider({ offered }) {
    this.button.hidden = !offered;
    if (!offered) this.reset();
  }
  /** The editor opened afresh: nothing rendered yet. */
  reset() {
    this.#token += 1;
    this.#text = "";
    this.#section.hidden = true;
    this.#setState("idle");
  }
  /** The request was edited: what is shown is the prompt of an earlier text. */
  changed() {
    const state = this.#section.dataset.renderedState;
    if (state === "loading") this.#token += 1;
    if (state === "ready" || state === "loading") {
      this.#setState("stale", "The request changed since: show it again.");
      this.button.disabled = false;
    }
  }
  async show() {
    const body = this.#body();
    this.#section.hidden = false;
    showError(this.#parts.error, "");
    if (body === null) {
      this.#setState("error", "Fix the request's JSON to render it.");
      return;
    }
    const token = ++this.#token;
    this.button.disabled = true;
    this.#setState("loading", "Rendering\u2026");
    try {
      const answer = await apiFetch(this.#url, { method: "POST", body });
      if (token !== this.#token) return;
      this.#draw(answer);
    } catch (error) {
      if (token !== this.#token) return;
      const field = error.field ? ` (${error.field})` : "";
      showError(this.#parts.error, { message: `${error.message}${field}`, field: error.field });
      this.#setState("error", "Not rendered.");
    } finally {
      if (token === this.#token) this.button.disabled = false;
    }
  }
  #draw({ text, notes = [], profile }) {
    this.#text = text;
    this.#parts.text.textContent = text;
    this.#parts.notes.replaceChildren(...notes.map((note) => el("li", { text: note })));
    this.#parts.notes.hidden = notes.length === 0;
    const size = `${text.length.toLocaleString()} characters`;
    this.#setState("ready", `Rendered by ${profile?.label ?? "the upstream"}: ${size}.`);
  }
  #setState(state, words = "") {
    this.#section.dataset.renderedState = state;
    this.#parts.status.textContent = words;
    const shown = state === "ready" || state === "stale";
    this.#parts.text.hidden = !shown;
    this.#parts.copy.hidden = !shown;
    if (!shown) this.#parts.notes.hidden = true;
  }
};

// static/playground/divergence.js
var blocksOf = (message) => Array.isArray(message.content) ? message.content : [{ type: "text", text: String(message.content ?? "") }];
var textOf = (blocks) => blocks.filter((block) => block.type === "text").map((block) => block.text).join("\n").trim();
function loopsOf(messages) {
  const loops = [];
  let current = null;
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === "user") {
      if (!blocks.some((block) => block.type === "tool_result")) {
        current = { user: textOf(blocks), content: message.content, steps: [], final: "" };
        loops.push(current);
      }
      continue;
    }
    if (current === null) continue;
    const calls = blocks.filter((block) => block.type === "tool_use").map((block) => ({ id: block.id, name: String(block.name), input: block.input ?? {} }));
    if (calls.length > 0) current.steps.push(calls);
    else current.final = textOf(blocks);
  }
  return loops;
}
function fixturesOf(messages) {
  const calls = /* @__PURE__ */ new Map();
  const fixtures = [];
  const seen = /* @__PURE__ */ new Set();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use") calls.set(block.id, block);
      if (block.type !== "tool_result" || !calls.has(block.tool_use_id)) continue;
      const call = calls.get(block.tool_use_id);
      const key = JSON.stringify([call.name, call.input ?? {}]);
      if (seen.has(key)) continue;
      seen.add(key);
      fixtures.push({ tool: String(call.name), match: call.input ?? {}, content: block.content ?? "", is_error: block.is_error === true, auto: false });
    }
  }
  return fixtures;
}
function resultWords(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((block) => block?.type === "text")) return content.map((block) => block.text).join("");
  return JSON.stringify(content ?? "");
}
function answersOf(messages, { ranAgain = /* @__PURE__ */ new Set(), fixtures = (
  /** @type {any[]} */
  []
) } = {}) {
  const recorded = new Map(fixtures.map((f) => [JSON.stringify([f.tool, f.match ?? {}]), f]));
  const calls = /* @__PURE__ */ new Map();
  const marks = /* @__PURE__ */ new Map();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use") calls.set(block.id, block);
      if (block.type !== "tool_result" || !calls.has(block.tool_use_id)) continue;
      const call = calls.get(block.tool_use_id);
      const fixture = recorded.get(JSON.stringify([String(call.name), call.input ?? {}]));
      const same = fixture !== void 0 && resultWords(fixture.content) === resultWords(block.content) && fixture.is_error === (block.is_error === true);
      marks.set(block.tool_use_id, ranAgain.has(block.tool_use_id) ? "rerun" : same ? "recorded" : "other");
    }
  }
  return marks;
}
function compareStep(source, replay) {
  if (!source) return ["only in the replay"];
  if (!replay) return ["only in the source"];
  const notes = [];
  const names = (calls) => calls.map((call) => call.name);
  if (source.length !== replay.length) notes.push(`count: ${source.length} vs ${replay.length}`);
  const [a, b] = [names(source), names(replay)];
  const sorted = (list) => [...list].sort().join(" ");
  if (a.join(" ") !== b.join(" ")) notes.push(sorted(a) === sorted(b) ? `order: ${a.join(", ")} vs ${b.join(", ")}` : `tools: ${a.join(", ")} vs ${b.join(", ")}`);
  for (let index = 0; index < Math.min(source.length, replay.length); index += 1) {
    if (source[index].name !== replay[index].name) continue;
    for (const change of jsonDiff(source[index].input, replay[index].input)) notes.push(`${source[index].name} input ${describeChange(change)}`);
  }
  return notes;
}
function compareLoops(sourceMessages, replayMessages, { answers = /* @__PURE__ */ new Map() } = {}) {
  const source = loopsOf(sourceMessages);
  const replay = loopsOf(replayMessages);
  return source.map((loop, index) => {
    const other = replay[index] ?? { steps: [], final: "" };
    const count = Math.max(loop.steps.length, other.steps.length);
    const steps = [];
    for (let step = 0; step < count; step += 1) {
      const notes = compareStep(loop.steps[step] ?? null, other.steps[step] ?? null);
      const replayCalls = other.steps[step] ?? null;
      const marks = (replayCalls ?? []).map((call) => answers.get(call.id) ?? null);
      steps.push({ index: step, source: loop.steps[step] ?? null, replay: replayCalls, notes, diverged: notes.length > 0, answers: marks });
    }
    const final = { source: loop.final, replay: other.final, same: loop.final === other.final };
    return { user: loop.user, steps, final, replayed: index < replay.length, diverged: steps.some((s) => s.diverged) };
  });
}

// static/playground/replay.js
var STEP_PREFIX = "pg:step-mode";
var ANSWERED = { rerun: "run again on its MCP server", recorded: "from the recording", other: "by hand or a mock" };
function callsText(calls, answers = []) {
  if (!calls) return "\u2014";
  return calls.map((call, index) => `${call.name} ${JSON.stringify(call.input)}${answers[index] ? ` \u2014 ${ANSWERED[answers[index]]}` : ""}`).join("\n");
}
var ReplayLauncher = class {
  #modal;
  #parts;
  #profiles;
  #source;
  /** `source()` is {conversation, messages} of this page. */
  constructor(dialog, { openers, profiles, urls, source }) {
    this.#modal = new Modal(dialog);
    this.#profiles = profiles;
    this.#source = source;
    this.urls = urls;
    this.#parts = parts(dialog, {
      form: "[data-replay-form]",
      profile: "[data-replay-profile]",
      model: "[data-replay-model]",
      models: "[data-replay-models]",
      error: "[data-replay-error]"
    });
    this.#parts.rerun = dialog.querySelector("[data-replay-rerun]");
    this.#parts.profile.replaceChildren(...profiles.map((p) => el("option", { text: p.label, attrs: { value: p.name } })));
    this.#parts.profile.addEventListener("change", () => this.#fillModels(true));
    this.#parts.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#start();
    });
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
  }
  open(opener) {
    const { conversation } = this.#source();
    this.#parts.profile.value = conversation.profile;
    this.#fillModels(false);
    this.#parts.model.value = conversation.model;
    showError(this.#parts.error, "");
    this.#modal.open(opener);
  }
  #fillModels(pickFirst) {
    const profile = this.#profiles.find((p) => p.name === this.#parts.profile.value);
    const models = profile?.models ?? [];
    this.#parts.models.replaceChildren(...models.map((model) => el("option", { attrs: { value: model } })));
    if (pickFirst && models.length > 0) this.#parts.model.value = models[0];
  }
  async #start() {
    const { conversation, messages } = this.#source();
    const profile = this.#parts.profile.value;
    const model = this.#parts.model.value.trim();
    try {
      const { settings } = conversation;
      const title = `${conversation.title || "Untitled"} (replay on ${profile} \xB7 ${model})`.slice(0, 200);
      const created = await apiFetch(this.urls.api_conversations, { method: "POST", body: { ...settings, profile, model, title } });
      const mocks = [...fixturesOf(messages), ...conversation.tool_mocks ?? []];
      const url = `${this.urls.api_conversations}${encodeURIComponent(created.id)}/`;
      try {
        await apiFetch(`${url}mocks/`, { method: "PUT", body: { tool_mocks: mocks } });
        if (this.#parts.rerun?.checked) await apiFetch(`${url}mcp-approval/`, { method: "POST", body: { server: "*", approval: "auto" } });
      } catch (error) {
        await apiFetch(url, { method: "DELETE" }).catch(() => {
        });
        throw error;
      }
      try {
        const own = JSON.parse(localStorage.getItem(`${STEP_PREFIX}:${conversation.id}`) ?? "{}") ?? {};
        localStorage.setItem(`${STEP_PREFIX}:${created.id}`, JSON.stringify({ limit: 10, pause: false, ...own, enabled: true, sent: 0 }));
      } catch {
      }
      window.location.assign(`${created.url}?replay_of=${encodeURIComponent(conversation.id)}`);
    } catch (error) {
      showError(this.#parts.error, { message: `${error.message}${error.field ? ` (${error.field})` : ""}`, field: error.field });
    }
  }
};
var ReplayView = class {
  #root;
  #parts;
  #sourceId;
  #urls;
  #onSend;
  /** @type {{ conversation: any, messages: any[] } | null} */
  #source = null;
  // {conversation, messages}
  #sent = /* @__PURE__ */ new Set();
  // loop indexes sent from this page
  #refusals = 0;
  // the page's refusal count as last seen: a higher one is news
  /** @type {number | null} */
  #refusedLoop = null;
  // the loop whose turn was refused
  constructor(root, { sourceId, urls, onSend }) {
    this.#root = root;
    this.#sourceId = sourceId;
    this.#urls = urls;
    this.#onSend = onSend;
    this.#parts = parts(root, { link: "[data-replay-source-link]", status: "[data-replay-status]", table: "[data-replay-table]" });
  }
  get active() {
    return this.#sourceId !== null;
  }
  async load() {
    if (!this.active) return;
    this.#root.hidden = false;
    this.#root.dataset.state = "loading";
    try {
      const conversation = await apiFetch(`${this.#urls.api_conversations}${encodeURIComponent(this.#sourceId)}/`);
      this.#source = { conversation, messages: conversation.messages };
      this.#parts.link.textContent = conversation.title || "Untitled";
      this.#parts.link.href = conversation.url;
      this.#root.dataset.state = "running";
    } catch (error) {
      this.#parts.status.textContent = `Could not load the source conversation: ${error.message}`;
      this.#root.dataset.state = "failed";
    }
  }
  /** The page's state changed: send the next loop's user turn when due, redraw the view.
   * `canAct`: the page may send now, or hold the turn until the socket opens (held-send.js). */
  consider({ messages, running, canAct: canAct2, pending, label = "", ranAgain = /* @__PURE__ */ new Set(), refused = (
    /** @type {{action: string, count: number} | null} */
    null
  ) }) {
    const done = this.#source ? loopsOf(messages).length : 0;
    const count = refused?.count ?? 0;
    if (count > this.#refusals && refused?.action === "send" && this.#sent.has(done)) this.#refusedLoop = done;
    this.#refusals = count;
    if (!this.#source) return;
    const loops = loopsOf(this.#source.messages);
    const last = messages.at(-1);
    const idle = !running && canAct2 && pending === 0 && (last === void 0 || last.role === "assistant");
    if (idle && done < loops.length && !this.#sent.has(done)) {
      this.#sent.add(done);
      this.#onSend(loops[done].content);
    }
    const refusedNow = !running && this.#refusedLoop === done ? done : null;
    this.#draw(messages, { finished: idle && done >= loops.length, waiting: !running && pending > 0, refused: refusedNow, label, ranAgain });
  }
  /** @param {any[]} messages @param {{finished: boolean, waiting: boolean, refused: number | null, label: string, ranAgain: Set<string>}} options */
  #draw(messages, { finished, waiting, refused, label, ranAgain }) {
    if (this.#source === null) return;
    const { conversation: source, messages: sourceMessages } = this.#source;
    const answers = answersOf(messages, { ranAgain, fixtures: fixturesOf(sourceMessages) });
    const compared = compareLoops(sourceMessages, messages, { answers });
    const sourceHead = `Source: ${source.profile} \xB7 ${source.model}`;
    const replayHead = label ? `Replay: ${label}` : "Replay";
    const head = el("tr", {}, el("th", { text: "" }), el("th", { text: sourceHead }), el("th", { text: replayHead }), el("th", { text: "Divergence" }));
    const rows = [head];
    compared.forEach((loop, index) => {
      rows.push(el("tr", { className: "replay-loop" }, el("th", { attrs: { colspan: "4", scope: "rowgroup" }, text: `Loop ${index + 1}: ${loop.user}` })));
      for (const step of loop.steps) {
        rows.push(
          el(
            "tr",
            { className: "replay-step", dataset: { diverged: String(step.diverged), step: String(step.index + 1), answers: step.answers.map((mark) => mark ?? "pending").join(" ") } },
            el("th", { attrs: { scope: "row" }, text: `step ${step.index + 1}` }),
            el("td", { dataset: { label: sourceHead } }, el("pre", { text: callsText(step.source) })),
            el("td", { dataset: { label: replayHead } }, el("pre", { text: callsText(step.replay, step.answers) })),
            el("td", { className: "replay-notes", dataset: { label: "Divergence" }, text: step.notes.join("\n") || "same" })
          )
        );
      }
      rows.push(
        el(
          "tr",
          { className: "replay-final", dataset: { diverged: String(loop.replayed && !loop.final.same) } },
          el("th", { attrs: { scope: "row" }, text: "final answer" }),
          el("td", { dataset: { label: sourceHead }, text: loop.final.source || "\u2014" }),
          el("td", { dataset: { label: replayHead }, text: loop.final.replay || "\u2014" }),
          el("td", { className: "replay-notes", dataset: { label: "Divergence" }, text: loop.replayed ? loop.final.same ? "same" : "differs" : "not replayed yet" })
        )
      );
    });
    this.#parts.table.replaceChildren(...rows);
    const diverged = compared.some((loop) => loop.diverged || loop.replayed && !loop.final.same);
    this.#root.dataset.diverged = String(diverged);
    this.#root.dataset.state = finished ? "done" : refused !== null ? "refused" : waiting ? "waiting" : "running";
    this.#parts.status.textContent = finished ? diverged ? "Done: the replay diverges from the source (marked rows)." : "Done: the replay made the same tool decisions." : refused !== null ? `Stopped: loop ${refused + 1}'s turn was refused (the reason is under the message box). Reload the page to send it again.` : waiting ? "Waiting on tool calls: step mode says why (no fixture or mock, or its limit)." : "Replaying\u2026";
  }
};
function replaySource() {
  const id = new URLSearchParams(window.location.search).get("replay_of");
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

// static/playground/request-editor.js
var RequestEditor = class {
  #dialog;
  #modal;
  #url;
  #parts;
  #turn = {};
  #turnOf;
  #draft = null;
  #checked = null;
  #blocked;
  #onSend;
  #onChange;
  #token = 0;
  /**
   * `turn()` is the turn about to be sent ({content} | {results, text} | {}); `blocked()`
   * why a run may not start now ("" when it may: said beside Send, which is off meanwhile);
   * `onSend({turn, request})` sends it on the socket;
   * `onChange({opened})` hears of a fresh draft (opened) or an edit of the text.
   */
  constructor(dialog, { openers, turn, blocked, onSend, onChange = (
    /** @type {(change: { opened: boolean }) => void} */
    (() => {
    })
  ) }) {
    this.#dialog = dialog;
    this.#modal = new Modal(dialog, { onClose: () => this.#setState("closed") });
    this.#url = dialog.dataset.requestUrl;
    this.#blocked = blocked;
    this.#onSend = onSend;
    this.#onChange = onChange;
    this.#parts = parts(dialog, {
      json: "[data-request-json]",
      error: "[data-request-error]",
      diff: "[data-request-diff]",
      status: "[data-request-status]",
      send: "[data-action='send-request']",
      sendWhy: "[data-request-send-why]",
      check: "[data-action='check-request']",
      warnings: "[data-request-warnings]"
    });
    this.#turnOf = turn;
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
    this.#parts.json.addEventListener("input", () => this.#edited());
    this.#parts.check.addEventListener("click", () => this.#check());
    this.#parts.send.addEventListener("click", () => this.#send());
    one(dialog, "[data-action='reset-request']").addEventListener("click", () => this.#reset());
  }
  get isOpen() {
    return this.#modal.isOpen;
  }
  /** Open with the draft for the turn about to be sent. */
  async open(opener) {
    this.#turn = this.#turnOf();
    this.#draft = null;
    this.#checked = null;
    this.#parts.json.value = "";
    showError(this.#parts.error, "");
    this.#onChange({ opened: true });
    this.#setState("loading");
    this.#modal.open(opener);
    const token = ++this.#token;
    try {
      const { request } = await apiFetch(this.#url, { method: "POST", body: this.#turn });
      if (token !== this.#token) return;
      this.#draft = request;
      this.#reset();
    } catch (error) {
      if (token !== this.#token) return;
      this.#refused(error, "There is no next request yet");
    }
  }
  /** The turn and, when the text is not the draft, the edited body: what a render renders
   * (the rendered prompt's body); null when the text is no JSON (said, as while typing). */
  renderBody() {
    if (this.#draft === null) return { ...this.#turn };
    const edit = this.#parsed();
    if (edit === null) return null;
    const same = JSON.stringify(edit) === JSON.stringify(this.#draft);
    return same ? { ...this.#turn } : { ...this.#turn, request: edit };
  }
  /** The socket is open or not, an action is held for it, a run started or ended: Send
   * follows, and says why it is off (a draft still loading says so in the status). */
  refresh() {
    const why = this.#blocked();
    const { send, sendWhy } = this.#parts;
    send.disabled = this.#draft === null || why !== "";
    send.title = why;
    if (sendWhy.textContent !== why) sendWhy.textContent = why;
    sendWhy.hidden = why === "";
  }
  #reset() {
    if (this.#draft === null) return;
    this.#onChange({ opened: false });
    this.#parts.json.value = pretty(this.#draft);
    this.#checked = this.#draft;
    showError(this.#parts.error, "");
    drawChanges(this.#parts.diff, [], { empty: "No changes: this is what the conversation would send." });
    this.#warn(this.#draft);
    this.#setState("ready", "As the conversation would send it.");
  }
  /** The text as JSON, or null after saying why not. */
  #parsed() {
    try {
      return JSON.parse(this.#parts.json.value);
    } catch (error) {
      showError(this.#parts.error, `Not JSON: ${error.message}`);
      this.#setState("invalid", "Fix the JSON to check it.");
      return null;
    }
  }
  #edited() {
    this.#onChange({ opened: false });
    this.#checked = null;
    this.#token += 1;
    const edit = this.#parsed();
    if (edit === null || this.#draft === null) return;
    showError(this.#parts.error, "");
    const changes = jsonDiff(this.#draft, edit);
    drawChanges(this.#parts.diff, changes, { empty: "No changes: this is what the conversation would send." });
    this.#warn(edit);
    this.#setState("edited", `${changes.length} change${changes.length === 1 ? "" : "s"}, not checked yet.`);
  }
  /** Ask the server; the checked body, or null (the refusal is shown). */
  async #check() {
    const edit = this.#parsed();
    if (edit === null) return null;
    const token = ++this.#token;
    this.#setState("checking", "Checking\u2026");
    try {
      const answer = await apiFetch(this.#url, { method: "POST", body: { ...this.#turn, request: edit } });
      if (token !== this.#token) return null;
      this.#draft = answer.request;
      this.#checked = answer.edited;
      showError(this.#parts.error, "");
      const changes = jsonDiff(this.#draft, this.#checked);
      drawChanges(this.#parts.diff, changes, { empty: "No changes: this is what the conversation would send." });
      this.#warn(this.#checked);
      this.#setState("valid", `Valid: ${changes.length} change${changes.length === 1 ? "" : "s"} from what the conversation would send.`);
      return this.#checked;
    } catch (error) {
      if (token !== this.#token) return null;
      this.#refused(error, "Refused");
      return null;
    }
  }
  /** The thinking rules the server does not check (the upstream does, with a 400). */
  #warn(edit) {
    const warnings = edit && typeof edit === "object" ? requestWarnings(this.#draft, edit) : [];
    const list = this.#parts.warnings;
    list.replaceChildren(...warnings.map((warning) => el("li", { text: warning.text, dataset: { code: warning.code } })));
    list.dataset.codes = warnings.map((warning) => warning.code).join(" ");
    list.hidden = warnings.length === 0;
  }
  #refused(error, words) {
    const field = error.field ? ` (${error.field})` : "";
    showError(this.#parts.error, { message: `${error.message}${field}`, field: error.field });
    this.#setState(this.#draft === null ? "refused" : "invalid", `${words}: nothing was sent.`);
  }
  async #send() {
    if (this.#blocked()) return;
    const request = this.#checked ?? await this.#check();
    if (request === null || this.#blocked()) return;
    this.#onSend({ turn: this.#turn, request });
    this.#modal.close();
  }
  #setState(state, words = "") {
    this.#dialog.dataset.requestState = state;
    this.#parts.status.textContent = words;
    this.refresh();
  }
};

// static/playground/step-plan.js
var DEFAULT_LIMIT = 10;
var MAX_LIMIT = 1e3;
function limitProblem(text) {
  const raw = String(text ?? "").trim();
  const value = Number(raw);
  if (raw !== "" && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT) return "";
  return `Iteration limit: a whole number from 1 to ${MAX_LIMIT} (got ${raw === "" ? "nothing" : JSON.stringify(raw)}); step mode waits until it is one.`;
}
function readLimit(text) {
  const value = Number(String(text ?? "").trim());
  return Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT ? value : DEFAULT_LIMIT;
}
function planStep({ calls, mocks, sent, limit, pause }) {
  if (calls.length === 0) return { do: "done", answered: [], missing: [] };
  const { answered, missing } = answerCalls(calls, mocks);
  if (missing.length > 0) return { do: "stop", reason: "no_mock", answered, missing };
  if (sent >= limit) return { do: "stop", reason: "limit", answered, missing };
  return { do: pause ? "pause" : "send", answered, missing };
}
function stepWords(move, { sent, limit, asking = /* @__PURE__ */ new Set() }) {
  if (move.do === "done") return `Done: the loop ended after ${sent} step${sent === 1 ? "" : "s"} answered from mocks.`;
  if (move.do === "pause") return `Paused before step ${sent + 1}: the mocks' results are in the cards; change any, then Continue.`;
  if (move.do === "send") return `Step ${sent + 1} of at most ${limit}: sending the mocks' results\u2026`;
  if (move.reason === "limit") return `Stopped: the limit of ${limit} step${limit === 1 ? "" : "s"} is reached. Continue resumes for ${limit} more.`;
  const namesOf = (calls) => [...new Set(calls.map((call) => call.name))].join(", ");
  const waiting = move.missing.filter((call) => asking.has(call.id));
  const unmocked = move.missing.filter((call) => !asking.has(call.id));
  const parts2 = [];
  if (waiting.length) parts2.push(`waiting for your approval to run ${namesOf(waiting)} on its MCP server (Run on the card, or Always allow)`);
  if (unmocked.length) parts2.push(`no mock for ${namesOf(unmocked)}`);
  const then = unmocked.length ? "Type the result (or add a mock), then Continue." : "Its result then waits in the card: Continue sends it.";
  return `Stopped: ${parts2.join("; ")}. ${then}`;
}

// static/playground/step-mode.js
var PREFIX = "pg:step-mode";
function load(conversationId) {
  try {
    const value = JSON.parse(localStorage.getItem(`${PREFIX}:${conversationId}`) ?? "null");
    if (value && typeof value === "object") {
      const sent = Number.isInteger(value.sent) && value.sent > 0 ? value.sent : 0;
      return { enabled: value.enabled === true, limit: readLimit(value.limit), pause: value.pause === true, sent };
    }
  } catch {
  }
  return { enabled: false, limit: DEFAULT_LIMIT, pause: false, sent: 0 };
}
var StepMode = class {
  #root;
  #parts;
  #key;
  #mocks;
  #toolResults;
  #sent = 0;
  #handled = null;
  // the ids of the pending calls last acted on
  #last = { calls: [], running: false, canAct: false, hasTools: true, refused: (
    /** @type {{action: string, count: number} | null} */
    null
  ) };
  #refusals = 0;
  // the page's refusal count as last seen: a higher one is news
  #mcp;
  #mcpKnown = false;
  constructor(root, { conversationId, mocks, toolResults, mcp = (
    /** @type {import("./mcp-tools.js").McpTools | null} */
    null
  ) }) {
    this.#root = root;
    this.#mcp = mcp;
    this.#key = `${PREFIX}:${conversationId}`;
    this.#mocks = mocks;
    this.#toolResults = toolResults;
    this.#parts = parts(root, {
      enabled: "[data-step-enabled]",
      limit: "[data-step-limit]",
      pause: "[data-step-pause]",
      resume: "[data-action='step-continue']",
      status: "[data-step-status]"
    });
    const saved = load(conversationId);
    this.#parts.enabled.checked = saved.enabled;
    this.#parts.limit.value = String(saved.limit);
    this.#parts.pause.checked = saved.pause;
    this.#sent = saved.sent;
    this.#parts.enabled.addEventListener("change", () => this.#restart());
    this.#parts.limit.addEventListener("change", () => this.#limitChanged());
    this.#parts.limit.addEventListener("input", () => this.#checkLimit());
    this.#parts.pause.addEventListener("change", () => this.#save());
    this.#parts.resume.addEventListener("click", () => this.#resume());
    this.#show(saved.enabled ? "on" : "off", "");
  }
  get #limit() {
    return readLimit(this.#parts.limit.value);
  }
  /** The typed limit's problem, shown on the field ("" when it is fine). */
  #checkLimit() {
    const problem = limitProblem(this.#parts.limit.value);
    if (problem) this.#parts.limit.setAttribute("aria-invalid", "true");
    else this.#parts.limit.removeAttribute("aria-invalid");
    this.#root.dataset.limitValid = String(!problem);
    return problem;
  }
  #limitChanged() {
    const problem = this.#checkLimit();
    if (problem) {
      this.#show("stopped", problem, "invalid_limit");
      return;
    }
    this.#save();
    if (this.#root.dataset.stepReason === "invalid_limit") {
      this.#handled = null;
      this.#show(this.#parts.enabled.checked ? "on" : "off", "");
      this.consider(this.#last);
    }
  }
  #save() {
    try {
      const value = { enabled: this.#parts.enabled.checked, limit: this.#limit, pause: this.#parts.pause.checked, sent: this.#sent };
      localStorage.setItem(this.#key, JSON.stringify(value));
    } catch {
    }
  }
  #restart() {
    this.#sent = 0;
    this.#save();
    this.#handled = null;
    this.#show(this.#parts.enabled.checked ? "on" : "off", "");
    this.consider(this.#last);
  }
  /** Whether step mode is on (mcp-tools.js leaves the calls on auto to it then). */
  get enabled() {
    return this.#parts.enabled.checked;
  }
  /** The page's state changed: act on newly pending calls (or the loop's end). Shown only
   * for a conversation with tools (or pending calls: an imported loop). `canAct`: the page may
   * send now, or hold the results until the socket opens (held-send.js's canAct). */
  consider({ calls, running, canAct: canAct2, hasTools = true, refused = (
    /** @type {{action: string, count: number} | null} */
    null
  ) }) {
    this.#last = { calls, running, canAct: canAct2, hasTools, refused };
    this.#root.hidden = !(hasTools || calls.length > 0);
    if (this.#wasRefused(refused)) return;
    if (!this.#parts.enabled.checked || running || !canAct2) return;
    const problem = this.#checkLimit();
    if (problem) {
      this.#show("stopped", problem, "invalid_limit");
      return;
    }
    const key = calls.map((call) => call.id).join(" ");
    if (key === this.#handled) return;
    if (this.#mcp && calls.length && !this.#mcpKnown) {
      this.#mcp.whenLoaded().then(() => {
        this.#mcpKnown = true;
        this.consider(this.#last);
      });
      return;
    }
    this.#handled = key;
    const mcp = this.#mcp;
    const auto = mcp?.split(calls).auto ?? [];
    if (mcp === null || auto.length === 0 || this.#sent >= this.#limit) {
      this.#decide(calls, []);
      return;
    }
    this.#show("running", `Step ${this.#sent + 1}: running ${auto.length} MCP call${auto.length > 1 ? "s" : ""}\u2026`);
    Promise.all(auto.map((call) => mcp.run(call))).then((done) => {
      if (this.#handled !== key) return;
      const ran = auto.filter((_, i) => done[i]);
      this.#decide(calls.filter((call) => !ran.includes(call)), ran);
    });
  }
  /** The results it is sending were refused (a new refusal of tool_results while it says
   * "sending"): stopped, the step not counted; Continue sends the cards again. */
  #wasRefused(refused) {
    const count = refused?.count ?? 0;
    const news = count > this.#refusals;
    this.#refusals = count;
    if (!news || refused?.action !== "tool_results" || this.#root.dataset.stepState !== "sending") return false;
    this.#sent = Math.max(0, this.#sent - 1);
    this.#save();
    this.#show("stopped", "Not sent: the results were refused (the reason is under the message box). Continue sends them again.", "refused");
    return true;
  }
  /** The move for the calls left once `ran` (MCP calls on auto) have their results. */
  #decide(calls, ran) {
    let move = planStep({ calls, mocks: this.#mocks.mocks, sent: this.#sent, limit: this.#limit, pause: this.#parts.pause.checked });
    if (move.do === "done" && ran.length > 0) {
      move = { do: this.#parts.pause.checked ? "pause" : "send", answered: [], missing: [] };
    }
    if (move.do === "done") {
      if (this.#sent > 0) this.#show("done", stepWords(move, { sent: this.#sent, limit: this.#limit }));
      else if (["stopped", "paused"].includes(this.#root.dataset.stepState ?? "")) this.#show("done", "Done: no call is pending.");
      if (this.#sent > 0) {
        this.#sent = 0;
        this.#save();
      }
      return;
    }
    for (const { call, mock } of move.answered) this.#mocks.fill(call, mock, "step");
    const asking = new Set((this.#mcp?.split(move.missing ?? []).ask ?? []).map((call) => call.id));
    const words = stepWords(move, { sent: this.#sent, limit: this.#limit, asking });
    if (move.do === "send") {
      this.#show("sending", words);
      this.#send();
    } else {
      this.#show(move.do === "pause" ? "paused" : "stopped", words, move.reason);
    }
  }
  #send() {
    this.#sent += 1;
    this.#save();
    this.#root.dataset.stepSent = String(this.#sent);
    queueMicrotask(() => this.#toolResults.submit());
  }
  /** Continue: after a pause, or after a stop once the results are typed (a limit resumes). */
  #resume() {
    if (this.#root.dataset.stepReason === "limit") this.#sent = 0;
    if (!this.#toolResults.pending) return;
    this.#show("sending", `Step ${this.#sent + 1}: sending the results in the cards\u2026`);
    this.#send();
  }
  #show(state, words, reason = "") {
    this.#root.dataset.stepState = state;
    this.#root.dataset.stepSent = String(this.#sent);
    if (reason) this.#root.dataset.stepReason = reason;
    else delete this.#root.dataset.stepReason;
    this.#parts.status.textContent = words;
    this.#parts.resume.hidden = !(state === "paused" || state === "stopped");
    if (words && state !== "sending") announce(words);
  }
};

// static/playground/debugger-tools.js
var LIVE_TEXT = "A run is live: send this once it ends.";
var DebuggerTools = class {
  #state;
  #profiles;
  /**
   * `state()` is the page's current state; `dispatch(input)` steps it; `toolResults` and
   * `composer` are the page's components (the turn about to be sent is read from them).
   */
  constructor(root, { data, urls, state, dispatch, toolResults, composer, socket = () => null, inspector = { addRun: () => {
  }, show: () => {
  } } }) {
    this.#state = state;
    this.#profiles = new Map((data.profiles ?? []).map((profile) => [profile.name, profile]));
    const settings = () => state().conversation.settings ?? {};
    this.mocks = new ToolMocks(one(root, "[data-mocks-dialog]"), {
      url: urls.mocks,
      mocks: data.conversation.tool_mocks,
      toolNames: () => (settings().tools ?? []).map((tool) => tool.name),
      toolResults: one(root, "[data-tool-results]"),
      openers: root.querySelectorAll("[data-action='open-mocks']")
    });
    this.mcp = data.mcp_enabled ? new McpTools(one(root, "[data-mcp-panel]"), {
      cardsRoot: one(root, "[data-tool-results]"),
      inspector: one(root, "[data-mcp-inspector]"),
      urls,
      conversationId: data.conversation.id,
      onAddTools: (merge) => addTools(root, merge),
      onChange: () => this.update(),
      socket,
      // its calls go on the page's socket when it is open
      marks: () => state().conversation?.mcp_tools,
      // which server each tool came from
      approval: data.conversation.mcp_approval ?? {},
      // which servers' tools run unasked (the server holds it)
      profiles: data.profiles ?? [],
      // what a server's sampling request may run on
      runs: inspector,
      // a sampling answer's run, listed in the inspector and opened there
      // A server's resource attached to the message, its prompt inserted: the prompt's turns
      // up to its last assistant turn are stored as they are (POST …/turns/) and drawn.
      composer: composer && {
        attach: (items) => composer.attach(items),
        insertText: (text) => composer.insertText(text),
        insertTurns: async (turns) => dispatch({ type: "reloaded", conversation: await apiFetch(urls.turns, { method: "POST", body: { turns } }) })
      },
      addMock: (mock) => this.mocks.save([...this.mocks.mocks, mock]),
      // a by-hand result kept
      stepOn: () => this.stepMode.enabled
      // step mode runs the calls on auto itself
    }) : null;
    const own = root.querySelector("[data-mcp-own]");
    if (own && this.mcp) {
      const tools = this.mcp;
      new McpOwnServers(
        /** @type {HTMLElement} */
        own,
        { url: urls.mcp_my_servers, onChange: () => tools.load({}) }
      ).load();
    }
    this.stepMode = new StepMode(one(root, "[data-step-mode]"), {
      conversationId: data.conversation.id,
      mocks: this.mocks,
      toolResults,
      mcp: this.mcp
    });
    this.replay = new ReplayLauncher(one(root, "[data-replay-dialog]"), {
      openers: root.querySelectorAll("[data-action='open-replay']"),
      profiles: data.profiles,
      urls,
      source: () => ({ conversation: { ...state().conversation, tool_mocks: this.mocks.mocks }, messages: state().messages })
    });
    this.replayView = new ReplayView(one(root, "[data-replay-view]"), {
      sourceId: replaySource(),
      urls,
      onSend: (content) => dispatch({ type: "send", text: content })
    });
    this.requestEditor = new RequestEditor(one(root, "[data-request-editor]"), {
      openers: root.querySelectorAll("[data-action='edit-request']"),
      // The turn the next send would add: the tool results due, the composer's text (and its
      // prefill), or going on with the answer that ends the conversation (Continue).
      turn: () => nextTurn({ toolResults, composer, state: state() }),
      // Made while the socket (re)connects, it waits for it as a composer's send does; while
      // one is held, Send says so.
      blocked: () => state().live !== null ? LIVE_TEXT : cannotActReason(state()),
      onSend: ({ turn, request }) => dispatch({ type: "send_request", turn, request }),
      onChange: ({ opened }) => opened ? this.renderedPrompt.reset() : this.renderedPrompt.changed()
    });
    const editor = one(root, "[data-request-editor]");
    this.renderedPrompt = new RenderedPrompt(one(editor, "[data-rendered-prompt]"), {
      button: one(editor, "[data-action='show-rendered']"),
      body: () => this.requestEditor.renderBody()
    });
  }
  /** After the socket connects: a replay page loads its source, then looks again. */
  start() {
    this.replayView.load().then(() => this.update());
    const used = serversInUse(this.#state().conversation?.mcp_tools);
    this.mcp?.load({ connect: replaySource() ? true : used });
    this.mcp?.loadRecorded().then(() => this.update());
  }
  /** The page's controls were redrawn (a frame, an action): each piece looks at the state. */
  update() {
    const state = this.#state();
    const running = state.live !== null;
    const free = canAct(state);
    const calls = running ? [] : pendingCalls(state);
    const { settings = {}, profile, model } = state.conversation;
    this.mocks.decorate(calls);
    this.mcp?.decorate(calls);
    const { refused } = state;
    this.stepMode.consider({ calls, running, canAct: free, refused, hasTools: (settings.tools ?? []).length > 0 });
    const ranAgain = this.mcp?.ranOnServer() ?? /* @__PURE__ */ new Set();
    this.replayView.consider({ messages: state.messages, running, canAct: free, refused, pending: pendingCalls(state).length, label: `${profile} \xB7 ${model}`, ranAgain });
    this.requestEditor.refresh();
    this.renderedPrompt.consider({ offered: this.#profiles.get(profile)?.renders_prompt === true });
  }
};
function addTools(root, merge) {
  const box = one(root, "[data-tools-json]");
  let current = [];
  try {
    current = box.value.trim() ? JSON.parse(box.value) : [];
  } catch {
    return;
  }
  box.value = JSON.stringify(merge(current).tools, null, 2);
  box.dispatchEvent(new Event("input", { bubbles: true }));
}
export {
  DebuggerTools
};
