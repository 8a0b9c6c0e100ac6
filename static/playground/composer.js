/**
 * The composer: Enter sends, Shift+Enter makes a new line; Stop while a run is live; a line
 * that says why it is waiting.
 *
 * Rule: the composer never talks to the socket. It calls `onSend(text)` / `onStop()` and is
 * told what to show through `update({running, blockedReason})`; the text is only cleared once
 * the app confirms the send (`sent()`), so a refused send loses nothing.
 */

import { parts } from "./dom.js";

export class Composer {
  #form;
  #input;
  #send;
  #stop;
  #why;
  #error;
  #running = false;
  #blocked = "";
  #onSend;

  constructor(form, { onSend, onStop }) {
    this.#form = form;
    this.#onSend = onSend;
    ({ input: this.#input, send: this.#send, stop: this.#stop, why: this.#why, error: this.#error } = parts(form, {
      input: "[data-composer-input]",
      send: "[data-action='send']",
      stop: "[data-action='stop']",
      why: "[data-composer-why]",
      error: "[data-composer-error]",
    }));
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("input", () => this.#refresh());
    this.#stop.addEventListener("click", () => onStop());
  }

  get text() {
    return this.#input.value;
  }

  focus() {
    this.#input.focus();
  }

  submit() {
    const text = this.#input.value;
    if (this.#running || this.#blocked || !text.trim()) return;
    this.showError("");
    this.#onSend(text);
  }

  /** The app accepted the message: clear the box. */
  sent() {
    this.#input.value = "";
    this.#refresh();
  }

  showError(text) {
    this.#error.textContent = text;
    this.#error.hidden = !text;
  }

  /** running: a run is live; blockedReason: why nothing can be sent now ("" when it can). */
  update({ running, blockedReason = "" }) {
    this.#running = running;
    this.#blocked = blockedReason;
    this.#refresh();
  }

  #refresh() {
    this.#stop.hidden = !this.#running;
    this.#send.hidden = this.#running;
    const empty = !this.#input.value.trim();
    this.#send.disabled = this.#running || Boolean(this.#blocked) || empty;
    let why = "";
    if (this.#running) why = "Waiting for the answer to finish. Stop (Esc) to cut it short.";
    else if (this.#blocked) why = this.#blocked;
    this.#why.textContent = why;
    this.#form.dataset.waiting = why ? "true" : "false";
  }
}
