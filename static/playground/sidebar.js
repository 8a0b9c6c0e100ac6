/**
 * The conversation list: new, rename, delete, search (titles and message content).
 *
 * Rule: the list is the server's (GET /api/conversations/?q=); every change goes through the
 * API and the list is fetched again, so it never drifts from what is stored. Deleting asks
 * for a second click on the same button (no window.confirm: no dialogs on this page).
 * Each entry is one Tab stop (its link); its Rename and Delete are reached with the arrow
 * keys from the link (a roving focus inside the entry), so a long list stays quick to Tab by.
 */

import { apiFetch } from "./api.js";
import { decorateResult } from "./search-highlight.js";
import { el, one, parts } from "./dom.js";

const FILTER_DELAY_MS = 150;
/** What an untitled conversation is called (the server's models.UNTITLED, the same word). */
export const UNTITLED = "Untitled";

export class Sidebar {
  #root;
  #list;
  #empty;
  #error;
  #filter;
  #urls;
  #currentId;
  #timer = 0;
  #onRenamed;

  constructor(root, { urls, currentId = null, onRenamed = () => {} }) {
    this.#root = root;
    this.#urls = urls;
    this.#currentId = currentId;
    this.#onRenamed = onRenamed;
    ({ list: this.#list, empty: this.#empty, error: this.#error, filter: this.#filter } = parts(root, {
      list: "[data-sidebar-list]",
      empty: "[data-sidebar-empty]",
      error: "[data-sidebar-error]",
      filter: "[data-sidebar-filter]",
    }));
    this.#filter.addEventListener("input", () => {
      clearTimeout(this.#timer);
      this.#timer = setTimeout(() => this.refresh(), FILTER_DELAY_MS);
    });
    one(root, "[data-action='new-conversation']").addEventListener("click", () => this.create());
  }

  async refresh() {
    const query = this.#filter.value.trim();
    const url = `${this.#urls.api_conversations}?q=${encodeURIComponent(query)}`;
    this.#list.dataset.state = "loading";
    try {
      const { conversations } = await apiFetch(url);
      // A slower, older answer must not overwrite a newer filter's.
      if (query !== this.#filter.value.trim()) return;
      this.#draw(conversations);
      this.#showError("");
    } catch (error) {
      this.#showError(`Could not load conversations: ${error.message}`);
    }
    this.#list.dataset.state = "ready";
  }

  /** Open a new conversation: the newest one still as created, or a new one (the server's
   * choice), so clicking again and again leaves no trail of Untitled entries. Already on it,
   * the page stays (a reload would drop what is being typed) and the composer takes the focus. */
  async create() {
    try {
      const conversation = await apiFetch(`${this.#urls.api_conversations}?reuse=untouched`, {
        method: "POST",
        body: {},
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

  #showError(text) {
    this.#error.textContent = text;
    this.#error.hidden = !text;
  }

  #draw(conversations) {
    const current = conversations.find((summary) => summary.id === this.#currentId);
    if (current) this.#onRenamed(current); // e.g. titled by its first message
    this.#list.replaceChildren(...conversations.map((summary) => this.#item(summary)));
    this.#empty.hidden = conversations.length > 0;
    // "No match" only when a filter could have matched something.
    this.#empty.textContent = this.#filter.value.trim()
      ? "No conversations match."
      : "No conversations yet: New conversation starts one.";
  }

  #item(summary) {
    const current = summary.id === this.#currentId;
    const link = el("a", {
      className: "sidebar-link",
      text: summary.shown_title || summary.title || UNTITLED,
      attrs: { href: summary.url, title: summary.shown_title || summary.title || UNTITLED },
    });
    if (current) link.setAttribute("aria-current", "page");
    const meta = el("span", { className: "sidebar-meta", text: summary.model });
    link.setAttribute("aria-describedby", "sidebar-keys");
    const rename = el("button", {
      className: "icon-btn",
      text: "Rename",
      attrs: { type: "button", tabindex: "-1", "aria-label": `Rename ${summary.title || UNTITLED}` },
    });
    const remove = el("button", {
      className: "icon-btn icon-btn-danger",
      text: "Delete",
      attrs: { type: "button", tabindex: "-1", "aria-label": `Delete ${summary.title || UNTITLED}` },
    });
    const main = el("div", { className: "sidebar-main" }, link, meta);
    decorateResult(link, main, summary, this.#filter.value.trim());
    const item = el(
      "li",
      { className: "sidebar-item", dataset: { conversationId: summary.id } },
      main,
      el("div", { className: "sidebar-actions" }, rename, remove),
    );
    if (current) item.dataset.current = "true";
    const stops = [link, rename, remove];
    item.addEventListener("keydown", (event) => {
      const at = stops.indexOf(event.target);
      if (at < 0 || (event.key !== "ArrowRight" && event.key !== "ArrowLeft")) return;
      event.preventDefault();
      const next = stops[Math.min(stops.length - 1, Math.max(0, at + (event.key === "ArrowRight" ? 1 : -1)))];
      next.focus();
    });
    rename.addEventListener("click", () => this.#startRename(item, summary));
    remove.addEventListener("click", () => this.#delete(item, remove, summary));
    return item;
  }

  #startRename(item, summary) {
    const input = el("input", {
      className: "input input-small",
      attrs: { "aria-label": "New title", maxlength: "200" },
    });
    input.value = summary.title;
    const form = el("form", { className: "sidebar-rename" }, input);
    item.replaceChildren(form);
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

  async #delete(item, button, summary) {
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
    item.remove();
    await this.refresh();
  }
}
