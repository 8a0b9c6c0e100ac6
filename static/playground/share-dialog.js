// @ts-check
/**
 * The Share dialog: make a read-only link to this conversation, and manage its links.
 *
 * Rule: the server stores only a hash of each token, so a full link exists in the page only
 * right after it was made (Create link, or New link on an existing share) and is shown once,
 * in the dialog, never stored by the page. Everything else about a share (hint, dates,
 * options) comes from the API and enters the DOM through textContent. Revoking asks for a
 * second click on the same button (no window.confirm).
 * State for tests: [data-share-list][data-state="loading|ready"], li[data-share-id],
 * [data-share-new] visible with the link in [data-share-new-url].
 */

import { apiFetch } from "./api.js";
import { copyText, el, one, parts } from "./dom.js";
import { Modal, showError } from "./modal.js";

function when(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso ?? "");
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

function checkbox(name, label, checked) {
  const input = el("input", { attrs: { type: "checkbox", name } });
  input.checked = checked;
  return { input, label: el("label", { className: "check" }, input, document.createTextNode(` ${label}`)) };
}

export class ShareDialog {
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
      createForm: "[data-share-create]",
    }));
    this.#createForm.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#create();
    });
    one(root, "[data-action='copy-share-link']").addEventListener("click", (event) =>
      copyText(event.currentTarget, this.#newUrl.value),
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
      include_tools: form.elements.include_tools.checked,
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
    // Shown once: closing the dialog drops it from the page.
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
      attrs: { type: "button", title: "Replace the link: the old one stops working" },
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
        el("code", { className: "share-hint", text: `/s/${share.token_hint}…` }),
        el("span", {
          className: "muted share-item-meta",
          text: [
            `${share.message_count} message${share.message_count === 1 ? "" : "s"}`,
            `created ${when(share.created_at)}`,
            `snapshot ${when(share.snapshot_at)}`,
            ...hidden,
          ].join(" · "),
        }),
      ),
      el("fieldset", { className: "share-item-options" }, el("legend", { className: "sr-only", text: "Include" }), thinking.label, tools.label),
      el("div", { className: "share-item-actions" }, update, rotate, revoke),
    );
    const item = el("li", { className: "share-item", dataset: { shareId: share.id } }, form);
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#patch(share, { ...this.#options(form) });
    });
    rotate.addEventListener("click", () => this.#patch(share, { ...this.#options(form), rotate: true }));
    revoke.addEventListener("click", () => this.#revoke(share, revoke));
    return item;
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
      button.setAttribute("aria-label", `Confirm revoking /s/${share.token_hint}…`);
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
}
