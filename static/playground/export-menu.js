// @ts-check
/**
 * The Export menu: the request body (view, copy, download), the Markdown transcript
 * (download) and "View code" (curl, Python with anthropic, Python with httpx).
 *
 * Rule: exports are the server's text, shown as fetched (textContent in a <pre>), never
 * rebuilt in the browser, so what is copied is byte for byte what a download holds (a file's
 * long base64 is shortened in the <pre> for reading only; Copy takes the exact text). Downloads
 * are same-origin links with the `download` attribute (no blob: URLs, no script-made files).
 * The menu follows the menu-button pattern: arrows move, Esc closes and gives focus back.
 * State for tests: dialog[data-export-request|data-export-code][data-state], and each <pre>'s
 * data-loaded="true" once its text is in.
 */

import { ApiError } from "./api.js";
import { copyText, one } from "./dom.js";
import { abbreviateBase64 } from "./format.js";
import { Modal, showError } from "./modal.js";

const SOURCE_NOTES = {
  next_request: "The body the next run would send (no key).",
  last_run: "The conversation ends with an answer: this is the body of the run that produced it, exactly as sent (no key).",
  rebuilt: "The last answer has no recorded run (forked or imported): rebuilt from the turns with the current settings (no key).",
};

/** GET `url` as text; failures become an ApiError with the server's {code, message, field}. */
async function fetchText(url) {
  let response;
  try {
    response = await fetch(url, { credentials: "same-origin", headers: { Accept: "application/json, text/plain, */*" } });
  } catch {
    throw new ApiError({ code: "network", message: "the server could not be reached" });
  }
  const text = await response.text();
  if (!response.ok) {
    let error = {};
    try {
      error = JSON.parse(text).error ?? {};
    } catch {
      // not the JSON error shape: fall back to the status
    }
    throw new ApiError({
      code: error.code ?? `http_${response.status}`,
      message: error.message ?? `the server answered ${response.status}`,
      field: error.field ?? null,
      status: response.status,
    });
  }
  return { text, source: response.headers.get("X-Playground-Request-Source") ?? "" };
}

class Menu {
  #button;
  #list;

  constructor(root) {
    this.#button = one(root, "[data-action='toggle-export']");
    this.#list = one(root, "[role='menu']");
    this.#button.addEventListener("click", () => (this.#list.hidden ? this.open(false) : this.close()));
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
      event.stopPropagation(); // not the page's "Esc stops the run"
      this.close();
    } else if (event.key === "Tab") {
      this.close({ focus: false });
    }
  }
}

export class ExportMenu {
  #urls;
  #requestModal;
  #codeModal;
  #requestText = "";
  #codeTexts = new Map();

  constructor(root, { requestDialog, codeDialog }) {
    this.#urls = { request: root.dataset.requestUrl, code: root.dataset.codeUrl };
    new Menu(root);
    this.#requestModal = new Modal(requestDialog);
    this.#codeModal = new Modal(codeDialog);
    const button = one(root, "[data-action='toggle-export']");
    one(root, "[data-export='request']").addEventListener("click", () => this.showRequest(button));
    one(root, "[data-export='code']").addEventListener("click", () => this.showCode(button));
    one(requestDialog, "[data-action='copy-request']").addEventListener("click", (event) =>
      copyText(event.currentTarget, this.#requestText),
    );
    this.#wireTabs(codeDialog);
  }

  async showRequest(opener) {
    const dialog = this.#requestModal.element;
    const pre = one(dialog, "[data-export-request-text]");
    const note = one(dialog, "[data-export-request-note]");
    const error = one(dialog, "[data-export-error]");
    pre.dataset.loaded = "false";
    pre.textContent = "Loading…";
    note.textContent = "";
    showError(error, "");
    this.#requestModal.open(opener);
    try {
      const { text, source } = await fetchText(this.#urls.request);
      this.#requestText = text;
      pre.textContent = abbreviateBase64(text);
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
        pre.textContent = "Loading…";
        try {
          const url = `${this.#urls.code}?lang=${encodeURIComponent(panel.dataset.codeLang)}`;
          const { text } = await fetchText(url);
          this.#codeTexts.set(panel.dataset.codeLang, text);
          pre.textContent = abbreviateBase64(text);
          pre.dataset.loaded = "true";
        } catch (failure) {
          pre.textContent = "";
          showError(error, `Could not make the snippet: ${failure.message}`);
        }
      }),
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
      one(panel, "[data-action='copy-code']").addEventListener("click", (event) =>
        copyText(event.currentTarget, pre.dataset.loaded === "true" ? (this.#codeTexts.get(panel.dataset.codeLang) ?? "") : ""),
      );
    });
    select(tabs[0], false);
  }
}
