// @ts-check
/**
 * A server's resources and prompts in the MCP panel (docs/mcp.md, "Resources and prompts"):
 * each listed on demand (a resource with its description and type, a template with a form for
 * its URI's variables, a prompt with a form for its arguments); a resource previewed, attached
 * to the composer's message as a block, and subscribed to; a prompt filled and inserted: its
 * turns up to its last assistant turn in the conversation (the assistant's as the assistant's,
 * POST …/turns/), the user turns after them in the composer. While a list is open the server's changes are watched (POST …/mcp/watch/, NDJSON):
 * a `list_changed` lists again, a subscribed resource's update is marked (and its open preview
 * read again).
 *
 * Rule: every word a server sent (names, descriptions, contents) goes in as text
 * (`textContent`); nothing here builds markup from it. State for tests: each list's
 * `data-mcp-catalog="resources|prompts"` with data-state="loading|ready|failed|none", a
 * resource row's data-uri and data-updated, a prompt's data-prompt, the section's
 * data-watch="on|off".
 */

import { apiFetch, csrfHeaders } from "./api.js";
import { el } from "./dom.js";
import { schemaForm } from "./mcp-form.js";
import { argumentFields, fillTemplate, templateNames } from "./mcp-schema.js";
import { promptParts, readLines } from "./mcp-plan.js";

/** At most this much of a text is previewed (it is attached whole). */
const PREVIEW_CHARS = 4000;

/** @typedef {{ attach: (items: Array<{ name: string, block: any }>) => void, insertText: (text: string) => void, insertTurns?: (turns: Array<{ role: string, content: any[] }>) => Promise<void> }} ComposerTarget */

export class McpCatalog {
  #urls;
  #composer;
  #lists = 0; // the datalists' ids
  /** @type {Map<string, { abort: AbortController, lists: Set<() => void>, updated: (uri: string) => void }>} */
  #watches = new Map();

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
      status.textContent = "listing…";
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
        said.textContent = "reading…";
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
      /** @type {HTMLElement[]} */
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
      said.textContent = `reading ${uri}…`;
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
      preview,
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
            said.textContent = "fetching…";
            try {
              const answer = await apiFetch(this.#urls.mcp_prompt, { method: "POST", body: { server: serverName, name: prompt.name, arguments: values.content ?? {} } });
              said.textContent = await this.#insert(answer.messages, prompt.name);
            } catch (error) {
              said.textContent = error.message;
            }
          };
          return el("li", { className: "mcp-resource", dataset: { prompt: prompt.name } }, head(prompt.title || prompt.name, prompt.name, ""), describe(prompt.description), form.element, el("div", { className: "field-row" }, button("Insert", insert, "mcp-insert-prompt"), said));
        }),
      ),
    ];
  }

  /** Each text field of a prompt's or a template's form offers what its server suggests for
   * the value typed so far (`completion/complete`, POST …/mcp/complete/, the form's other
   * values as context), as the input's list; an answer overtaken by later typing is dropped. */
  #completing(form, serverName, ref) {
    if (!this.#urls.mcp_complete) return;
    const inputs = /** @type {HTMLInputElement[]} */ ([...form.querySelectorAll("input[data-field]:not([type='checkbox'])")]);
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
          // no suggestions: the field is typed as it is
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
      watch = { abort, lists: new Set(), updated: (uri) => this.#markUpdated(details, uri) };
      this.#watches.set(serverName, watch);
      this.#follow(serverName, watch);
    }
    watch.lists.add(load);
    /** @type {HTMLElement} */ (details.parentElement).dataset.watch = "on";
  }

  #unwatch(serverName, load, details) {
    const watch = this.#watches.get(serverName);
    if (!watch) return;
    watch.lists.delete(load);
    if (watch.lists.size) return;
    watch.abort.abort();
    this.#watches.delete(serverName);
    /** @type {HTMLElement} */ (details.parentElement).dataset.watch = "off";
  }

  async #follow(serverName, watch) {
    try {
      const response = await fetch(this.#urls.mcp_watch, {
        method: "POST",
        credentials: "same-origin",
        headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
        body: JSON.stringify({ server: serverName }),
        signal: watch.abort.signal,
      });
      if (!response.ok || !response.body) return;
      const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
      let rest = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) return;
        const read = readLines(rest + value);
        rest = read.rest;
        for (const line of read.values) {
          if (line.type !== "changed") continue;
          if (line.what === "updated") watch.updated(line.uri);
          else for (const load of watch.lists) load(); // a list changed: each open one is listed again
        }
      }
    } catch {
      // aborted (the lists closed), or the server went: the next open watches again
    }
  }

  #markUpdated(details, uri) {
    const section = details.parentElement;
    const row = section?.querySelector(`.mcp-resource[data-uri="${CSS.escape(uri)}"]`);
    if (!(row instanceof HTMLElement)) return;
    row.dataset.updated = new Date().toLocaleTimeString();
    row.querySelector(".mcp-resource-head")?.setAttribute("title", `updated at ${row.dataset.updated}`);
    row.dispatchEvent(new Event("mcp-updated"));
  }
}

/** What a preview shows of blocks: texts as they are (cut at PREVIEW_CHARS), others named. */
export function previewText(blocks) {
  const parts = blocks.map((block) => {
    if (block.type === "text") return block.text;
    if (block.source?.type === "text") return block.source.data;
    return `[${block.type} ${block.source?.media_type ?? ""}]`.replace(" ]", "]");
  });
  const text = parts.join("\n\n");
  return text.length > PREVIEW_CHARS ? `${text.slice(0, PREVIEW_CHARS)}\n… (${text.length - PREVIEW_CHARS} more characters, attached whole)` : text;
}

function head(title, where, mime) {
  return el("div", { className: "mcp-resource-head" }, el("strong", { text: title }), el("code", { className: "muted", text: ` ${where}` }), mime ? el("span", { className: "muted", text: ` · ${mime}` }) : null);
}

/** @returns {HTMLElement | string} */
function describe(text) {
  return text ? el("p", { className: "muted mcp-description", text }) : "";
}

function button(text, onClick, action) {
  const node = el("button", { className: "btn btn-ghost btn-small", text, attrs: { type: "button" }, dataset: { action } });
  node.addEventListener("click", onClick);
  return node;
}
