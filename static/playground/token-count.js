// @ts-check
/**
 * The composer's "N input tokens": the next request counted by the server (POST
 * …/token-count/ with the turn about to be sent; the server asks the upstream with the
 * profile's key, or estimates), shown beside the composer while the person types.
 *
 * Rule: counting never blocks typing or sending: the schedule (token-schedule.js) asks after a
 * pause, once per change, and keeps only the newest answer; an error is shown quietly (a muted
 * word, its message in the title), never in the composer's error line. State for tests and
 * CSS: [data-token-count][data-token-state="idle|waiting|counting|ready|error"].
 */

import { apiFetch } from "./api.js";
import { canContinue } from "./state.js";
import { countText, TokenSchedule } from "./token-schedule.js";

/** The turn the next send would add: the tool results due, the composer's text (and its
 * prefill), or going on with the answer that ends the conversation (Continue); {} for none. */
export function nextTurn({ toolResults, composer, state }) {
  if (toolResults.pending) return toolResults.collect();
  if (composer.content.length) {
    return composer.prefill ? { content: composer.content, prefill: composer.prefill } : { content: composer.content };
  }
  return canContinue(state) ? { continuing: true } : {};
}

export class TokenCount {
  #el;
  #schedule;
  #last = null;

  #maxBytes;

  /** `el` is the composer's [data-token-count] (its data-url the endpoint); `maxBytes` the
   * server's frame limit: a turn over it is not sent to be counted (Send names the limit). */
  constructor(el, { maxBytes = Infinity } = {}) {
    this.#el = el;
    this.#maxBytes = maxBytes ?? Infinity;
    const url = el.dataset.url;
    this.#schedule = new TokenSchedule({
      count: (turn) => apiFetch(url, { method: "POST", body: turn }),
      onState: (update) => this.#show(update),
    });
  }

  /** What the page would send now; `running`: a run is live (nothing is counted then). */
  consider({ turn, running, state }) {
    // A send on its way counts as running: the server may have started its run already.
    if (running || state.pendingSend !== null || !Object.keys(turn).length || tooLarge(turn, this.#maxBytes)) {
      this.#schedule.clear();
      return;
    }
    const { conversation, messages } = state;
    // What changes the request: the turn, the settings, the variables and the turns so far.
    const key = JSON.stringify([
      turn,
      conversation.profile,
      conversation.model,
      conversation.settings,
      conversation.variables,
      messages.length,
      messages.at(-1)?.id ?? null,
    ]);
    this.#schedule.want(key, turn);
  }

  #show({ state, answer, error }) {
    this.#el.dataset.tokenState = state;
    if (state === "idle") {
      this.#last = null;
      this.#el.hidden = true;
      this.#el.textContent = "";
      return;
    }
    this.#el.hidden = false;
    if (state === "ready" && answer.input_tokens === null) {
      // The next request cannot be built now (a missing variable…): said, not an error.
      this.#el.textContent = "tokens: not counted";
      this.#el.title = answer.note ?? "";
    } else if (state === "ready") {
      this.#last = answer;
      this.#el.textContent = countText(answer);
      this.#el.title = answer.note || (answer.estimated ? "A quarter of the characters: this upstream counts no tokens" : "Counted by the upstream");
    } else if (state === "error") {
      this.#el.textContent = this.#last ? `${countText(this.#last)} (not recounted)` : "tokens: not counted";
      this.#el.title = error?.message ?? "";
    } else if (!this.#last) {
      this.#el.textContent = "counting tokens…";
    }
  }
}

/** The turn's JSON is over the frame limit (in UTF-8 bytes, as the server measures it). */
function tooLarge(turn, maxBytes) {
  if (!Number.isFinite(maxBytes)) return false;
  return new TextEncoder().encode(JSON.stringify(turn)).length > maxBytes;
}
