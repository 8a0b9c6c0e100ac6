// @ts-check
/**
 * The MCP servers a person adds of their own (login mode; docs/mcp.md, "Servers people add"):
 * their list, and a form to add or change one, a Streamable-HTTP URL with headers or OAuth.
 *
 * Rule: a header's value goes to the server and never comes back: a kept one shows as "value
 * set", and a value left blank when a server is changed keeps it. Sign in sends the person to
 * the server's authorization page (the server answers its URL); they come back to this page
 * with `?mcp_signed_in=NAME`. Every change lists the servers again (`onChange`). State for
 * tests: [data-mcp-own][data-loaded], .mcp-own-server[data-own-server][data-signed-in].
 */
import { apiFetch } from "./api.js";
import { el, one } from "./dom.js";

export class McpOwnServers {
  #root;
  #url;
  #onChange;
  /** @type {Array<any>} */
  #servers = [];
  /** @type {string | null} */
  #editing = null; // the id of the server the form changes, or null: a new one

  /**
   * @param {HTMLElement} root
   * @param {{ url: string, onChange: () => void }} options
   */
  constructor(root, { url, onChange }) {
    this.#root = root;
    this.#url = url;
    this.#onChange = onChange;
    const form = /** @type {HTMLFormElement} */ (one(root, "[data-mcp-own-form]"));
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
    const form = /** @type {HTMLFormElement} */ (one(this.#root, "[data-mcp-own-form]"));
    const items = this.#servers.map((server) => {
      const headers = server.headers.map((/** @type {any} */ header) => `${header.name}: value set`).join(", ");
      const how = server.auth === "oauth" ? (server.signed_in ? "OAuth · signed in" : "OAuth · not signed in") : headers || "no headers";
      const buttons = [this.#button("Change", "mcp-own-edit", () => this.#fill(form, server))];
      if (server.auth === "oauth") buttons.push(this.#button("Sign in", "mcp-own-sign-in", () => this.#signIn(server)));
      if (server.auth === "oauth" && server.signed_in) buttons.push(this.#button("Disconnect", "mcp-own-disconnect", () => this.#act(server, "disconnect/", `Disconnected from ${server.name}: its tokens are deleted.`)));
      buttons.push(this.#button("Remove", "mcp-own-remove", () => this.#act(server, "delete/", `Removed ${server.name}.`)));
      return el(
        "li",
        { className: "mcp-own-server", dataset: { ownServer: server.name, signedIn: String(server.signed_in) } },
        el("strong", { text: server.name }),
        el("span", { className: "muted", text: ` ${server.where} · ${how}${server.unreadable ? " · its secrets no longer open: enter them again" : ""}` }),
        el("span", { className: "field-row" }, ...buttons),
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
    /** @type {HTMLInputElement} */ (form.elements.namedItem("name")).value = server?.name ?? "";
    /** @type {HTMLInputElement} */ (form.elements.namedItem("url")).value = server?.url ?? "";
    /** @type {HTMLSelectElement} */ (form.elements.namedItem("auth")).value = server?.auth ?? "headers";
    one(form, "[data-mcp-own-headers]").replaceChildren();
    for (const header of server?.headers ?? []) this.#headerRow(form, header);
    one(form, "[data-mcp-own-save]").textContent = server ? `Save ${server.name}` : "Add server";
    /** @type {HTMLElement} */ (form.closest("details") ?? form).setAttribute("open", "");
  }

  #headerRow(form, header) {
    const name = el("input", { className: "input input-small", attrs: { "aria-label": "Header name", placeholder: "Authorization" }, dataset: { headerName: "" } });
    name.value = header.name;
    // A kept value is never sent back: left blank, it stays as it is.
    const value = el("input", { className: "input input-small", attrs: { type: "password", autocomplete: "off", "aria-label": `Value of ${header.name || "the header"}`, placeholder: header.set ? "value set (blank keeps it)" : "value" }, dataset: { headerValue: "" } });
    const row = el("div", { className: "field-row mcp-own-header" }, name, value);
    one(form, "[data-mcp-own-headers]").append(row);
  }

  async #save(form) {
    const field = (/** @type {string} */ name) => /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value;
    const headers = [...form.querySelectorAll(".mcp-own-header")]
      .map((row) => ({ name: /** @type {HTMLInputElement} */ (one(row, "[data-header-name]")).value.trim(), value: /** @type {HTMLInputElement} */ (one(row, "[data-header-value]")).value }))
      .filter((header) => header.name);
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
      if (answer.authorize_url) location.assign(answer.authorize_url); // the server's own page
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
}
