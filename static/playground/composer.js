// @ts-check
/**
 * The composer: Enter sends, Shift+Enter makes a new line; Stop while a run is live; a line
 * that says why it is waiting.
 *
 * Rule: the composer never talks to the socket. It calls `onSend(text)` / `onStop()` and is
 * told what to show through `update({running, held, blockedReason, canRun, hint})`; the text is only
 * cleared once the app confirms the send (`sent()`), so a refused send loses nothing. When the
 * conversation ends with an unanswered user turn, a Run button answers it (`onRun()`), Send
 * sends the new text alone and "Add to it" joins it to that turn (`onSend(content, {unanswered:
 * "join"})`); the server keeps the unanswered turn either way (shapes.Unanswered).
 * When the conversation ends with an answer that can go on (a prefill, pause_turn, max_tokens),
 * a Continue button sends it back (`onContinue()`). Prefill… opens a field for the start of the
 * answer, sent with the message (`onSend(content, {prefill})`) for the model to continue.
 * Files (attach-tray.js: picker, paste, drop) go with the text: `onSend(content)` gets the
 * text alone, or the content blocks (the files first, as Anthropic advises, then the text).
 */

import { AttachTray } from "./attach-tray.js";
import { loadComposerDraft, saveComposerDraft } from "./drafts.js";
import { one, parts } from "./dom.js";

export class Composer {
  #form;
  #input;
  #send;
  #stop;
  #run;
  #continue;
  #prefill;
  #prefillRow;
  #prefillToggle;
  #canContinue = false;
  #continueHint = "";
  #join;
  #fix;
  /** @type {(() => void) | null} */
  #fixRun = null;
  #why;
  #error;
  #running = false;
  #held = false;
  #blocked = "";
  #canRun = false;
  #canJoin = false;
  #hint = "";
  #onSend;
  #tray;
  #conversationId;

  constructor(form, { onSend, onStop, onRun, onContinue, urls, conversationId = null }) {
    this.#form = form;
    this.#onSend = onSend;
    this.#conversationId = conversationId;
    ({ input: this.#input, send: this.#send, stop: this.#stop, run: this.#run, join: this.#join, fix: this.#fix, why: this.#why, error: this.#error } = parts(form, {
      input: "[data-composer-input]",
      send: "[data-action='send']",
      stop: "[data-action='stop']",
      run: "[data-action='run']",
      join: "[data-action='send-join']",
      fix: "[data-action='composer-fix']",
      why: "[data-composer-why]",
      error: "[data-composer-error]",
    }));
    ({ continue: this.#continue, prefill: this.#prefill, prefillRow: this.#prefillRow, prefillToggle: this.#prefillToggle } = parts(form, {
      continue: "[data-action='continue']",
      prefill: "[data-composer-prefill]",
      prefillRow: "[data-composer-prefill-row]",
      prefillToggle: "[data-action='toggle-prefill']",
    }));
    this.#continue.addEventListener("click", () => onContinue());
    this.#installMore();
    this.#prefillToggle.addEventListener("click", () => this.#togglePrefill());
    this.#prefill.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      this.submit();
    });
    this.#tray = new AttachTray(form, {
      url: urls.attachments,
      fileUrl: urls.attachment,
      onChange: () => this.#changed(),
      onError: (text) => this.showError(text),
    });
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("keydown", (event) => {
      if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
      event.preventDefault();
      this.submit();
    });
    this.#input.addEventListener("input", () => this.#changed());
    if (conversationId) {
      // What was typed (and attached) before a reload, until a run stores it.
      const draft = loadComposerDraft(conversationId);
      this.#input.value = draft.text;
      if (draft.files.length) this.#tray.restore(draft.files);
    }
    this.#stop.addEventListener("click", () => onStop());
    this.#run.addEventListener("click", () => onRun());
    this.#join.addEventListener("click", () => this.submit({ unanswered: "join" }));
    this.#fix.addEventListener("click", () => this.#fixRun?.());
  }

  get text() {
    return this.#input.value;
  }

  /** The turn as it would be sent: the text, or blocks when files are attached ("" for none). */
  get content() {
    const files = this.#tray.blocks;
    const text = this.#input.value;
    if (!files.length) return text.trim() ? text : "";
    return text.trim() ? [...files, { type: "text", text }] : files;
  }

  focus() {
    this.#input.focus();
  }

  /** Blocks made elsewhere (an MCP resource, a prompt's non-text parts) attached to the
   * message: [{name, block}]. */
  attach(items) {
    this.#tray.addBlocks(items);
  }

  /** Text put in the message at the caret (an MCP prompt's), as if typed. */
  insertText(text) {
    const input = this.#input;
    const start = input.selectionStart ?? input.value.length;
    const end = input.selectionEnd ?? start;
    input.setRangeText(text, start, end, "end");
    input.dispatchEvent(new Event("input", { bubbles: true }));
  }

  /** how: {unanswered: "join"} to add the text to an unanswered last turn (else it goes alone). */
  submit(how = {}) {
    const content = this.content;
    if (this.#running || this.#blocked || this.#tray.uploading || !content.length) return;
    this.showError("");
    const prefill = this.prefill;
    this.#onSend(content, prefill ? { ...how, prefill } : how);
  }

  /** The start of the answer the person wrote ("" when the field is closed or empty). */
  get prefill() {
    return this.#prefillRow.hidden ? "" : this.#prefill.value;
  }

  /** On a phone, Prefill…, Compare… and Edit request… sit behind More… (app.css): it opens
   * them above the bar; choosing one, Escape or a click elsewhere closes it. */
  #installMore() {
    const toggle = one(this.#form, "[data-action='composer-more']");
    const menu = one(this.#form, "[data-composer-more]");
    const show = (open) => {
      this.#form.dataset.more = open ? "open" : "closed";
      toggle.setAttribute("aria-expanded", String(open));
    };
    toggle.addEventListener("click", () => show(this.#form.dataset.more !== "open"));
    menu.addEventListener("click", (event) => {
      if (event.target.closest("button")) show(false);
    });
    this.#form.addEventListener("keydown", (event) => {
      if (event.key === "Escape" && this.#form.dataset.more === "open") {
        show(false);
        toggle.focus();
      }
    });
    document.addEventListener("pointerdown", (event) => {
      if (this.#form.dataset.more === "open" && !toggle.contains(event.target) && !menu.contains(event.target)) show(false);
    });
  }

  #togglePrefill() {
    const open = this.#prefillRow.hidden;
    this.#prefillRow.hidden = !open;
    this.#prefillToggle.setAttribute("aria-expanded", String(open));
    if (open) this.#prefill.focus();
  }

  /** The app accepted the message: clear the box, the files and the prefill. */
  sent() {
    this.#input.value = "";
    this.#prefill.value = "";
    this.#tray.clear();
    this.#changed();
  }

  /** The app learnt late that the message was taken (its start was lost with the socket):
   * clear it only if the box still holds what was sent; what was typed since stays. */
  sentIfStill(content) {
    if (JSON.stringify(this.content) === JSON.stringify(content)) this.sent();
  }

  #changed() {
    if (this.#conversationId) {
      saveComposerDraft(this.#conversationId, { text: this.#input.value, files: this.#tray.blocks });
    }
    this.#refresh();
  }

  showError(text) {
    this.#error.textContent = text;
    this.#error.hidden = !text;
  }

  /** running: a run is live; held: a message sent waits for the socket to open (Send says
   * "Connecting…"); blockedReason: why nothing can be sent now ("" when it can); canRun: the
   * last user turn is unanswered, and `hint` says what to do about it; canJoin: new text may be
   * added to it instead of going alone; fix: {label, run} a way to what blocks Send (e.g. the
   * Variables fields), shown beside the reason. */
  update({ running, held = false, blockedReason = "", canRun = false, canJoin = false, hint = "", fix = /** @type {{ label: string, run: () => void } | null} */ (null), canContinue = false, continueHint = "" }) {
    this.#canContinue = canContinue;
    this.#continueHint = continueHint;
    this.#fixRun = fix?.run ?? null;
    this.#fix.textContent = fix?.label ?? "";
    this.#running = running;
    this.#held = held;
    this.#blocked = blockedReason;
    this.#canRun = canRun;
    this.#canJoin = canRun && canJoin;
    this.#hint = hint;
    this.#refresh();
  }

  #refresh() {
    this.#stop.hidden = !this.#running;
    this.#send.hidden = this.#running;
    const empty = !this.content.length;
    this.#send.disabled = this.#running || Boolean(this.#blocked) || empty || this.#tray.uploading;
    // A message sent before the socket opened waits for it (held-send.js): what is in the box
    // is what goes, so it stays as it is until then.
    this.#send.textContent = this.#held ? "Connecting…" : "Send";
    this.#input.readOnly = this.#held;
    this.#run.hidden = this.#running || !this.#canRun;
    this.#run.disabled = Boolean(this.#blocked);
    this.#continue.hidden = this.#running || !this.#canContinue;
    this.#continue.disabled = Boolean(this.#blocked);
    this.#continue.classList.toggle("btn-primary", empty);
    this.#join.hidden = this.#running || !this.#canJoin || empty;
    this.#join.disabled = this.#send.disabled;
    // One primary action at a time: Run while the box is empty, Send once there is text.
    this.#send.classList.toggle("btn-primary", !(this.#canRun || this.#canContinue) || !empty);
    this.#run.classList.toggle("btn-primary", empty);
    let why = "";
    if (this.#running) why = "Waiting for the answer to finish. Stop (Esc) to cut it short.";
    else if (this.#blocked) why = this.#blocked;
    else if (this.#canRun) why = this.#hint;
    else if (this.#canContinue) why = this.#continueHint;
    this.#why.textContent = why;
    this.#fix.hidden = this.#running || !this.#blocked || !this.#fixRun;
    this.#form.dataset.waiting = why ? "true" : "false";
  }
}
