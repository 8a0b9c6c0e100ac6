// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  apiFetch,
  csrfHeaders
} from "./chunk-22CQPU6I.js";
import {
  el
} from "./chunk-ACANGUXN.js";
import {
  argumentFields,
  fillTemplate,
  schemaContent,
  templateNames
} from "./chunk-FZMVVHNY.js";

// static/playground/mcp-form.js
var INPUT_TYPES = { integer: "number", number: "number", email: "email", url: "url", date: "date", "datetime-local": "datetime-local" };
function schemaForm(fields, { prefix = "form", values = {} } = {}) {
  const inputs = /* @__PURE__ */ new Map();
  const element = el("div", { className: "mcp-form" });
  for (const field of fields) {
    let input;
    const start = values[field.name] ?? field.value;
    if (field.kind === "choice") {
      input = el("select", { className: "input input-small" }, ...field.required ? [] : [el("option", { text: "\u2014", attrs: { value: "" } })], ...field.options.map((option) => el("option", { text: option.label, attrs: { value: option.value } })));
      if (start !== void 0) input.value = String(start);
    } else if (field.kind === "boolean") {
      input = el("input", { attrs: { type: "checkbox" } });
      input.checked = start === true;
    } else if (field.kind === "json") {
      input = el("textarea", { className: "input mono", attrs: { rows: "2", spellcheck: "false" } });
      if (start !== void 0) input.value = JSON.stringify(start);
    } else {
      input = el("input", { className: "input input-small", attrs: { type: INPUT_TYPES[field.kind] ?? "text", ...field.kind === "number" ? { step: "any" } : {} } });
      if (start !== void 0) input.value = String(start);
    }
    input.dataset.field = field.name;
    input.dataset[`${prefix}Field`] = field.name;
    inputs.set(field.name, input);
    const label = `${field.label}${field.required ? " *" : ""}${field.kind === "json" ? " (JSON)" : ""}`;
    element.append(el("label", { className: field.kind === "boolean" ? "check" : "field" }, el("span", { text: label }), input, el("span", { className: "muted", text: field.help })));
  }
  return {
    element,
    read() {
      const raw = Object.fromEntries([...inputs].map(([name, input]) => [name, input.type === "checkbox" ? input.checked : input.value]));
      const read = schemaContent(fields, raw);
      if (read.error) inputs.get(read.field)?.focus();
      return read;
    },
    disable() {
      for (const input of inputs.values()) input.disabled = true;
    }
  };
}

// static/playground/mcp-plan.js
function toolIndex(servers) {
  const index = /* @__PURE__ */ new Map();
  for (const server of servers ?? []) {
    for (const tool of server.tools ?? []) {
      index.set(tool.name, { server: server.name, mcpName: tool.mcp_name, annotations: tool.annotations ?? {}, title: tool.title ?? "", tool: messagesTool(tool) });
    }
  }
  return index;
}
function serversInUse(marks) {
  return [...new Set(Object.values(marks ?? {}).map((mark) => mark?.server).filter((name) => typeof name === "string" && name))].sort();
}
function connectBody(connect) {
  if (connect === true) return {};
  if (!Array.isArray(connect) || connect.length === 0) return null;
  return { servers: connect };
}
function messagesTool(listed) {
  const { mcp_name: _name, title: _title, annotations: _annotations, ...tool } = listed;
  return tool;
}
function isDestructive(annotations) {
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}
function annotationWords(annotations) {
  const words = [];
  if (isDestructive(annotations)) words.push(annotations?.destructiveHint === true ? "destructive" : "may be destructive");
  if (annotations?.readOnlyHint === true) words.push("read-only");
  if (annotations?.idempotentHint === true) words.push("idempotent");
  if (annotations?.openWorldHint === true) words.push("open world");
  return words;
}
function toolMatches(tool, query) {
  const words = String(query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${tool.name ?? ""} ${tool.title ?? ""} ${tool.description ?? ""}`.toLowerCase();
  return words.every((word) => text.includes(word));
}
function mergeTools(current, added) {
  const tools = Array.isArray(current) ? [...current] : [];
  const result = { tools, added: [], replaced: [] };
  for (const tool of added) {
    const at = tools.findIndex((t) => t?.name === tool.name);
    if (at >= 0) {
      tools[at] = tool;
      result.replaced.push(tool.name);
    } else {
      tools.push(tool);
      result.added.push(tool.name);
    }
  }
  return result;
}
function readLines(buffer) {
  const parts = buffer.split("\n");
  const rest = parts.pop();
  const values = parts.filter((line) => line.trim()).map((line) => JSON.parse(line));
  return { values, rest };
}
function noticeText(notice) {
  const params = notice.params ?? {};
  if (notice.kind === "progress") {
    const total = params.total !== void 0 ? `/${params.total}` : "";
    return `progress ${params.progress}${total}${params.message ? ` ${params.message}` : ""}`;
  }
  if (notice.kind === "task") return `task ${params.status}${params.statusMessage ? `: ${params.statusMessage}` : ""}`;
  const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
  return `log ${params.level ?? ""}${params.logger ? ` (${params.logger})` : ""}: ${data}`;
}
function approvalFor(policy, { server, mcpName, annotations = void 0 }) {
  const own = policy?.tools?.[`${server}/${mcpName}`];
  if (own === "auto" || own === "ask") return own;
  const servers = policy?.servers ?? {};
  if (servers[server] === "auto" && !(annotations && isDestructive(annotations))) return "auto";
  return servers[server] === void 0 && servers["*"] === "auto" ? "auto" : "ask";
}
function promptParts(messages) {
  const list = messages ?? [];
  const last = list.map((message) => message.role).lastIndexOf("assistant");
  return { turns: list.slice(0, last + 1).map(({ role, content }) => ({ role, content })), composer: list.slice(last + 1).flatMap((message) => message.content ?? []) };
}
function policyOf(approval, marks) {
  const tools = {};
  for (const mark of Object.values(marks ?? {})) {
    if (mark?.approval === "auto" || mark?.approval === "ask") tools[`${mark.server}/${mark.mcp_name}`] = mark.approval;
  }
  return { servers: { ...approval?.servers ?? {} }, tools };
}
function withApproval(policy, { server, mcpName = null, value }) {
  const next = { servers: { ...policy?.servers ?? {} }, tools: { ...policy?.tools ?? {} } };
  if (mcpName === null) next.servers[server] = value;
  else next.tools[`${server}/${mcpName}`] = value;
  return next;
}
function splitCalls(calls, index, policy) {
  const out = { auto: [], ask: [], other: [] };
  for (const call of calls) {
    const found = index.get(call.name);
    if (!found) out.other.push(call);
    else out[approvalFor(policy, found)].push(call);
  }
  return out;
}
function exchangeRecords({ callId, server, tool, run = void 0, startedAt = void 0 }, exchanges) {
  const where = run ? { call_id: callId, server, tool, run } : { call_id: callId, server, tool };
  return (exchanges ?? []).map((exchange) => ({ ...where, ...exchange, ...startedAt !== void 0 ? { at: Math.round((startedAt + (exchange.at_ms ?? 0)) * 10) / 10 } : {} }));
}
function storedRecords(calls) {
  return (calls ?? []).flatMap((call) => exchangeRecords({ callId: call.tool_use_id, server: call.server, tool: call.tool, run: call.run, startedAt: call.started_at }, call.exchanges));
}
function sessionRecords(sessions) {
  return (sessions ?? []).flatMap((session) => (session.exchanges ?? []).map((exchange) => ({ server: session.server, session: true, ...exchange })));
}
function recordKey(record) {
  const message = record.message ?? {};
  return `${record.server}|${record.call_id ?? "session"}|${record.at ?? ""}|${record.direction}|${message.id ?? ""}|${message.method ?? ""}`;
}
function ranOnServer(calls) {
  return new Set((calls ?? []).filter((call) => call.outcome === "result").map((call) => call.tool_use_id));
}
function marksOf(entries, policy) {
  return Object.fromEntries(entries.map((entry) => {
    const own = policy?.tools?.[`${entry.server}/${entry.mcpName}`];
    const approval = own === "auto" || own === "ask" ? { approval: own } : {};
    return [entry.tool.name, { server: entry.server, mcp_name: entry.mcpName, ...approval }];
  }));
}
function unavailableWhy(mark, servers, removed = []) {
  if (!mark?.server) return null;
  const server = (servers ?? []).find((s) => s.name === mark.server);
  const answer = "answer it by hand or by a mock";
  const gone = (removed ?? []).find((entry) => entry.name === mark.server);
  if (!server && gone) return `MCP server \u201C${mark.server}\u201D was removed from the configuration (the servers file was reloaded at ${gone.removed_at}): ${answer}.`;
  if (!server) return `MCP server \u201C${mark.server}\u201D is not configured any more: ${answer}.`;
  if (server.state === "failed") return `MCP server \u201C${mark.server}\u201D failed${server.reason ? ` (${server.reason})` : ""}: ${answer}, or Connect / refresh to try again.`;
  if (server.state === "stopped" || server.state === "starting") return `MCP server \u201C${mark.server}\u201D is not started: Connect / refresh starts it, or ${answer}.`;
  return `MCP server \u201C${mark.server}\u201D no longer lists ${mark.mcp_name}: ${answer}.`;
}
function exchangeLabel(record) {
  const message = record.message ?? {};
  const arrow = record.direction === "sent" ? "\u2192" : "\u2190";
  const id = message.id !== void 0 ? ` #${message.id}` : "";
  if (message.method) return `${arrow} ${message.method}${id}`;
  if (record.answers && !message.error) {
    const capabilities = record.answers === "initialize" ? Object.keys(message.result?.capabilities ?? {}).sort() : [];
    const server = record.answers === "initialize" ? message.result?.serverInfo : null;
    const said = capabilities.length ? `: ${server?.name ? `${server.name} ${server.version ?? ""}, ` : ""}capabilities ${capabilities.join(", ")}` : "";
    return `${arrow} ${record.answers} result${id}${said}`;
  }
  if (message.fault) return `${arrow} ended${id}: ${message.fault.message ?? ""}`;
  if (message.omitted_notifications) return `${arrow} ${message.omitted_notifications} more notifications, not kept`;
  if (message.error) return `${arrow} error${id}: ${message.error.message ?? ""}`;
  if (message.omitted_bytes) return `${arrow} result${id} (${message.omitted_bytes} bytes, not kept)`;
  return `${arrow} result${id}`;
}
function elicitationLink(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? { href: parsed.href, origin: parsed.origin } : null;
  } catch {
    return null;
  }
}
function samplingText(request) {
  return (request?.messages ?? []).map((message) => `${message.role}: ${(message.content ?? []).map((block) => block.type === "text" ? block.text : `[${block.type}]`).join(" ")}`).join("\n");
}

// static/playground/mcp-catalog.js
var PREVIEW_CHARS = 4e3;
var McpCatalog = class {
  #urls;
  #composer;
  #lists = 0;
  // the datalists' ids
  /** @type {Map<string, { abort: AbortController, lists: Set<() => void>, updated: (uri: string) => void }>} */
  #watches = /* @__PURE__ */ new Map();
  /** @param {{ urls: Record<string, string>, composer: ComposerTarget | null }} options */
  constructor({ urls, composer }) {
    this.#urls = urls;
    this.#composer = composer;
  }
  /** The server's Resources and Prompts, each a closed list until opened; null for a server
   * whose start declared neither. */
  section(server) {
    const offers = new Set(server.info?.capabilities ?? []);
    const parts = [];
    if (offers.has("resources")) parts.push(this.#list(server.name, "resources", "Resources"));
    if (offers.has("prompts")) parts.push(this.#list(server.name, "prompts", "Prompts"));
    if (!parts.length) return null;
    return el("div", { className: "mcp-catalog", dataset: { watch: "off" } }, ...parts);
  }
  /** Every watch ends (the panel is drawn anew). */
  stop() {
    for (const watch of this.#watches.values()) watch.abort.abort();
    this.#watches.clear();
  }
  #list(serverName, kind, title) {
    const body = el("div", { className: "mcp-catalog-body" });
    const status = el("p", { className: "muted", attrs: { role: "status" } });
    const details = el("details", { className: "mcp-catalog-list", dataset: { mcpCatalog: kind, state: "closed" } }, el("summary", { text: title }), status, body);
    const load = async () => {
      details.dataset.state = "loading";
      status.textContent = "listing\u2026";
      try {
        const answer = await apiFetch(this.#urls[kind === "resources" ? "mcp_resources" : "mcp_prompts"], { method: "POST", body: { server: serverName } });
        const rows = kind === "resources" ? this.#resourceRows(serverName, answer) : this.#promptRows(serverName, answer.prompts);
        body.replaceChildren(...rows);
        details.dataset.state = rows.length ? "ready" : "none";
        status.textContent = rows.length ? "" : `The server lists no ${kind}.`;
      } catch (error) {
        details.dataset.state = "failed";
        status.textContent = error.message;
      }
    };
    details.addEventListener("toggle", () => {
      if (details.open) {
        load();
        this.#watch(serverName, details, load);
      } else this.#unwatch(serverName, load, details);
    });
    return details;
  }
  // --- Resources ------------------------------------------------------------------------------
  #resourceRows(serverName, { resources, templates, subscribe }) {
    const rows = resources.map((resource) => {
      const row = el("li", { className: "mcp-resource", dataset: { uri: resource.uri } });
      const preview = el("pre", { className: "mcp-preview", attrs: { hidden: "" } });
      const said = el("span", { className: "muted", attrs: { "aria-live": "polite" } });
      const read = async (attach) => {
        said.textContent = "reading\u2026";
        try {
          const answer = await apiFetch(this.#urls.mcp_resource, { method: "POST", body: { server: serverName, uri: resource.uri, name: resource.name ?? "" } });
          preview.textContent = previewText(answer.blocks);
          preview.hidden = false;
          said.textContent = "";
          if (attach) this.#attach(answer.blocks, resource.name || resource.uri, said);
        } catch (error) {
          said.textContent = error.message;
        }
      };
      row.addEventListener("mcp-updated", () => !preview.hidden && read(false));
      const buttons = [button("Preview", () => read(false), "mcp-preview"), button("Attach", () => read(true), "mcp-attach")];
      if (subscribe) buttons.push(this.#subscribeBox(serverName, resource.uri, said));
      row.append(head(resource.title || resource.name || resource.uri, resource.uri, resource.mimeType), describe(resource.description), el("div", { className: "field-row" }, ...buttons, said), preview);
      return row;
    });
    const templateRows = templates.map((template) => this.#templateRow(serverName, template));
    const list = el("ul", { className: "mcp-resources" }, ...rows, ...templateRows);
    return rows.length || templateRows.length ? [list] : [];
  }
  #templateRow(serverName, template) {
    const fields = argumentFields(templateNames(template.uriTemplate).map((name) => ({ name, required: true })));
    const form = schemaForm(fields, { prefix: "template" });
    this.#completing(form.element, serverName, { type: "resource", uri: template.uriTemplate });
    const said = el("span", { className: "muted", attrs: { "aria-live": "polite" } });
    const preview = el("pre", { className: "mcp-preview", attrs: { hidden: "" } });
    const read = async (attach) => {
      const values = form.read();
      if (values.error) return void (said.textContent = values.error);
      const uri = fillTemplate(template.uriTemplate, values.content ?? {});
      said.textContent = `reading ${uri}\u2026`;
      try {
        const answer = await apiFetch(this.#urls.mcp_resource, { method: "POST", body: { server: serverName, uri } });
        preview.textContent = previewText(answer.blocks);
        preview.hidden = false;
        said.textContent = uri;
        if (attach) this.#attach(answer.blocks, uri, said);
      } catch (error) {
        said.textContent = error.message;
      }
    };
    return el(
      "li",
      { className: "mcp-resource", dataset: { template: template.uriTemplate } },
      head(template.title || template.name, template.uriTemplate, template.mimeType),
      describe(template.description),
      form.element,
      el("div", { className: "field-row" }, button("Preview", () => read(false), "mcp-preview"), button("Attach", () => read(true), "mcp-attach"), said),
      preview
    );
  }
  #subscribeBox(serverName, uri, said) {
    const box = el("input", { attrs: { type: "checkbox" }, dataset: { action: "mcp-subscribe" } });
    box.addEventListener("change", async () => {
      try {
        await apiFetch(this.#urls.mcp_subscribe, { method: "POST", body: { server: serverName, uri, subscribe: box.checked } });
        said.textContent = box.checked ? "subscribed: its updates are marked here" : "";
      } catch (error) {
        box.checked = !box.checked;
        said.textContent = error.message;
      }
    });
    return el("label", { className: "check" }, box, el("span", { text: "Watch" }));
  }
  #attach(blocks, name, said) {
    if (!this.#composer) return void (said.textContent = "no composer on this page to attach to");
    this.#composer.attach(blocks.map((block, index) => ({ name: blocks.length > 1 ? `${name} (${index + 1})` : name, block })));
    said.textContent = "attached to your message";
  }
  // --- Prompts --------------------------------------------------------------------------------
  #promptRows(serverName, prompts) {
    if (!prompts.length) return [];
    return [
      el(
        "ul",
        { className: "mcp-resources" },
        ...prompts.map((prompt) => {
          const form = schemaForm(argumentFields(prompt.arguments), { prefix: "prompt" });
          this.#completing(form.element, serverName, { type: "prompt", name: prompt.name });
          const said = el("span", { className: "muted", attrs: { "aria-live": "polite" } });
          const insert = async () => {
            const values = form.read();
            if (values.error) return void (said.textContent = values.error);
            said.textContent = "fetching\u2026";
            try {
              const answer = await apiFetch(this.#urls.mcp_prompt, { method: "POST", body: { server: serverName, name: prompt.name, arguments: values.content ?? {} } });
              said.textContent = await this.#insert(answer.messages, prompt.name);
            } catch (error) {
              said.textContent = error.message;
            }
          };
          return el("li", { className: "mcp-resource", dataset: { prompt: prompt.name } }, head(prompt.title || prompt.name, prompt.name, ""), describe(prompt.description), form.element, el("div", { className: "field-row" }, button("Insert", insert, "mcp-insert-prompt"), said));
        })
      )
    ];
  }
  /** Each text field of a prompt's or a template's form offers what its server suggests for
   * the value typed so far (`completion/complete`, POST …/mcp/complete/, the form's other
   * values as context), as the input's list; an answer overtaken by later typing is dropped. */
  #completing(form, serverName, ref) {
    if (!this.#urls.mcp_complete) return;
    const inputs = (
      /** @type {HTMLInputElement[]} */
      [...form.querySelectorAll("input[data-field]:not([type='checkbox'])")]
    );
    for (const input of inputs) {
      const list = el("datalist", { attrs: { id: `mcp-complete-${++this.#lists}` }, dataset: { completions: input.dataset.field ?? "" } });
      input.setAttribute("list", list.id);
      input.after(list);
      let asked = 0;
      input.addEventListener("input", async () => {
        const mine = ++asked;
        const context = Object.fromEntries(inputs.filter((other) => other !== input && other.value).map((other) => [other.dataset.field, other.value]));
        try {
          const answer = await apiFetch(this.#urls.mcp_complete, { method: "POST", body: { server: serverName, ref, argument: { name: input.dataset.field, value: input.value }, context } });
          if (mine !== asked) return;
          list.replaceChildren(...(answer.values ?? []).map((value) => el("option", { attrs: { value } })));
          list.dataset.count = String(list.children.length);
        } catch {
        }
      });
    }
  }
  /** A prompt inserted (mcp-plan.js's promptParts): its turns up to its last assistant turn
   * appended to the conversation as they are, none run (the assistant's as the assistant's;
   * one it ends with is a prefill, which Continue goes on from), then the user turns after
   * them in the composer (their texts as its text, anything else as attachments). */
  async #insert(messages, name) {
    if (!this.#composer) return "no composer on this page";
    const { turns, composer } = promptParts(messages);
    if (turns.length && !this.#composer.insertTurns) return "this page cannot add turns to a conversation";
    if (turns.length) await this.#composer.insertTurns?.(turns);
    const texts = composer.filter((block) => block.type === "text").map((block) => block.text);
    const others = composer.filter((block) => block.type !== "text");
    if (texts.length) this.#composer.insertText(texts.join("\n\n"));
    if (others.length) this.#composer.attach(others.map((block, index) => ({ name: `${name} (${index + 1})`, block })));
    if (!turns.length) return "inserted in your message";
    const assistant = turns.filter((turn) => turn.role === "assistant").length;
    const rest = composer.length ? ", the rest in your message" : "";
    return `inserted: ${turns.length} turn${turns.length > 1 ? "s" : ""} added to the conversation, ${assistant} of them the assistant's${rest}`;
  }
  // --- The server's changes -------------------------------------------------------------------
  #watch(serverName, details, load) {
    let watch = this.#watches.get(serverName);
    if (!watch) {
      const abort = new AbortController();
      watch = { abort, lists: /* @__PURE__ */ new Set(), updated: (uri) => this.#markUpdated(details, uri) };
      this.#watches.set(serverName, watch);
      this.#follow(serverName, watch);
    }
    watch.lists.add(load);
    details.parentElement.dataset.watch = "on";
  }
  #unwatch(serverName, load, details) {
    const watch = this.#watches.get(serverName);
    if (!watch) return;
    watch.lists.delete(load);
    if (watch.lists.size) return;
    watch.abort.abort();
    this.#watches.delete(serverName);
    details.parentElement.dataset.watch = "off";
  }
  async #follow(serverName, watch) {
    try {
      const response = await fetch(this.#urls.mcp_watch, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
        body: JSON.stringify({ server: serverName }),
        signal: watch.abort.signal
      });
      if (!response.ok || !response.body) return;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let rest = "";
      for (; ; ) {
        const { value, done } = await reader.read();
        if (done) return;
        const read = readLines(rest + value);
        rest = read.rest;
        for (const line of read.values) {
          if (line.type !== "changed") continue;
          if (line.what === "updated") watch.updated(line.uri);
          else for (const load of watch.lists) load();
        }
      }
    } catch {
    }
  }
  #markUpdated(details, uri) {
    const section = details.parentElement;
    const row = section?.querySelector(`.mcp-resource[data-uri="${CSS.escape(uri)}"]`);
    if (!(row instanceof HTMLElement)) return;
    row.dataset.updated = (/* @__PURE__ */ new Date()).toLocaleTimeString();
    row.querySelector(".mcp-resource-head")?.setAttribute("title", `updated at ${row.dataset.updated}`);
    row.dispatchEvent(new Event("mcp-updated"));
  }
};
function previewText(blocks) {
  const parts = blocks.map((block) => {
    if (block.type === "text") return block.text;
    if (block.source?.type === "text") return block.source.data;
    return `[${block.type} ${block.source?.media_type ?? ""}]`.replace(" ]", "]");
  });
  const text = parts.join("\n\n");
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}
\u2026 (${text.length - PREVIEW_CHARS} more characters, attached whole)` : text;
}
function head(title, where, mime) {
  return el("div", { className: "mcp-resource-head" }, el("strong", { text: title }), el("code", { className: "muted", text: ` ${where}` }), mime ? el("span", { className: "muted", text: ` \xB7 ${mime}` }) : null);
}
function describe(text) {
  return text ? el("p", { className: "muted mcp-description", text }) : "";
}
function button(text, onClick, action) {
  const node = el("button", { className: "btn btn-ghost btn-small", text, attrs: { type: "button" }, dataset: { action } });
  node.addEventListener("click", onClick);
  return node;
}

export {
  toolIndex,
  serversInUse,
  connectBody,
  isDestructive,
  annotationWords,
  toolMatches,
  mergeTools,
  readLines,
  noticeText,
  approvalFor,
  policyOf,
  withApproval,
  splitCalls,
  exchangeRecords,
  storedRecords,
  sessionRecords,
  recordKey,
  ranOnServer,
  marksOf,
  unavailableWhy,
  exchangeLabel,
  elicitationLink,
  samplingText,
  schemaForm,
  McpCatalog,
  previewText
};
