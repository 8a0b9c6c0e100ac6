// @ts-check
/**
 * "Import request…": paste a Messages API request body, or pick a file, to make a new
 * conversation from it.
 *
 * Rule: the server checks the whole body and writes nothing when it refuses; the page shows
 * its message as given, with the place it names (e.g. "messages[3].content[0]") set apart and
 * on data-field, and moves to the new conversation only on success. A picked file is read into
 * the text area (the person sees what will be sent and may edit it); one path, JSON, for both.
 * State for tests: dialog[data-import-dialog][data-state], form[data-busy].
 */

import { apiFetch } from "./api.js";
import { el, one } from "./dom.js";
import { Modal, showError } from "./modal.js";

const DEFAULT_MAX_BYTES = 1024 * 1024;

export class ImportDialog {
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
    // The server's message starts with the place it names: set that apart.
    const field = error.field;
    const prefix = field ? `${field}: ` : "";
    if (field && error.message.startsWith(prefix)) {
      this.#error.replaceChildren(
        el("code", { className: "error-field", text: field }),
        document.createTextNode(`: ${error.message.slice(prefix.length)}`),
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
}
