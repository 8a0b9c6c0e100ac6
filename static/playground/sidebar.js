// @ts-check
/**
 * The conversation list: new, rename, delete, search (titles and message content).
 *
 * Rule: the list is the server's (GET /api/conversations/?q=); every change goes through the
 * API and the list is fetched again, so it never drifts from what is stored. It comes a page
 * at a time (the server's conversations.paging): "Show older conversations" fetches the page
 * after the last one shown (its `next` cursor), and a refresh fetches as many as are shown.
 * Deleting asks for a second click on the same button (no window.confirm: no dialogs here).
 * Each entry is one Tab stop (its link); its Rename and Delete are reached with the arrow
 * keys from the link (a roving focus inside the entry), so a long list stays quick to Tab by.
 */

import { apiFetch } from "./api.js";
import { decorateResult } from "./search-highlight.js";
import { el, one, parts } from "./dom.js";

const FILTER_DELAY_MS = 150;
/** A page of the list: the server's PAGE_SIZE (playground/conversations/paging.py). */
export const PAGE_SIZE = 50;
/** The most one request answers: the server's MAX_PAGE_SIZE. */
const MAX_PAGE_SIZE = 500;
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
  #more;
  #next = null; // the cursor of the page after the last one shown, or null
  #wanted = PAGE_SIZE; // how many a refresh asks for: as many as were shown

  constructor(root, { urls, currentId = null, onRenamed = /** @type {(summary: any) => void} */ (() => {}) }) {
    this.#root = root;
    this.#urls = urls;
    this.#currentId = currentId;
    this.#onRenamed = onRenamed;
    ({ list: this.#list, empty: this.#empty, error: this.#error, filter: this.#filter, more: this.#more } = parts(root, {
      list: "[data-sidebar-list]",
      empty: "[data-sidebar-empty]",
      error: "[data-sidebar-error]",
      filter: "[data-sidebar-filter]",
      more: "[data-action='sidebar-more']",
    }));
    this.#filter.addEventListener("input", () => {
      clearTimeout(this.#timer);
      this.#wanted = PAGE_SIZE; // a new search starts at its first page
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
      // A slower, older answer must not overwrite a newer filter's.
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
      // A refresh or another search came meanwhile: what it drew stands.
      if (query !== this.#filter.value.trim() || before !== this.#next) return;
      const shown = new Set([...this.#list.children].map((item) => item.dataset.conversationId));
      const older = page.conversations.filter((summary) => !shown.has(summary.id));
      const items = older.map((summary) => this.#item(summary));
      this.#list.append(...items);
      this.#wanted = this.#list.children.length;
      const hadFocus = document.activeElement === this.#more;
      this.#setNext(page.next);
      // The last page hides the button: the keyboard goes on from the first entry it added.
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
        body: {},
      });
      if (conversation.id === this.#currentId) {
        /** @type {HTMLElement | null} */ (document.querySelector("[data-composer-input]"))?.focus();
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
      const at = stops.indexOf(/** @type {any} */ (event.target));
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
