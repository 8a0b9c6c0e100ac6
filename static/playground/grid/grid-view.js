// @ts-check
/**
 * What the evaluation grid's page says about a cell, a column and pasted test cases.
 *
 * Rule: PURE (values in, strings and plain objects out; no DOM), so the node tier tests it.
 * The page (grid-page.js) puts every string here into the DOM through textContent.
 */

import { costText, formatMs, moneyText, usageText } from "../format.js";

/**
 * A cell's schema check, as the grid JSON has it (``grids/grid_json.py``).
 * @typedef {{fits: boolean, problems: {path: string, message: string}[]}} SchemaCheck
 */

/**
 * A cell as the grid JSON has it (the fields this module reads).
 * @typedef {object} GridCell
 * @property {string} status
 * @property {number | null} [ttft_ms]
 * @property {number | null} [duration_ms]
 * @property {number | null} [tokens_per_s]
 * @property {Record<string, number> | null} [usage]
 * @property {SchemaCheck | null} [schema]
 * @property {Score[]} [scores]
 * @property {boolean | null} [passed]
 * @property {{amount: string | null, currency?: string | null} | null} [cost]
 */

/**
 * One scorer's verdict on a cell's answer (``grids/scoring.py``).
 * @typedef {{scorer: string, name: string, kind: string, passed: boolean | null, score: number | null, reason: string}} Score
 */

/**
 * A column's summary (``grid_json.column_summaries``).
 * @typedef {object} ColumnSummary
 * @property {number} cells
 * @property {number} done
 * @property {number | null} [pass_rate]
 * @property {number | null} [median_ms]
 * @property {number} input_tokens
 * @property {number} output_tokens
 * @property {number} good
 * @property {number} bad
 * @property {Record<string, {name: string, position?: number, judged: number, passed: number, pass_rate: number | null}>} [scorers]
 * @property {{amount: string | null, currency: string | null, unpriced: number}} [cost]
 */

/** @typedef {{rows: {cells: GridCell[]}[], running?: boolean}} GridView */

/**
 * Statuses a cell is still moving through: the page keeps polling while one is shown
 * ("scoring": a tool loop gone on by hand, its turn ended, scored from the whole loop next).
 */
export const LIVE_STATUSES = new Set(["queued", "running", "scoring"]);

/** @type {Record<string, string>} */
const STATUS_WORDS = {
  not_run: "not run",
  queued: "queued",
  running: "running",
  complete: "complete",
  stopped: "stopped",
  failed: "failed",
  truncated: "truncated",
  interrupted: "interrupted",
  not_started: "could not start",
  needs_result: "needs a result",
  scoring: "scoring…",
};

/**
 * @param {string | null | undefined} status
 * @returns {string}
 */
export function statusWord(status) {
  if (status === null || status === undefined) return "";
  return STATUS_WORDS[status] ?? String(status);
}

/**
 * "TTFT 120 ms · 1.5 s · 45 tok/s · in 12 · out 80" ("" before the cell ran).
 * @param {GridCell} cell
 * @returns {string}
 */
export function metricsLine(cell) {
  const parts = [];
  const first = formatMs(cell.ttft_ms);
  if (first) parts.push(`TTFT ${first}`);
  const whole = formatMs(cell.duration_ms);
  if (whole) parts.push(whole);
  if (Number.isFinite(cell.tokens_per_s)) parts.push(`${cell.tokens_per_s} tok/s`);
  const usage = usageText(cell.usage);
  if (usage) parts.push(usage);
  const cost = costText(cell.cost);
  if (cost) parts.push(cost);
  return parts.join(" · ");
}

/**
 * A cell's verdict in a word: "passed", "failed", "judging…" ("" before it has an answer).
 * @param {GridCell} cell
 * @returns {string}
 */
export function verdictWord(cell) {
  if (cell.passed === true) return "passed";
  if (cell.passed === false) return "failed";
  return (cell.scores ?? []).some((score) => score.passed === null) ? "judging…" : "";
}

/**
 * Each scorer's verdict as a line: "✓ Contains: contains 'Paris'", "✗ Judge 0.4: …",
 * "… Judge: judging…".
 * @param {Score[] | null | undefined} scores
 * @returns {{passed: boolean | null, text: string}[]}
 */
export function scoreLines(scores) {
  return (scores ?? []).map((score) => {
    const mark = score.passed === true ? "✓" : score.passed === false ? "✗" : "…";
    const value = typeof score.score === "number" ? ` ${Number(score.score.toFixed(2))}` : "";
    return { passed: score.passed, text: `${mark} ${score.name}${value}: ${score.reason}` };
  });
}

/**
 * An object keyed by scorer id, in the scorers' order (each value's ``position``): parsed JSON
 * does not keep it, since JavaScript puts keys that read as integers (an id such as
 * "12345678") before the others.
 * @template {{position?: number}} T
 * @param {Record<string, T> | null | undefined} byScorer
 * @returns {T[]}
 */
export function inScorersOrder(byScorer) {
  return Object.values(byScorer ?? {}).sort((a, b) => (a.position ?? 0) - (b.position ?? 0));
}

/**
 * A column's pass rate per scorer: "Contains 100% · Judge 50% (1 judging)".
 * @param {ColumnSummary | null | undefined} summary
 * @returns {string}
 */
export function scorerRatesLine(summary) {
  const rates = inScorersOrder(summary?.scorers);
  return rates
    .map((rate) => (rate.pass_rate === null ? `${rate.name} —` : `${rate.name} ${Math.round(rate.pass_rate * 100)}%`))
    .join(" · ");
}

/**
 * The schema check in words: null when none was asked; else {fits, text}.
 * @param {SchemaCheck | null | undefined} schema
 * @returns {{fits: boolean, text: string} | null}
 */
export function schemaLine(schema) {
  if (!schema) return null;
  if (schema.fits) return { fits: true, text: "schema: fits" };
  const named = schema.problems.map((problem) => `${problem.path} ${problem.message}`);
  return { fits: false, text: `schema: ${schema.problems.length} failed: ${named.join("; ")}` };
}

/**
 * A column's summary in words.
 * @param {ColumnSummary | null | undefined} summary
 * @returns {string}
 */
export function summaryLine(summary) {
  if (!summary) return "";
  const parts = [`${summary.done}/${summary.cells} done`];
  if (summary.pass_rate !== null && summary.pass_rate !== undefined) {
    parts.push(`pass ${Math.round(summary.pass_rate * 100)}%`);
  }
  const median = formatMs(summary.median_ms);
  if (median) parts.push(`median ${median}`);
  if (summary.output_tokens || summary.input_tokens) {
    parts.push(`in ${summary.input_tokens} · out ${summary.output_tokens} tok`);
  }
  if (summary.good || summary.bad) parts.push(`good ${summary.good} · bad ${summary.bad}`);
  const cost = summary.cost;
  if (cost && (cost.amount !== null || cost.unpriced)) {
    const money = cost.amount !== null ? moneyText(cost.amount, cost.currency) : null;
    if (money && cost.unpriced) parts.push(`${money} + ${cost.unpriced} with no price set`);
    else parts.push(money ?? "no price set");
  }
  return parts.join(" · ");
}

/**
 * A column's changes in a line: "model claude-x · system changed · temperature 0.2".
 * @param {Record<string, unknown> | null | undefined} changes
 * @returns {string}
 */
export function changesLine(changes) {
  const parts = [];
  for (const [name, value] of Object.entries(changes ?? {})) {
    if (name === "system") parts.push("system prompt changed");
    else parts.push(`${name} ${typeof value === "string" ? value : JSON.stringify(value)}`);
  }
  return parts.length ? parts.join(" · ") : "the conversation's settings";
}

/** Pasted test cases as the create endpoint's rows field: JSON Lines when the first line that
 * is not blank opens an object, else CSV (a header row of variable names).
 * @param {string | null | undefined} text
 * @returns {{jsonl: string} | {csv: string} | null}
 */
export function pastedRows(text) {
  const source = String(text ?? "");
  const first = source.split(/\r?\n/).find((line) => line.trim() !== "");
  if (first === undefined) return null;
  return first.trim().startsWith("{") ? { jsonl: source } : { csv: source };
}

/** A column's settings from its form fields: blank fields change nothing; numbers are read as
 * numbers (the server names a bad one by its field).
 * @param {Record<string, unknown>} fields
 * @returns {Record<string, string | number>}
 */
export function columnChanges(fields) {
  /** @type {Record<string, string | number>} */
  const changes = {};
  for (const name of ["profile", "model", "system"]) {
    const value = String(fields[name] ?? "");
    if (value.trim() !== "") changes[name] = value;
  }
  for (const name of ["temperature", "max_tokens"]) {
    const value = String(fields[name] ?? "").trim();
    if (value !== "") changes[name] = Number(value);
  }
  return changes;
}

/**
 * Whether anything on the grid is still running or waiting to, or a judge is still answering
 * (the page polls while so).
 * @param {GridView} grid
 * @returns {boolean}
 */
export function gridIsLive(grid) {
  // The grid's job still going on (a cell between two turns of its loop) is live; so is a
  // judge still answering: its verdict comes without a run of the cell.
  if (grid.running === true) return true;
  return grid.rows.some((row) => row.cells.some((cell) => LIVE_STATUSES.has(cell.status) || (cell.scores ?? []).some((score) => score.passed === null)));
}

/** A new scorer of each kind, as the scorers' editor adds it (the server checks every field). */
export const SCORER_TEMPLATES = {
  contains: { kind: "contains", value: "{{expected}}", ignore_case: true },
  equals: { kind: "equals", value: "{{expected}}" },
  not_contains: { kind: "not_contains", value: "As an AI" },
  contains_all: { kind: "contains_all", values: ["first", "second"] },
  contains_any: { kind: "contains_any", values: ["one", "other"] },
  starts_with: { kind: "starts_with", value: "Yes" },
  regex: { kind: "regex", pattern: "\\d+" },
  is_json: { kind: "is_json" },
  contains_json: { kind: "contains_json" },
  fits_schema: { kind: "fits_schema" },
  json_pointer: { kind: "json_pointer", pointer: "/answer", op: "equals", value: "{{expected}}" },
  tool_called: { kind: "tool_called", tool: "get_weather" },
  tool_input: { kind: "tool_input", tool: "get_weather", subset: { city: "{{city}}" } },
  tool_sequence: { kind: "tool_sequence", tools: ["search", "fetch"], order: "in_order" },
  max_turns: { kind: "max_turns", turns: 4 },
  cost_max: { kind: "cost_max", max: 0.01 },
  ttft_max: { kind: "ttft_max", max_ms: 2000 },
  duration_max: { kind: "duration_max", max_ms: 20000 },
  output_tokens_max: { kind: "output_tokens_max", max: 500 },
  stop_reason_in: { kind: "stop_reason_in", reasons: ["end_turn"] },
  judge: { kind: "judge", rubric: "The answer mentions '{{topic}}' and is kind.", threshold: 0.7 },
};

/**
 * The scorers' editor text with one more scorer of ``kind`` (the text as it was when it is
 * not a JSON list: the person's edit is never thrown away).
 * @param {string} text
 * @param {string} kind
 * @returns {string}
 */
export function withScorer(text, kind) {
  /** @type {Record<string, object>} */
  const templates = SCORER_TEMPLATES;
  let list;
  try {
    list = text.trim() ? JSON.parse(text) : [];
  } catch {
    return text;
  }
  if (!Array.isArray(list) || !templates[kind]) return text;
  return JSON.stringify([...list, templates[kind]], null, 2);
}
