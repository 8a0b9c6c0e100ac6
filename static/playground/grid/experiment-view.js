// @ts-check
/**
 * What the grid page says of its experiments, as plain values: the chart's points, a line per
 * experiment, an experiment against its baseline, a re-run's confirmation.
 *
 * Rule: pure (no DOM), so the Node tests read every word the page shows; the page
 * (experiments.js) only draws these.
 */

import { inScorersOrder } from "./grid-view.js";

/** @param {number | null | undefined} rate */
function percent(rate) {
  return rate === null || rate === undefined ? "—" : `${Math.round(rate * 100)}%`;
}

/** @param {number | null | undefined} delta */
function signedPoints(delta) {
  if (delta === null || delta === undefined) return "—";
  const points = Math.round(delta * 100);
  return `${points > 0 ? "+" : ""}${points} pts`;
}

/**
 * The chart of each column's pass rate over the experiments, oldest first: one polyline a
 * column in a `width` × `height` box (a rate of 1 at the top), an experiment without a rate
 * for the column left out.
 * @param {Array<{number: number, pass_rates: Array<number | null>}>} experiments newest first
 * @param {{width: number, height: number}} box
 * @returns {Array<Array<{x: number, y: number, number: number, rate: number}>>}
 */
export function chartLines(experiments, { width, height }) {
  const ordered = [...experiments].reverse();
  const columns = Math.max(0, ...ordered.map((experiment) => experiment.pass_rates.length));
  const step = ordered.length > 1 ? width / (ordered.length - 1) : 0;
  const lines = [];
  for (let column = 0; column < columns; column += 1) {
    const points = [];
    ordered.forEach((experiment, index) => {
      const rate = experiment.pass_rates[column];
      if (rate === null || rate === undefined) return;
      const x = ordered.length > 1 ? index * step : width / 2;
      points.push({ x: Math.round(x * 10) / 10, y: Math.round((1 - rate) * height * 10) / 10, number: experiment.number, rate });
    });
    lines.push(points);
  }
  return lines;
}

/**
 * An experiment in a line: its number and name, when, what it asked, its pass rate and cost.
 * @param {any} experiment one of GET …/experiments/
 */
export function experimentLine(experiment) {
  const totals = experiment.totals;
  const parts = [`#${experiment.number}`, experiment.name];
  if (experiment.status !== "finished") parts.push("running");
  else if (totals) {
    parts.push(`pass ${percent(totals.pass_rate)} (${totals.passed}/${totals.judged})`);
    parts.push(`${totals.ran} cell(s) run`);
    if (totals.cost !== null) parts.push(`${totals.cost} ${totals.currency ?? ""}`.trim());
    else if (totals.unpriced) parts.push("no price set");
  }
  return parts.join(" · ");
}

/**
 * An experiment against its baseline: the headline, then a line per column.
 * @param {any} compare the `compare` of GET …/experiments/<id>/?baseline=
 * @param {Array<{label: string}>} columns
 */
export function compareLines(compare, columns) {
  const against = compare.baseline_label ?? `#${compare.baseline}`;
  const head = `#${compare.experiment} against ${against}: ${compare.pass_to_fail} pass→fail, ${compare.fail_to_pass} fail→pass`;
  const lines = [compare.unmatched ? `${head} · ${compare.unmatched} cell(s) in one only` : head];
  for (const column of compare.columns) {
    const label = columns[column.column]?.label ?? `Column ${column.column + 1}`;
    const rate = column.pass_rate;
    const parts = [`${label}: pass ${percent(rate.before)} → ${percent(rate.after)} (${signedPoints(rate.delta)})`];
    for (const scorer of /** @type {Array<{name: string, delta: number | null}>} */ (inScorersOrder(column.scorers))) {
      parts.push(`${scorer.name} ${signedPoints(scorer.delta)}`);
    }
    if (column.cost.delta !== null) parts.push(`cost ${column.cost.delta.startsWith("-") ? "" : "+"}${column.cost.delta}`);
    if (column.median_ms.delta !== null) parts.push(`median ${column.median_ms.delta > 0 ? "+" : ""}${column.median_ms.delta} ms`);
    lines.push(parts.join(" · "));
  }
  return lines;
}

/** The word a cell's flip shows: "" for none. @param {string | null} flip */
export function flipWord(flip) {
  if (flip === "pass_to_fail") return "pass → fail";
  if (flip === "fail_to_pass") return "fail → pass";
  return "";
}

/**
 * What a re-run asks before it runs (null: nothing to ask, no cell of it has an answer yet).
 * Each cell runs ``repeats`` times; a tool loop may make up to ``max_calls``.
 * @param {{cells: number, judges: number, calls: number, answered: number, repeats?: number, max_calls?: number}} plan
 */
export function confirmText(plan) {
  if (!plan.answered) return null;
  const judges = plan.judges ? ` and ${plan.judges} judge call(s)` : "";
  const repeats = (plan.repeats ?? 1) > 1 ? ` × ${plan.repeats} repeats` : "";
  const loops = (plan.max_calls ?? plan.calls) > plan.calls ? `, up to ${plan.max_calls} with the tool loops' turns` : "";
  return `Run ${plan.cells} cell(s) again? This makes ${plan.calls} upstream call(s) (${plan.cells} answer(s)${repeats}${judges})${loops}; ${plan.answered} earlier answer(s) stay in their experiment.`;
}
