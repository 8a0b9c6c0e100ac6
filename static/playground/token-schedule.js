// @ts-check
/**
 * When to ask for the next request's token count: after the person stops typing for a moment,
 * once per change, and only the newest answer shown.
 *
 * Rule: pure (no DOM, no fetch): `count(input)` is the asking, `onState` the telling, `timers`
 * the clock, all passed in, so node tests drive it with a clock of their own. A change (a new
 * `key`) cancels the wait for the last one; an answer that arrives after a newer change is
 * dropped, so a slow reply never overwrites a newer count. Asking never blocks the caller.
 */

export const COUNT_DELAY_MS = 400;

// Called as plain functions: a browser's setTimeout refuses another `this` (Illegal invocation).
const REAL_TIMERS = { set: (fn, ms) => setTimeout(fn, ms), clear: (id) => clearTimeout(id) };

export class TokenSchedule {
  #count;
  #onState;
  #delay;
  #timers;
  /** @type {unknown} the pending timer's handle, from `timers.set` */
  #timer = null;
  #seq = 0;
  #key = null;

  /** count(input) -> Promise<answer>; onState({state, answer?, error?}) with state
   * "waiting" (a change, not asked yet), "counting", "ready", "error", "idle". */
  constructor({ count, onState, delay = COUNT_DELAY_MS, timers = REAL_TIMERS }) {
    this.#count = count;
    this.#onState = onState;
    this.#delay = delay;
    this.#timers = timers;
  }

  /** What would be counted now: `key` names it (the same key again asks nothing). */
  want(key, input) {
    if (key === this.#key) return;
    this.#key = key;
    this.#stopWaiting();
    const seq = ++this.#seq;
    this.#onState({ state: "waiting" });
    this.#timer = this.#timers.set(() => {
      this.#timer = null;
      this.#ask(seq, input);
    }, this.#delay);
  }

  /** Nothing to count (an empty composer, a live run): forget the last key and any answer due. */
  clear() {
    // Already idle: nothing to tell (the page calls this on every redraw of a live run).
    if (this.#key === null && this.#timer === null) return;
    this.#stopWaiting();
    this.#seq += 1;
    this.#key = null;
    this.#onState({ state: "idle" });
  }

  #stopWaiting() {
    if (this.#timer !== null) this.#timers.clear(this.#timer);
    this.#timer = null;
  }

  async #ask(seq, input) {
    this.#onState({ state: "counting" });
    let outcome;
    try {
      outcome = { state: "ready", answer: await this.#count(input) };
    } catch (error) {
      outcome = { state: "error", error };
    }
    if (seq === this.#seq) this.#onState(outcome);
  }
}

/** The words shown for a count answer ({input_tokens, estimated, method, note}). */
export function countText(answer) {
  const n = Number(answer.input_tokens).toLocaleString("en-US");
  const unit = answer.input_tokens === 1 ? "input token" : "input tokens";
  return answer.estimated ? `≈ ${n} ${unit}, estimated` : `${n} ${unit}`;
}
