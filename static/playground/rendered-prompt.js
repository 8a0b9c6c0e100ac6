// @ts-check
/**
 * The debugger's rendered prompt: the next request as the upstream's chat template turns it
 * into text (FriendliAI's chat render, or the simulator's stand-in), shown in the request
 * editor beside the JSON it comes from.
 *
 * Rule: offered only where the conversation's profile says it renders (`renders_prompt` in
 * its public view); the server renders (POST …/rendered-prompt/ with the editor's turn and,
 * when edited, its body) with the profile's key, and the page shows the text it answers as
 * text (textContent in a <pre>, never HTML). A render started before the request changed is
 * dropped when it answers.
 * State for tests: section[data-rendered-state="idle|loading|ready|stale|error"], and the
 * button's hidden attribute.
 */

import { apiFetch } from "./api.js";
import { copyText, el, parts } from "./dom.js";
import { showError } from "./modal.js";

export class RenderedPrompt {
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
      copy: "[data-action='copy-rendered']",
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
    if (state === "loading") this.#token += 1; // its answer is about text that is gone
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
    this.#setState("loading", "Rendering…");
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
}
