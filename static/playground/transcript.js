/**
 * The transcript: stored turns drawn whole, the live turn fed by relay events.
 *
 * Rule: stored turns come from the conversation's messages (renderMessage), the live turn
 * from LiveTurn; both are wrapped in the same <article class="msg"> with the run's footer,
 * so a turn looks the same before and after its run ends. This module draws; the app owns the
 * messages and decides when to redraw.
 */

import { LiveTurn, renderMessage } from "./render/index.js";
import { el, one } from "./dom.js";
import { runMeta } from "./turn-meta.js";

function textOf(message) {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n\n");
}

function isPlainUserText(message) {
  return (
    message.role === "user" &&
    (typeof message.content === "string" ||
      message.content.every((block) => block.type === "text"))
  );
}

export class Transcript {
  #turns;
  #empty;
  #schemas;
  #handlers;
  #live = null; // {turn: LiveTurn, article, run}
  // Turns drawn live and then finished, by message id: reused on redraw, so what the person
  // watched (thinking durations, open/closed choices) stays as it was.
  #kept = new Map();

  /**
   * @param {HTMLElement} root the [data-transcript] section
   * @param {{toolSchemas: () => object, onRegenerate, onEdit, onInspect}} options
   */
  constructor(root, { toolSchemas, onRegenerate, onEdit, onInspect }) {
    this.#turns = one(root, "[data-turns]");
    this.#empty = one(root, "[data-empty-state]");
    this.#schemas = toolSchemas;
    this.#handlers = { onRegenerate, onEdit, onInspect };
    this.scroller = root;
  }

  get live() {
    return this.#live;
  }

  /** Redraw every stored turn (keeps the live turn, if any, last). */
  draw(messages, { orphanRun = null, idle = true } = {}) {
    const lastAssistant = [...messages].reverse().find((m) => m.role === "assistant");
    const ids = new Set(messages.map((message) => String(message.id)));
    for (const id of this.#kept.keys()) if (!ids.has(id)) this.#kept.delete(id);
    const articles = messages.map((message) => {
      const canRegenerate = idle && message === messages.at(-1) && message === lastAssistant;
      const kept = this.#kept.get(String(message.id));
      if (!kept) return this.#storedArticle(message, { canRegenerate });
      kept.actions.replaceChildren();
      this.#assistantActions(kept.actions, message.run, { canRegenerate });
      return kept.article;
    });
    // A run that failed before saving anything still gets a turn: its error is the answer.
    if (orphanRun) articles.push(this.#orphanArticle(orphanRun, { canRegenerate: idle }));
    if (this.#live) articles.push(this.#live.article);
    this.#turns.replaceChildren(...articles);
    this.#empty.hidden = articles.length > 0;
  }

  #article(role, { messageId, runId }) {
    const article = el("article", { className: `msg msg-${role}`, dataset: { role } });
    if (messageId !== undefined) article.dataset.messageId = String(messageId);
    if (runId) article.dataset.runId = runId;
    const label = el("span", { className: "msg-role", text: role === "user" ? "User" : "Assistant" });
    const actions = el("span", { className: "msg-actions" });
    article.append(el("header", { className: "msg-head" }, label, actions));
    return { article, actions };
  }

  #button(text, action, onClick) {
    const button = el("button", {
      className: "btn btn-ghost btn-small",
      text,
      attrs: { type: "button" },
      dataset: { action },
    });
    button.addEventListener("click", onClick);
    return button;
  }

  #storedArticle(message, { canRegenerate }) {
    const { article, actions } = this.#article(message.role, {
      messageId: message.id,
      runId: message.run?.id,
    });
    const body = renderMessage(message, { toolSchemas: this.#schemas() });
    article.append(body);
    if (message.role === "assistant") {
      this.#assistantActions(actions, message.run, { canRegenerate });
      const meta = runMeta(message.run);
      if (meta) article.append(meta);
    } else if (isPlainUserText(message)) {
      actions.append(this.#button("Edit", "edit", () => this.#startEdit(article, body, message)));
    }
    return article;
  }

  #assistantActions(actions, run, { canRegenerate }) {
    if (run?.id) {
      actions.append(this.#button("Inspect", "inspect", () => this.#handlers.onInspect(run.id)));
    }
    if (canRegenerate) {
      actions.append(this.#button("Regenerate", "regenerate", () => this.#handlers.onRegenerate()));
    }
  }

  #orphanArticle(run, { canRegenerate }) {
    const { article, actions } = this.#article("assistant", { runId: run.id });
    article.dataset.orphan = "true";
    if (run.kept_content) {
      // The answer arrived but the conversation could not take it: shown from its run.
      article.dataset.kept = "true";
      const message = { id: `kept-${run.id}`, role: "assistant", content: run.kept_content.content, run };
      article.append(renderMessage(message, { toolSchemas: this.#schemas() }));
      article.append(el("p", { className: "turn-kept muted", attrs: { role: "status" }, text: run.kept_content.reason }));
    } else {
      const body = el("div", { className: "pg-turn", dataset: { role: "assistant", state: "done", status: run.status } });
      body.append(el("p", { className: "muted", text: "No answer was received." }));
      article.append(body);
    }
    this.#assistantActions(actions, run, { canRegenerate });
    article.append(runMeta(run));
    return article;
  }

  #startEdit(article, body, message) {
    const textarea = el("textarea", {
      className: "input edit-input",
      attrs: { rows: "4", "aria-label": "Edit message" },
    });
    textarea.value = textOf(message);
    const save = this.#button("Save and resend", "edit-save", () =>
      this.#handlers.onEdit(message, textarea.value),
    );
    save.classList.replace("btn-ghost", "btn-primary");
    const cancel = this.#button("Cancel", "edit-cancel", () => form.replaceWith(body));
    const form = el("div", { className: "edit-form" }, textarea, el("div", { className: "form-actions" }, cancel, save));
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        save.click();
      } else if (event.key === "Escape") {
        event.stopPropagation();
        cancel.click();
      }
    });
    body.replaceWith(form);
    textarea.focus();
  }

  /** Start drawing a live run (or keep the current one if it is the same run: a resume). */
  startLive(run) {
    if (this.#live?.run.id === run.id) return this.#live;
    this.#live?.turn.finish({});
    const { article, actions } = this.#article("assistant", { runId: run.id });
    article.dataset.live = "true";
    const body = el("div", { className: "msg-body" });
    article.append(body);
    const turn = new LiveTurn(body, { toolSchemas: this.#schemas() });
    this.#assistantActions(actions, run, { canRegenerate: false });
    // A checkpointed copy of the same run may be drawn as a stored turn: the live one wins.
    this.#turns.querySelectorAll(`.msg[data-run-id="${CSS.escape(run.id)}"]`).forEach((n) => n.remove());
    this.#turns.append(article);
    this.#empty.hidden = true;
    this.#live = { turn, article, actions, run };
    return this.#live;
  }

  /** Append the user turn a run answers (sent by run.started). */
  appendUser(message) {
    const article = this.#storedArticle(message, { canRegenerate: false });
    if (this.#live) this.#turns.insertBefore(article, this.#live.article);
    else this.#turns.append(article);
    this.#empty.hidden = true;
  }

  applyEvents(runId, events) {
    if (this.#live?.run.id !== runId) return;
    this.#live.turn.applyEvents(events);
  }

  /** The run's stream is over but its end is not saved yet (run.saving): say so, in place. */
  showSaving(frame) {
    const live = this.#live;
    if (!live || live.run.id !== frame.run_id) return;
    live.article.dataset.saveState = "pending";
    let note = live.article.querySelector(".turn-saving");
    if (!note) {
      note = el("p", { className: "turn-saving", attrs: { role: "status" } });
      live.article.append(note);
    }
    const retry = typeof frame.retry_in_ms === "number" ? ` (attempt ${frame.attempt}; next in ${Math.ceil(frame.retry_in_ms / 100) / 10} s)` : "";
    note.textContent = `Not saved yet: ${frame.error?.message ?? "the server is retrying"}${retry}`;
  }

  /** The run ended: final state and footer; the turn stays in place until the next redraw. */
  finishLive(frame) {
    const live = this.#live;
    if (!live || live.run.id !== frame.run_id) return;
    live.turn.finish(frame);
    live.article.querySelector(".turn-saving")?.remove();
    delete live.article.dataset.saveState;
    const { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content } = frame;
    const outcome = { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content };
    const run = { ...live.run, ...(frame.message?.run ?? {}), ...outcome };
    live.article.dataset.live = "false";
    if (frame.message?.id !== undefined) {
      live.article.dataset.messageId = String(frame.message.id);
      this.#kept.set(String(frame.message.id), { article: live.article, actions: live.actions });
    }
    live.article.append(runMeta(run));
    this.#live = null;
  }
}
