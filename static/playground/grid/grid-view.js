// @ts-check
/**
 * What the evaluation grid's page says about a cell, a column and pasted test cases.
 *
 * Rule: PURE (values in, strings and plain objects out; no DOM), so the node tier tests it.
 * The page (grid-page.js) puts every string here into the DOM through textContent.
 */

import { formatMs, usageText } from "../format.js";

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
 */

/** @typedef {{rows: {cells: GridCell[]}[]}} GridView */

/** Statuses a cell is still moving through: the page keeps polling while one is shown. */
export const LIVE_STATUSES = new Set(["queued", "running"]);

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
  return parts.join(" · ");
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
 * Whether anything on the grid is still running or waiting to (the page polls while so).
 * @param {GridView} grid
 * @returns {boolean}
 */
export function gridIsLive(grid) {
  return grid.rows.some((row) => row.cells.some((cell) => LIVE_STATUSES.has(cell.status)));
}
