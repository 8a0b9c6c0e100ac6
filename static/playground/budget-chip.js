// @ts-check
/**
 * The budget chip: what the person's tightest limit has left ("1,200 tokens left today"), in the
 * conversation's top bar beside its cost and on a grid's bar, every limit in its title.
 *
 * Rule: the page draws it from its payload (`budget_limits`, tightest first: usage.budgets's
 * limits_left) and asks again (`urls.usage_limits`) after runs end: one request at a time, and one
 * more when asked meanwhile, so a burst of ends (a compare's columns, a grid's cells) is one or two
 * requests. A person with no limit when the page was drawn has no chip and no requests.
 * State for tests: [data-budget-left] hidden or not, its data-out="true" once a limit has nothing
 * left.
 */

import { apiFetch } from "./api.js";

/**
 * @typedef {{ id: number, text: string, left: string, left_text: string, fraction_left: number, resets_at: string }} LimitLeft
 */

export class BudgetChip {
  #chip;
  #url;
  /** @type {LimitLeft[]} */
  #limits = [];
  #busy = false;
  #again = false;

  /**
   * @param {HTMLElement} chip
   * @param {{ url: string, limits?: LimitLeft[] }} options
   */
  constructor(chip, { url, limits = [] }) {
    this.#chip = chip;
    this.#url = url;
    this.show(limits);
  }

  /** @param {LimitLeft[]} limits */
  show(limits) {
    this.#limits = limits;
    const chip = this.#chip;
    const [tightest] = limits;
    chip.hidden = tightest === undefined;
    if (tightest === undefined) {
      chip.textContent = "";
      return;
    }
    chip.textContent = tightest.left_text;
    chip.dataset.out = String(tightest.fraction_left <= 0);
    chip.title = limits.map((limit) => `${limit.text}: ${limit.left} left, resets ${limit.resets_at.slice(0, 16).replace("T", " ")} UTC`).join("\n");
  }

  /** Ask the server what is left now (after a run ended); what was shown stays on a failure. */
  async refresh() {
    if (this.#limits.length === 0) return;
    if (this.#busy) {
      this.#again = true;
      return;
    }
    this.#busy = true;
    try {
      do {
        this.#again = false;
        const answer = await apiFetch(this.#url);
        this.show(Array.isArray(answer?.limits) ? answer.limits : []);
      } while (this.#again);
    } catch {
      // The chip says what it said; the next run's end asks again.
    } finally {
      this.#busy = false;
    }
  }
}
