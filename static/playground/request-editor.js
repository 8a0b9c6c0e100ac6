// @ts-check
/**
 * The debugger's editable next request: the exact body the next run would send, edited by
 * hand, checked by the server's rules, diffed against what the conversation would send, and
 * sent instead of it (the socket's `send_request`).
 *
 * Rule: the browser never decides what is valid. The draft comes from the server (POST
 * …/request/ with the turn about to be sent: a dry run of the send, nothing stored), and so
 * does the verdict on an edit (the same endpoint with `request`); the body sent is the one the
 * server checked and rebuilt. Only JSON syntax is checked here, to say so while typing.
 * State for tests: dialog[data-request-state="loading|ready|edited|checking|valid|invalid|refused"],
 * and the diff list's data-changes.
 */

import { apiFetch } from "./api.js";
import { el, one, parts } from "./dom.js";
import { drawChanges } from "./diff-view.js";
import { pretty } from "./format.js";
import { jsonDiff } from "./json-diff.js";
import { Modal, showError } from "./modal.js";
import { requestWarnings } from "./thinking-integrity.js";

export class RequestEditor {
  #dialog;
  #modal;
  #url;
  #parts;
  #turn = {};
  #turnOf;
  #draft = null;
  #checked = null;
  #blocked;
  #onSend;
  #onChange;
  #token = 0;

  /**
   * `turn()` is the turn about to be sent ({content} | {results, text} | {}); `blocked()`
   * why a run may not start now ("" when it may: said beside Send, which is off meanwhile);
   * `onSend({turn, request})` sends it on the socket;
   * `onChange({opened})` hears of a fresh draft (opened) or an edit of the text.
   */
  constructor(dialog, { openers, turn, blocked, onSend, onChange = /** @type {(change: { opened: boolean }) => void} */ (() => {}) }) {
    this.#dialog = dialog;
    this.#modal = new Modal(dialog, { onClose: () => this.#setState("closed") });
    this.#url = dialog.dataset.requestUrl;
    this.#blocked = blocked;
    this.#onSend = onSend;
    this.#onChange = onChange;
    this.#parts = parts(dialog, {
      json: "[data-request-json]",
      error: "[data-request-error]",
      diff: "[data-request-diff]",
      status: "[data-request-status]",
      send: "[data-action='send-request']",
      sendWhy: "[data-request-send-why]",
      check: "[data-action='check-request']",
      warnings: "[data-request-warnings]",
    });
    this.#turnOf = turn;
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
    this.#parts.json.addEventListener("input", () => this.#edited());
    this.#parts.check.addEventListener("click", () => this.#check());
    this.#parts.send.addEventListener("click", () => this.#send());
    one(dialog, "[data-action='reset-request']").addEventListener("click", () => this.#reset());
  }

  get isOpen() {
    return this.#modal.isOpen;
  }

  /** Open with the draft for the turn about to be sent. */
  async open(opener) {
    this.#turn = this.#turnOf();
    this.#draft = null;
    this.#checked = null;
    this.#parts.json.value = "";
    showError(this.#parts.error, "");
    this.#onChange({ opened: true });
    this.#setState("loading");
    this.#modal.open(opener);
    const token = ++this.#token;
    try {
      const { request } = await apiFetch(this.#url, { method: "POST", body: this.#turn });
      if (token !== this.#token) return;
      this.#draft = request;
      this.#reset();
    } catch (error) {
      if (token !== this.#token) return;
      this.#refused(error, "There is no next request yet");
    }
  }

  /** The turn and, when the text is not the draft, the edited body: what a render renders
   * (the rendered prompt's body); null when the text is no JSON (said, as while typing). */
  renderBody() {
    if (this.#draft === null) return { ...this.#turn };
    const edit = this.#parsed();
    if (edit === null) return null;
    const same = JSON.stringify(edit) === JSON.stringify(this.#draft);
    return same ? { ...this.#turn } : { ...this.#turn, request: edit };
  }

  /** The socket is open or not, an action is held for it, a run started or ended: Send
   * follows, and says why it is off (a draft still loading says so in the status). */
  refresh() {
    const why = this.#blocked();
    const { send, sendWhy } = this.#parts;
    send.disabled = this.#draft === null || why !== "";
    send.title = why;
    if (sendWhy.textContent !== why) sendWhy.textContent = why;
    sendWhy.hidden = why === "";
  }

  #reset() {
    if (this.#draft === null) return;
    this.#onChange({ opened: false });
    this.#parts.json.value = pretty(this.#draft);
    this.#checked = this.#draft;
    showError(this.#parts.error, "");
    drawChanges(this.#parts.diff, [], { empty: "No changes: this is what the conversation would send." });
    this.#warn(this.#draft);
    this.#setState("ready", "As the conversation would send it.");
  }

  /** The text as JSON, or null after saying why not. */
  #parsed() {
    try {
      return JSON.parse(this.#parts.json.value);
    } catch (error) {
      showError(this.#parts.error, `Not JSON: ${error.message}`);
      this.#setState("invalid", "Fix the JSON to check it.");
      return null;
    }
  }

  #edited() {
    this.#onChange({ opened: false });
    this.#checked = null;
    this.#token += 1; // a check under way is about text that is gone
    const edit = this.#parsed();
    if (edit === null || this.#draft === null) return;
    showError(this.#parts.error, "");
    const changes = jsonDiff(this.#draft, edit);
    drawChanges(this.#parts.diff, changes, { empty: "No changes: this is what the conversation would send." });
    this.#warn(edit);
    this.#setState("edited", `${changes.length} change${changes.length === 1 ? "" : "s"}, not checked yet.`);
  }

  /** Ask the server; the checked body, or null (the refusal is shown). */
  async #check() {
    const edit = this.#parsed();
    if (edit === null) return null;
    const token = ++this.#token;
    this.#setState("checking", "Checking…");
    try {
      const answer = await apiFetch(this.#url, { method: "POST", body: { ...this.#turn, request: edit } });
      if (token !== this.#token) return null;
      this.#draft = answer.request; // the conversation may have moved on since the dialog opened
      this.#checked = answer.edited;
      showError(this.#parts.error, "");
      const changes = jsonDiff(this.#draft, this.#checked);
      drawChanges(this.#parts.diff, changes, { empty: "No changes: this is what the conversation would send." });
      this.#warn(this.#checked);
      this.#setState("valid", `Valid: ${changes.length} change${changes.length === 1 ? "" : "s"} from what the conversation would send.`);
      return this.#checked;
    } catch (error) {
      if (token !== this.#token) return null;
      this.#refused(error, "Refused");
      return null;
    }
  }

  /** The thinking rules the server does not check (the upstream does, with a 400). */
  #warn(edit) {
    const warnings = edit && typeof edit === "object" ? requestWarnings(this.#draft, edit) : [];
    const list = this.#parts.warnings;
    list.replaceChildren(...warnings.map((warning) => el("li", { text: warning.text, dataset: { code: warning.code } })));
    list.dataset.codes = warnings.map((warning) => warning.code).join(" ");
    list.hidden = warnings.length === 0;
  }

  #refused(error, words) {
    const field = error.field ? ` (${error.field})` : "";
    showError(this.#parts.error, { message: `${error.message}${field}`, field: error.field });
    this.#setState(this.#draft === null ? "refused" : "invalid", `${words}: nothing was sent.`);
  }

  async #send() {
    if (this.#blocked()) return;
    const request = this.#checked ?? (await this.#check());
    if (request === null || this.#blocked()) return;
    this.#onSend({ turn: this.#turn, request });
    this.#modal.close();
  }

  #setState(state, words = "") {
    this.#dialog.dataset.requestState = state;
    this.#parts.status.textContent = words;
    this.refresh();
  }
}
