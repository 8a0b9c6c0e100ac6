// @ts-check
/**
 * Step mode: walk a tool loop on the mocks. When calls are pending, fill their cards from the
 * mocks and send them through the page's own "Send results" (the socket's `tool_results`), until
 * a call has no mock, the iteration limit is reached, or the loop ends; optionally pause before
 * each send, with the results in the cards for the person to change.
 *
 * Rule: the page drives the loop, never the server: each step is one ordinary tool_results
 * send, so a step is stored, relayed and inspected like a typed one. The decision is
 * step-plan.js's (pure). A set of pending calls is acted on once. The switch, the limit, the
 * pause and the steps sent since it was switched on or resumed are kept per conversation in
 * localStorage (a storage failure only forgets them): a loop stopped at its limit is still
 * stopped after a reload, with Continue, instead of going on by itself.
 * State for tests: [data-step-mode][data-step-state="off|on|sending|paused|stopped|done"],
 * data-step-sent (the steps sent on its own since it was switched on or resumed) and
 * data-step-reason ("no_mock" | "limit" | "refused"). Results it sent that come back refused
 * (the server's error, or held for a connection that never opened: the page's `refused`
 * count) stop it, with Continue to send them again; the reason is the composer's error line.
 * MCP calls whose tool is on auto (mcp-tools.js) run first, concurrently (a parallel batch),
 * and count as answered when their result is in the card; a call on "ask" waits for a person
 * like one with no mock (data-step-state="running" while the auto calls run).
 */

import { announce, parts } from "./dom.js";
import { DEFAULT_LIMIT, limitProblem, planStep, readLimit, stepWords } from "./step-plan.js";

const PREFIX = "pg:step-mode";

function load(conversationId) {
  try {
    const value = JSON.parse(localStorage.getItem(`${PREFIX}:${conversationId}`) ?? "null");
    if (value && typeof value === "object") {
      const sent = Number.isInteger(value.sent) && value.sent > 0 ? value.sent : 0;
      return { enabled: value.enabled === true, limit: readLimit(value.limit), pause: value.pause === true, sent };
    }
  } catch {
    // unreadable: the defaults
  }
  return { enabled: false, limit: DEFAULT_LIMIT, pause: false, sent: 0 };
}

export class StepMode {
  #root;
  #parts;
  #key;
  #mocks;
  #toolResults;
  #sent = 0;
  #handled = null; // the ids of the pending calls last acted on
  #last = { calls: [], running: false, canAct: false, hasTools: true, refused: /** @type {{action: string, count: number} | null} */ (null) };
  #refusals = 0; // the page's refusal count as last seen: a higher one is news

  #mcp;
  #mcpKnown = false;

  constructor(root, { conversationId, mocks, toolResults, mcp = /** @type {import("./mcp-tools.js").McpTools | null} */ (null) }) {
    this.#root = root;
    this.#mcp = mcp;
    this.#key = `${PREFIX}:${conversationId}`;
    this.#mocks = mocks;
    this.#toolResults = toolResults;
    this.#parts = parts(root, {
      enabled: "[data-step-enabled]",
      limit: "[data-step-limit]",
      pause: "[data-step-pause]",
      resume: "[data-action='step-continue']",
      status: "[data-step-status]",
    });
    const saved = load(conversationId);
    this.#parts.enabled.checked = saved.enabled;
    this.#parts.limit.value = String(saved.limit);
    this.#parts.pause.checked = saved.pause;
    this.#sent = saved.sent;
    this.#parts.enabled.addEventListener("change", () => this.#restart());
    this.#parts.limit.addEventListener("change", () => this.#limitChanged());
    this.#parts.limit.addEventListener("input", () => this.#checkLimit());
    this.#parts.pause.addEventListener("change", () => this.#save());
    this.#parts.resume.addEventListener("click", () => this.#resume());
    this.#show(saved.enabled ? "on" : "off", "");
  }

  get #limit() {
    return readLimit(this.#parts.limit.value);
  }

  /** The typed limit's problem, shown on the field ("" when it is fine). */
  #checkLimit() {
    const problem = limitProblem(this.#parts.limit.value);
    if (problem) this.#parts.limit.setAttribute("aria-invalid", "true");
    else this.#parts.limit.removeAttribute("aria-invalid");
    this.#root.dataset.limitValid = String(!problem);
    return problem;
  }

  #limitChanged() {
    const problem = this.#checkLimit();
    if (problem) {
      this.#show("stopped", problem, "invalid_limit");
      return; // nothing saved, nothing sent
    }
    this.#save();
    if (this.#root.dataset.stepReason === "invalid_limit") {
      this.#handled = null;
      this.#show(this.#parts.enabled.checked ? "on" : "off", "");
      this.consider(this.#last);
    }
  }

  #save() {
    try {
      const value = { enabled: this.#parts.enabled.checked, limit: this.#limit, pause: this.#parts.pause.checked, sent: this.#sent };
      localStorage.setItem(this.#key, JSON.stringify(value));
    } catch {
      // storage refused: the settings last for this page only
    }
  }

  #restart() {
    this.#sent = 0;
    this.#save();
    this.#handled = null;
    this.#show(this.#parts.enabled.checked ? "on" : "off", "");
    this.consider(this.#last);
  }

  /** Whether step mode is on (mcp-tools.js leaves the calls on auto to it then). */
  get enabled() {
    return this.#parts.enabled.checked;
  }

  /** The page's state changed: act on newly pending calls (or the loop's end). Shown only
   * for a conversation with tools (or pending calls: an imported loop). `canAct`: the page may
   * send now, or hold the results until the socket opens (held-send.js's canAct). */
  consider({ calls, running, canAct, hasTools = true, refused = /** @type {{action: string, count: number} | null} */ (null) }) {
    this.#last = { calls, running, canAct, hasTools, refused };
    this.#root.hidden = !(hasTools || calls.length > 0);
    if (this.#wasRefused(refused)) return;
    if (!this.#parts.enabled.checked || running || !canAct) return;
    const problem = this.#checkLimit();
    if (problem) {
      this.#show("stopped", problem, "invalid_limit");
      return;
    }
    const key = calls.map((call) => call.id).join(" ");
    if (key === this.#handled) return;
    if (this.#mcp && calls.length && !this.#mcpKnown) {
      // Which calls run on their own is known once the servers' tools are: ask once, then look.
      this.#mcp.whenLoaded().then(() => {
        this.#mcpKnown = true;
        this.consider(this.#last);
      });
      return;
    }
    this.#handled = key;
    const mcp = this.#mcp;
    const auto = mcp?.split(calls).auto ?? [];
    if (mcp === null || auto.length === 0 || this.#sent >= this.#limit) {
      this.#decide(calls, []);
      return;
    }
    this.#show("running", `Step ${this.#sent + 1}: running ${auto.length} MCP call${auto.length > 1 ? "s" : ""}…`);
    Promise.all(auto.map((call) => mcp.run(call))).then((done) => {
      if (this.#handled !== key) return; // the page moved on meanwhile
      const ran = auto.filter((_, i) => done[i]);
      this.#decide(calls.filter((call) => !ran.includes(call)), ran);
    });
  }

  /** The results it is sending were refused (a new refusal of tool_results while it says
   * "sending"): stopped, the step not counted; Continue sends the cards again. */
  #wasRefused(refused) {
    const count = refused?.count ?? 0;
    const news = count > this.#refusals;
    this.#refusals = count;
    if (!news || refused?.action !== "tool_results" || this.#root.dataset.stepState !== "sending") return false;
    this.#sent = Math.max(0, this.#sent - 1);
    this.#save();
    this.#show("stopped", "Not sent: the results were refused (the reason is under the message box). Continue sends them again.", "refused");
    return true;
  }

  /** The move for the calls left once `ran` (MCP calls on auto) have their results. */
  #decide(calls, ran) {
    let move = planStep({ calls, mocks: this.#mocks.mocks, sent: this.#sent, limit: this.#limit, pause: this.#parts.pause.checked });
    if (move.do === "done" && ran.length > 0) {
      // Every call was run on an MCP server (the limit was checked before they ran).
      move = { do: this.#parts.pause.checked ? "pause" : "send", answered: [], missing: [] };
    }
    if (move.do === "done") {
      if (this.#sent > 0) this.#show("done", stepWords(move, { sent: this.#sent, limit: this.#limit }));
      // A stop or pause the person resolved by hand (the results sent, the loop ended): its
      // words would still name calls long answered.
      else if (["stopped", "paused"].includes(this.#root.dataset.stepState ?? "")) this.#show("done", "Done: no call is pending.");
      if (this.#sent > 0) {
        this.#sent = 0;
        this.#save();
      }
      return;
    }
    for (const { call, mock } of move.answered) this.#mocks.fill(call, mock, "step");
    // A call its MCP server runs once allowed is waiting on the person, not on a mock.
    const asking = new Set((this.#mcp?.split(move.missing ?? []).ask ?? []).map((call) => call.id));
    const words = stepWords(move, { sent: this.#sent, limit: this.#limit, asking });
    if (move.do === "send") {
      this.#show("sending", words);
      this.#send();
    } else {
      this.#show(move.do === "pause" ? "paused" : "stopped", words, move.reason);
    }
  }

  #send() {
    this.#sent += 1;
    this.#save(); // a reload goes on counting from here
    this.#root.dataset.stepSent = String(this.#sent);
    // After the page's current dispatch: a send is a new action, not part of this redraw.
    queueMicrotask(() => this.#toolResults.submit());
  }

  /** Continue: after a pause, or after a stop once the results are typed (a limit resumes). */
  #resume() {
    if (this.#root.dataset.stepReason === "limit") this.#sent = 0;
    if (!this.#toolResults.pending) return;
    this.#show("sending", `Step ${this.#sent + 1}: sending the results in the cards…`);
    this.#send();
  }

  #show(state, words, reason = "") {
    this.#root.dataset.stepState = state;
    this.#root.dataset.stepSent = String(this.#sent);
    if (reason) this.#root.dataset.stepReason = reason;
    else delete this.#root.dataset.stepReason;
    this.#parts.status.textContent = words;
    this.#parts.resume.hidden = !(state === "paused" || state === "stopped");
    if (words && state !== "sending") announce(words);
  }
}
