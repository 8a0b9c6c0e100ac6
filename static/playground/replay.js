// @ts-check
/**
 * The debugger's replay: run a finished loop's user turns again on another profile or model,
 * answering its tool calls from the source's results, and show side by side where the two
 * runs' tool_use decisions diverge.
 *
 * Rule: the page does it with the doors every page uses: a new conversation (POST
 * /api/conversations/ with the source's settings, another profile and model), its mocks (PUT
 * …/mocks/: the source's answered calls as fixtures, then its own mocks), step mode switched on
 * for it, and the page opened with `?replay_of=<source id>`. There the user turns are sent one
 * loop at a time, each once the loop before is done; step mode answers from the fixtures and
 * stops where a call has none. The comparison is divergence.js's (pure), and so is each replayed
 * call's mark: run again on its MCP server, answered from the recording, or otherwise.
 * State for tests: [data-replay-view][data-state="off|loading|running|waiting|refused|done|failed"],
 * data-diverged, and each row's data-diverged and data-answers (the marks, in call order).
 * A turn it sent that comes back refused (the page's `refused` count: the server's error, or
 * held for a connection that never opened) is not sent again by itself: "refused", the reason
 * on the composer's error line.
 */

import { apiFetch } from "./api.js";
import { el, parts } from "./dom.js";
import { answersOf, compareLoops, fixturesOf, loopsOf } from "./divergence.js";
import { Modal, showError } from "./modal.js";

const STEP_PREFIX = "pg:step-mode";
// step-mode.js's key: the replay starts with step mode on

/** How a replayed call was answered, in words (divergence.js's answersOf marks). */
const ANSWERED = { rerun: "run again on its MCP server", recorded: "from the recording", other: "by hand or a mock" };

function callsText(calls, answers = []) {
  if (!calls) return "—";
  return calls.map((call, index) => `${call.name} ${JSON.stringify(call.input)}${answers[index] ? ` — ${ANSWERED[answers[index]]}` : ""}`).join("\n");
}

export class ReplayLauncher {
  #modal;
  #parts;
  #profiles;
  #source;

  /** `source()` is {conversation, messages} of this page. */
  constructor(dialog, { openers, profiles, urls, source }) {
    this.#modal = new Modal(dialog);
    this.#profiles = profiles;
    this.#source = source;
    this.urls = urls;
    this.#parts = parts(dialog, {
      form: "[data-replay-form]",
      profile: "[data-replay-profile]",
      model: "[data-replay-model]",
      models: "[data-replay-models]",
      error: "[data-replay-error]",
    });
    this.#parts.rerun = dialog.querySelector("[data-replay-rerun]"); // only with MCP servers
    this.#parts.profile.replaceChildren(...profiles.map((p) => el("option", { text: p.label, attrs: { value: p.name } })));
    this.#parts.profile.addEventListener("change", () => this.#fillModels(true));
    this.#parts.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#start();
    });
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
  }

  open(opener) {
    const { conversation } = this.#source();
    this.#parts.profile.value = conversation.profile;
    this.#fillModels(false);
    this.#parts.model.value = conversation.model;
    showError(this.#parts.error, "");
    this.#modal.open(opener);
  }

  #fillModels(pickFirst) {
    const profile = this.#profiles.find((p) => p.name === this.#parts.profile.value);
    const models = profile?.models ?? [];
    this.#parts.models.replaceChildren(...models.map((model) => el("option", { attrs: { value: model } })));
    if (pickFirst && models.length > 0) this.#parts.model.value = models[0];
  }

  async #start() {
    const { conversation, messages } = this.#source();
    const profile = this.#parts.profile.value;
    const model = this.#parts.model.value.trim();
    try {
      const { settings } = conversation;
      const title = `${conversation.title || "Untitled"} (replay on ${profile} · ${model})`.slice(0, 200);
      const created = await apiFetch(this.urls.api_conversations, { method: "POST", body: { ...settings, profile, model, title } });
      const mocks = [...fixturesOf(messages), ...(conversation.tool_mocks ?? [])];
      const url = `${this.urls.api_conversations}${encodeURIComponent(created.id)}/`;
      try {
        await apiFetch(`${url}mocks/`, { method: "PUT", body: { tool_mocks: mocks } });
        // MCP tools run again on their servers (every server on auto) instead of the fixtures:
        // the server's policy, which it holds each call to.
        if (this.#parts.rerun?.checked) await apiFetch(`${url}mcp-approval/`, { method: "POST", body: { server: "*", approval: "auto" } });
      } catch (error) {
        // A try that failed leaves no empty conversation behind.
        await apiFetch(url, { method: "DELETE" }).catch(() => {});
        throw error;
      }
      try {
        // The source's step settings (its limit, its pause), switched on.
        const own = JSON.parse(localStorage.getItem(`${STEP_PREFIX}:${conversation.id}`) ?? "{}") ?? {};
        localStorage.setItem(`${STEP_PREFIX}:${created.id}`, JSON.stringify({ limit: 10, pause: false, ...own, enabled: true, sent: 0 }));
      } catch {
        // no storage: switch step mode on by hand
      }
      window.location.assign(`${created.url}?replay_of=${encodeURIComponent(conversation.id)}`);
    } catch (error) {
      showError(this.#parts.error, { message: `${error.message}${error.field ? ` (${error.field})` : ""}`, field: error.field });
    }
  }
}

export class ReplayView {
  #root;
  #parts;
  #sourceId;
  #urls;
  #onSend;
  /** @type {{ conversation: any, messages: any[] } | null} */
  #source = null; // {conversation, messages}
  #sent = new Set(); // loop indexes sent from this page
  #refusals = 0; // the page's refusal count as last seen: a higher one is news
  /** @type {number | null} */
  #refusedLoop = null; // the loop whose turn was refused

  constructor(root, { sourceId, urls, onSend }) {
    this.#root = root;
    this.#sourceId = sourceId;
    this.#urls = urls;
    this.#onSend = onSend;
    this.#parts = parts(root, { link: "[data-replay-source-link]", status: "[data-replay-status]", table: "[data-replay-table]" });
  }

  get active() {
    return this.#sourceId !== null;
  }

  async load() {
    if (!this.active) return;
    this.#root.hidden = false;
    this.#root.dataset.state = "loading";
    try {
      const conversation = await apiFetch(`${this.#urls.api_conversations}${encodeURIComponent(this.#sourceId)}/`);
      this.#source = { conversation, messages: conversation.messages };
      this.#parts.link.textContent = conversation.title || "Untitled";
      this.#parts.link.href = conversation.url;
      this.#root.dataset.state = "running";
    } catch (error) {
      this.#parts.status.textContent = `Could not load the source conversation: ${error.message}`;
      this.#root.dataset.state = "failed";
    }
  }

  /** The page's state changed: send the next loop's user turn when due, redraw the view.
   * `canAct`: the page may send now, or hold the turn until the socket opens (held-send.js). */
  consider({ messages, running, canAct, pending, label = "", ranAgain = new Set(), refused = /** @type {{action: string, count: number} | null} */ (null) }) {
    const done = this.#source ? loopsOf(messages).length : 0;
    const count = refused?.count ?? 0;
    if (count > this.#refusals && refused?.action === "send" && this.#sent.has(done)) this.#refusedLoop = done;
    this.#refusals = count;
    if (!this.#source) return;
    const loops = loopsOf(this.#source.messages);
    const last = messages.at(-1);
    const idle = !running && canAct && pending === 0 && (last === undefined || last.role === "assistant");
    if (idle && done < loops.length && !this.#sent.has(done)) {
      this.#sent.add(done);
      this.#onSend(loops[done].content);
    }
    const refusedNow = !running && this.#refusedLoop === done ? done : null;
    this.#draw(messages, { finished: idle && done >= loops.length, waiting: !running && pending > 0, refused: refusedNow, label, ranAgain });
  }

  /** @param {any[]} messages @param {{finished: boolean, waiting: boolean, refused: number | null, label: string, ranAgain: Set<string>}} options */
  #draw(messages, { finished, waiting, refused, label, ranAgain }) {
    if (this.#source === null) return;
    const { conversation: source, messages: sourceMessages } = this.#source;
    const answers = answersOf(messages, { ranAgain, fixtures: fixturesOf(sourceMessages) });
    const compared = compareLoops(sourceMessages, messages, { answers });
    const sourceHead = `Source: ${source.profile} · ${source.model}`;
    const replayHead = label ? `Replay: ${label}` : "Replay";
    const head = el("tr", {}, el("th", { text: "" }), el("th", { text: sourceHead }), el("th", { text: replayHead }), el("th", { text: "Divergence" }));
    const rows = [head];
    compared.forEach((loop, index) => {
      rows.push(el("tr", { className: "replay-loop" }, el("th", { attrs: { colspan: "4", scope: "rowgroup" }, text: `Loop ${index + 1}: ${loop.user}` })));
      for (const step of loop.steps) {
        rows.push(
          el(
            "tr",
            { className: "replay-step", dataset: { diverged: String(step.diverged), step: String(step.index + 1), answers: step.answers.map((mark) => mark ?? "pending").join(" ") } },
            el("th", { attrs: { scope: "row" }, text: `step ${step.index + 1}` }),
            el("td", { dataset: { label: sourceHead } }, el("pre", { text: callsText(step.source) })),
            el("td", { dataset: { label: replayHead } }, el("pre", { text: callsText(step.replay, step.answers) })),
            el("td", { className: "replay-notes", dataset: { label: "Divergence" }, text: step.notes.join("\n") || "same" }),
          ),
        );
      }
      rows.push(
        el(
          "tr",
          { className: "replay-final", dataset: { diverged: String(loop.replayed && !loop.final.same) } },
          el("th", { attrs: { scope: "row" }, text: "final answer" }),
          el("td", { dataset: { label: sourceHead }, text: loop.final.source || "—" }),
          el("td", { dataset: { label: replayHead }, text: loop.final.replay || "—" }),
          el("td", { className: "replay-notes", dataset: { label: "Divergence" }, text: loop.replayed ? (loop.final.same ? "same" : "differs") : "not replayed yet" }),
        ),
      );
    });
    this.#parts.table.replaceChildren(...rows);
    const diverged = compared.some((loop) => loop.diverged || (loop.replayed && !loop.final.same));
    this.#root.dataset.diverged = String(diverged);
    this.#root.dataset.state = finished ? "done" : refused !== null ? "refused" : waiting ? "waiting" : "running";
    this.#parts.status.textContent = finished
      ? diverged
        ? "Done: the replay diverges from the source (marked rows)."
        : "Done: the replay made the same tool decisions."
      : refused !== null
        ? `Stopped: loop ${refused + 1}'s turn was refused (the reason is under the message box). Reload the page to send it again.`
        : waiting
          ? "Waiting on tool calls: step mode says why (no fixture or mock, or its limit)."
          : "Replaying…";
  }
}

/** The source id a replay page was opened with (`?replay_of=`), or null. */
export function replaySource() {
  const id = new URLSearchParams(window.location.search).get("replay_of");
  return id && /^[0-9a-f-]{36}$/i.test(id) ? id : null;
}

