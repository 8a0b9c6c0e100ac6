// @ts-check
/**
 * The transcript: stored turns drawn whole, the live turn fed by relay events.
 *
 * Rule: stored turns come from the conversation's messages (renderMessage), the live turn
 * from LiveTurn; both are wrapped in the same <article class="msg"> with the run's footer,
 * so a turn looks the same before and after its run ends. This module draws; the app owns the
 * messages and decides when to redraw.
 *
 * A long conversation opens fast: only the latest WINDOW turns are drawn, older ones WINDOW
 * at a time (each chunk its own task, well under 50 ms) when the reader scrolls up to them (or presses "Show earlier turns"), and a drawn
 * turn is reused by every redraw while its message is the same object. The view follows the
 * bottom (a new turn, the stream) until the reader scrolls up; then "Jump to latest" shows.
 * While a mouse is in the tool results, it keeps still instead, and what the mouse aims at
 * stays under it (scroll-hold.js): a button never moves between a mouse's aim and its click.
 *
 * A turn with alternatives (a regenerated answer, an edited message: `message.branch`) shows
 * ‹ n/m › in its head, redrawn on every draw (a reused turn's place among its alternatives
 * changes when a new one arrives); the buttons ask the app to switch (onSwitch), disabled
 * while a run is live, and the article carries data-branch="n/m" for CSS and tests.
 */

import { LiveTurn, renderMessage } from "./render/index.js";
import { answerText, checkOutput, showOutputCheck } from "./output-check.js";
import { el, one, placeChildren } from "./dom.js";
import { runMeta } from "./turn-meta.js";
import { ScrollHold } from "./scroll-hold.js";

export const WINDOW = 10;
const DRAW_BUDGET_MS = 16;
const NEAR_BOTTOM_PX = 48;

function textOf(message) {
  if (typeof message.content === "string") return message.content;
  return message.content
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n\n");
}

/** tool_use id -> the tool's name, over the whole conversation (results name their tool). */
function toolNamesOf(messages) {
  const names = {};
  for (const message of messages) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const block of message.content) if (block?.id && block.name) names[block.id] = block.name;
  }
  return names;
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
  #serverTools;
  #handlers;
  /** @type {{ turn: LiveTurn, article: HTMLElement, actions: HTMLElement, run: any } | null} */
  #live = null; // {turn: LiveTurn, article, run}
  #outputSchema;
  // Turns drawn live and then finished, by message id: reused on redraw, so what the person
  // watched (thinking durations, open/closed choices) stays as it was.
  #kept = new Map();
  #drawn = new WeakMap(); // message object -> {article, actions}
  #shown = WINDOW; // how many of the latest turns are drawn
  /** @type {{ messages: any[], options: { orphanRun?: any, idle?: boolean, unansweredColumns?: any[] } }} */
  #last = { messages: [], options: {} };
  #older;
  #jump;
  #following = true;
  #setTop = -1; // the scrollTop we set ourselves (its scroll event is not the reader's)
  /** @type {IntersectionObserver | null} */
  #observer = null;
  #hold;

  /**
   * @param {HTMLElement} root the [data-transcript] section
   * @param {{toolSchemas: () => object, serverTools?: () => string[] | undefined, onRegenerate: (...args: any[]) => void, onEdit: (...args: any[]) => void, onInspect: (runId: string) => void, onSwitch: (...args: any[]) => void, onFork?: ((message: any) => void) | null, outputSchema?: () => unknown}} options
   *   serverTools: the names server tool calls may carry (render/server-tools.js);
   *   onSwitch(message, alternativeId, direction): show that alternative of the message's turn;
   *   onFork(message): a new conversation up to that message (no Fork button without it)
   *   outputSchema(): the schema answers must follow (output-check.js), or null
   */
  constructor(
    root,
    { toolSchemas, serverTools = () => undefined, onRegenerate, onEdit, onInspect, onSwitch, onFork = null, outputSchema = () => null },
  ) {
    this.#outputSchema = outputSchema;
    this.#turns = one(root, "[data-turns]");
    this.#empty = one(root, "[data-empty-state]");
    this.#jump = one(root.parentElement, "[data-action='jump-latest']");
    this.#schemas = toolSchemas;
    this.#serverTools = serverTools;
    this.#handlers = { onRegenerate, onEdit, onInspect, onSwitch, onFork };
    this.scroller = root;
    this.#older = el("button", {
      className: "btn btn-small older-turns",
      attrs: { type: "button" },
      dataset: { action: "show-older" },
    });
    this.#older.addEventListener("click", () => this.showOlder());
    if (typeof IntersectionObserver === "function") {
      this.#observer = new IntersectionObserver(
        (entries) => entries.some((entry) => entry.isIntersecting) && this.showOlder(),
        { root, rootMargin: "600px 0px 0px 0px" },
      );
    }
    root.addEventListener("scroll", () => this.#onScroll(), { passive: true });
    this.#hold = new ScrollHold(root, { onScrolled: (top) => (this.#setTop = top) });
    this.#jump.addEventListener("click", () => this.follow());
  }

  // -- following the bottom ------------------------------------------------------------------

  get following() {
    return this.#following;
  }

  #distance() {
    const s = this.scroller;
    return s.scrollHeight - s.scrollTop - s.clientHeight;
  }

  #onScroll() {
    if (this.#setTop >= 0 && Math.abs(this.scroller.scrollTop - this.#setTop) < 2) return;
    this.#setTop = -1;
    this.#setFollowing(this.#distance() < NEAR_BOTTOM_PX);
  }

  #setFollowing(following) {
    this.#following = following;
    this.scroller.dataset.following = String(following);
    this.#offerJump(!following && this.#distance() >= NEAR_BOTTOM_PX);
  }

  /** Show or hide "Jump to latest". Its row under the transcript stays while the transcript
   * scrolls, the button in it shown or not: a row that came and went with the button changed
   * the transcript's height, and near the bottom that moved the text under the pointer. */
  #offerJump(shown) {
    const jump = this.#jump;
    jump.dataset.shown = String(shown);
    if (shown) {
      jump.hidden = false;
      return;
    }
    const row = jump.hidden ? 0 : jump.parentElement.clientHeight - this.scroller.offsetHeight;
    jump.hidden = this.scroller.scrollHeight <= this.scroller.clientHeight + row;
  }

  #toBottom() {
    const s = this.scroller;
    s.scrollTop = s.scrollHeight;
    this.#setTop = s.scrollTop;
  }

  /** Scroll to the latest turn and follow it from now on (Send, "Jump to latest", opening). */
  follow() {
    this.#hold.letGo();
    this.#toBottom();
    this.#setFollowing(true);
    requestAnimationFrame(() => this.#following && this.#toBottom());
  }

  /** The content grew: stay at the bottom if following, else offer the jump; with a mouse in
   * the tool results, keep what it aims at where it is. */
  keepUp() {
    requestAnimationFrame(() => {
      if (this.#hold.holding) this.#hold.settle();
      else if (this.#following) this.#toBottom();
      else this.#offerJump(this.#distance() >= NEAR_BOTTOM_PX);
    });
  }

  /** Draw the next chunk of older turns above, keeping what the reader sees in place. */
  showOlder() {
    const { messages, options } = this.#last;
    if (this.#shown >= messages.length) return;
    this.#shown += WINDOW;
    this.#keepingPlace(() => this.draw(messages, options));
  }

  get live() {
    return this.#live;
  }

  /** Redraw the stored turns (the latest ones; keeps the live turn, if any, last). Turns not
   * drawn before are rendered newest first within DRAW_BUDGET_MS; the rest follow in the next
   * tasks, so no task grows long however heavy the turns are. */
  /** @param {any[]} messages @param {{ orphanRun?: any, idle?: boolean, unansweredColumns?: any[] }} [options] */
  draw(messages, { orphanRun = null, idle = true, unansweredColumns = [] } = {}) {
    clearTimeout(this.#fillTimer);
    const focused = this.#focusedAction();
    this.#last = { messages, options: { orphanRun, idle, unansweredColumns } };
    const lastAssistant = messages.findLast((m) => m.role === "assistant");
    // A finished live turn stays kept while it is an alternative of a turn on screen, so
    // switching back to it shows it as the person watched it.
    const ids = new Set(messages.flatMap((message) => (message.branch?.ids ?? [message.id]).map(String)));
    for (const id of this.#kept.keys()) if (!ids.has(id)) this.#kept.delete(id);
    this.#toolNames = toolNamesOf(messages);
    const from = Math.max(0, messages.length - this.#shown);
    const started = performance.now();
    const articles = [];
    let oldest = messages.length;
    // Each pass draws at least one turn not drawn before, however long the turns already drawn
    // took to place again (a slow or loaded machine): a pass that drew none filled nothing,
    // its next task the same, for ever; and, at the top, only took "Show earlier turns" away
    // above the reader's place, which the scroller then could not keep (scrollTop stops at 0).
    let rendered = 0;
    for (let index = messages.length - 1; index >= from; index -= 1) {
      const message = messages[index];
      const canRegenerate = idle && index === messages.length - 1 && message === lastAssistant;
      let drawn = this.#kept.get(String(message.id)) ?? this.#drawn.get(message);
      if (!drawn) {
        if (rendered > 0 && performance.now() - started > DRAW_BUDGET_MS) break;
        drawn = this.#storedArticle(message, { canRegenerate });
        this.#drawn.set(message, drawn);
        rendered += 1;
      } else if (message.role === "assistant") {
        drawn.actions.replaceChildren();
        this.#assistantActions(drawn.actions, message.run, { canRegenerate });
        this.#forkAction(drawn.actions, message);
      }
      this.#branchNav(drawn.article, message, { idle });
      articles.push(drawn.article);
      oldest = index;
    }
    articles.reverse();
    const filling = oldest > from;
    if (!filling && from > 0) {
      this.#older.textContent = `Show ${Math.min(WINDOW, from)} earlier turns (${from} not shown)`;
      articles.unshift(this.#older);
    }
    // A run that failed before saving anything still gets a turn: its error is the answer.
    if (orphanRun) articles.push(this.#orphanArticle(orphanRun, { canRegenerate: idle }));
    // A compare's columns that failed before any text: no message holds them, so each is shown
    // as its failure under the turn they answered (only that turn's: the list is the server's
    // as the page was read).
    const last = messages.at(-1);
    const group = last?.role === "assistant" ? last.run?.compare?.group : orphanRun?.compare?.group;
    for (const run of unansweredColumns) {
      if (!group || run.compare?.group !== group || run.id === orphanRun?.id) continue;
      const article = this.#orphanArticle(run, { canRegenerate: false });
      article.dataset.unansweredColumn = String(run.compare.column);
      articles.push(article);
    }
    if (this.#live) articles.push(this.#live.article);
    placeChildren(this.#turns, articles);
    this.#turns.dataset.shown = String(messages.length - oldest);
    this.#empty.hidden = articles.length > 0;
    if (focused && !this.#turns.contains(document.activeElement)) this.#refocus(focused);
    this.#observer?.disconnect();
    if (filling) this.#fillTimer = setTimeout(() => this.#keepingPlace(() => this.draw(messages, { orphanRun, idle, unansweredColumns })), 0);
    else if (from > 0) this.#observer?.observe(this.#older);
    if (!filling) for (const resolve of this.#whenDrawn.splice(0)) resolve();
  }

  #fillTimer = 0;

  /** The turn's button that has the keyboard focus ({position, action}), or null. */
  #focusedAction() {
    const active = document.activeElement;
    if (!(active instanceof HTMLElement) || !this.#turns.contains(active) || !active.dataset.action) return null;
    const position = active.closest(".msg")?.getAttribute("data-position");
    return position == null ? null : { position, action: active.dataset.action };
  }

  /** A redraw replaced the focused button (a background reload, a socket's hello): the same
   * button of the same turn takes the focus back, so a keyboard user is not sent to the top. */
  #refocus({ position, action }) {
    const article = this.#turns.querySelector(`.msg[data-position="${CSS.escape(position)}"]`);
    const button = article?.querySelector(`[data-action="${CSS.escape(action)}"]`);
    if (button instanceof HTMLElement && !(button instanceof HTMLButtonElement && button.disabled)) button.focus();
  }
  /** @type {((value?: unknown) => void)[]} */
  #whenDrawn = []; // resolvers waiting for a draw that leaves nothing to fill

  /** Draw every turn, not only the latest (a search result must find its match drawn). */
  showEverything() {
    this.#shown = Number.POSITIVE_INFINITY;
  }

  /** Resolves once the turns being drawn are all in the page (drawing may span tasks). */
  drawn() {
    return new Promise((resolve) => this.#whenDrawn.push(resolve));
  }

  /** Change what is drawn above while the reader's view stays where it was (or at the bottom). */
  #keepingPlace(change) {
    const s = this.scroller;
    const fromBottom = s.scrollHeight - s.scrollTop;
    change();
    if (this.#following) return this.#toBottom();
    s.scrollTop = s.scrollHeight - fromBottom;
    this.#setTop = s.scrollTop;
    return undefined;
  }

  #toolNames = {};

  /** What a tool call is checked against, and what a tool result is named by. */
  #toolChecks() {
    return { toolSchemas: this.#schemas(), serverTools: this.#serverTools(), toolNames: this.#toolNames };
  }

  /** @param {string} role @param {{ messageId?: unknown, runId?: string }} ids */
  #article(role, { messageId, runId }) {
    const article = el("article", { className: `msg msg-${role}`, dataset: { role } });
    if (messageId !== undefined) article.dataset.messageId = String(messageId);
    if (runId) article.dataset.runId = runId;
    const label = el("span", { className: "msg-role", text: role === "user" ? "User" : "Assistant" });
    const actions = el("span", { className: "msg-actions" });
    const nav = el("span", { className: "msg-branch", dataset: { branchNav: "" } });
    article.append(el("header", { className: "msg-head" }, label, nav, actions));
    return { article, actions };
  }

  /** ‹ n/m › for a turn with alternatives; nothing for a turn without. */
  #branchNav(article, message, { idle }) {
    const nav = article.querySelector("[data-branch-nav]");
    if (!nav) return;
    const ids = message.branch?.ids ?? [];
    const index = message.branch?.index ?? 0;
    article.dataset.position = String(message.position);
    if (ids.length < 2) {
      delete article.dataset.branch;
      nav.replaceChildren();
      return;
    }
    const shown = `${index + 1}/${ids.length}`;
    article.dataset.branch = shown;
    const what = message.role === "user" ? "message" : "answer";
    const step = (direction, text, label) => {
      const target = ids[index + direction];
      const button = this.#button(text, `branch-${direction < 0 ? "previous" : "next"}`, () =>
        this.#handlers.onSwitch(message, target, direction),
      );
      button.setAttribute("aria-label", label);
      button.disabled = !idle || target === undefined;
      return button;
    };
    const count = el("span", {
      className: "msg-branch-count",
      text: shown,
      attrs: { "aria-label": `${what} ${index + 1} of ${ids.length}` },
    });
    nav.setAttribute("role", "group");
    nav.setAttribute("aria-label", `Alternatives of this ${what}`);
    const first = index === 0 ? "this is the first" : `${index} of ${ids.length}`;
    const last = index === ids.length - 1 ? "this is the last" : `${index + 2} of ${ids.length}`;
    nav.replaceChildren(step(-1, "‹", `Previous ${what} (${first})`), count, step(1, "›", `Next ${what} (${last})`));
  }

  /** Focus a turn's ‹ or › after a switch redrew it (keyboard users stay where they were). */
  focusBranch(position, direction) {
    const article = this.#turns.querySelector(`.msg[data-position="${Number(position)}"]`);
    const action = direction < 0 ? "branch-previous" : "branch-next";
    const button = article?.querySelector(`[data-action="${action}"]`);
    const target = button && !button.disabled ? button : article?.querySelector("[data-branch-nav] button:not(:disabled)");
    target?.focus();
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
    const body = renderMessage(message, this.#toolChecks());
    article.append(body);
    if (message.role === "assistant") {
      this.#assistantActions(actions, message.run, { canRegenerate });
      this.#checkOutput(article, message.content, { partial: false });
      const meta = runMeta(message.run, { content: message.content });
      if (meta) article.append(meta);
    } else if (isPlainUserText(message)) {
      actions.append(this.#button("Edit", "edit", () => this.#startEdit(article, body, message)));
    }
    this.#forkAction(actions, message);
    return { article, actions };
  }

  #forkAction(actions, message) {
    const onFork = this.#handlers.onFork;
    if (!onFork) return;
    const fork = this.#button("Fork", "fork", () => onFork(message));
    fork.title = "A new conversation with the turns up to this one (this one stays as it is)";
    fork.setAttribute("aria-label", "Fork from here");
    actions.append(fork);
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
      article.append(renderMessage(message, this.#toolChecks()));
      article.append(el("p", { className: "turn-kept muted", attrs: { role: "status" }, text: run.kept_content.reason }));
    } else {
      const body = el("div", { className: "pg-turn", dataset: { role: "assistant", state: "done", status: run.status } });
      body.append(el("p", { className: "muted", text: "No answer was received." }));
      article.append(body);
    }
    this.#assistantActions(actions, run, { canRegenerate });
    const meta = runMeta(run, { content: run.kept_content?.content ?? null });
    if (meta) article.append(meta);
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
    const turn = new LiveTurn(body, { ...this.#toolChecks(), key: run.id });
    this.#assistantActions(actions, run, { canRegenerate: false });
    // A checkpointed copy of the same run may be drawn as a stored turn: the live one wins.
    this.#turns.querySelectorAll(`.msg[data-run-id="${CSS.escape(run.id)}"]`).forEach((n) => n.remove());
    this.#turns.append(article);
    this.#empty.hidden = true;
    this.#live = { turn, article, actions, run };
    return this.#live;
  }

  /** The live turn's status line: a retry, a silent upstream ("" removes it). */
  liveNote(text) {
    const live = this.#live;
    if (!live) return;
    let note = live.article.querySelector(".turn-live-note");
    if (!text) {
      note?.remove();
      delete live.article.dataset.liveNote;
      return;
    }
    if (!note) {
      note = el("p", { className: "turn-live-note", attrs: { role: "status" } });
      one(live.article, ".msg-body").before(note);
    }
    if (note.textContent !== text) note.textContent = text;
    live.article.dataset.liveNote = "true";
  }

  /** Append the user turn a run answers (sent by run.started). */
  appendUser(message) {
    const { article } = this.#storedArticle(message, { canRegenerate: false });
    if (this.#live) this.#turns.insertBefore(article, this.#live.article);
    else this.#turns.append(article);
    this.#empty.hidden = true;
  }

  applyEvents(runId, events) {
    const live = this.#live;
    if (live === null || live.run.id !== runId) return;
    live.turn.applyEvents(events);
    this.#checkOutput(live.article, live.turn.message?.content, { partial: true });
  }

  /** A structured answer's check against the output schema, drawn on its turn. */
  #checkOutput(article, content, { partial }) {
    const schema = this.#outputSchema();
    if (!schema) return;
    showOutputCheck(article, checkOutput(answerText(content), schema, { partial }));
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
    this.liveNote("");
    live.article.querySelector(".turn-saving")?.remove();
    delete live.article.dataset.saveState;
    const { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content } = frame;
    const outcome = { status, stop_reason, stop_sequence, stop_details, container, usage, timings, error, block_issues, notes, kept_content };
    const run = { ...live.run, ...(frame.message?.run ?? {}), ...outcome };
    live.article.dataset.live = "false";
    // A continued turn holds blocks the live turn never drew (the prefill, the paused part):
    // the next draw renders it whole from the stored message instead.
    if (frame.message?.id !== undefined && !(frame.message.carried_blocks > 0)) {
      live.article.dataset.messageId = String(frame.message.id);
      this.#kept.set(String(frame.message.id), { article: live.article, actions: live.actions });
    }
    const content = frame.message?.content ?? live.turn.message?.content ?? null;
    this.#checkOutput(live.article, content, { partial: false });
    const meta = runMeta(run, { content });
    if (meta) live.article.append(meta);
    this.#live = null;
  }
}
