// @ts-check
/**
 * What the grid's page says of a cell's tool loop and repeats, and of a column's (docs/grids.md,
 * "Tool-loop rows and repeats"), and the grid's options read from their form.
 *
 * Rule: PURE (values in, strings and plain objects out; no DOM), so the node tier tests it.
 * The page (grid-page.js) puts every string here into the DOM through textContent.
 */

import { formatMs } from "../format.js";

/**
 * One tool call of a cell's trajectory (``grids/tool_loop.py``).
 * What its MCP server asked meanwhile (``mcp/questions.py``, ``unattended_respondent``).
 * @typedef {{kind: string, run?: {id?: string, profile?: string, model?: string}, refused?: string, action?: string}} Asked
 * @typedef {{turn: number, name: string, input: unknown, result: unknown, is_error?: boolean, source: "mock" | "mcp" | "hand" | null, note?: string, asked?: Asked[]}} LoopCall
 */

/**
 * @typedef {{min: number, median: number, max: number}} Spread
 * @typedef {{asked: number, done: number, passed: number, unstable: boolean, latency_ms: Spread | null, output_tokens: Spread | null}} Repeats
 * @typedef {{tool_loop: boolean, mcp: boolean, max_turns: number, repeats: number, sampling_profile: string, sampling_model: string}} GridOptions
 */

/** @type {Record<string, string>} */
const ENDS = {
  answered: "answered",
  needs_result: "needs a result",
  turn_cap: "stopped at the turn cap",
  not_started: "next turn could not start",
  budget: "stopped by the budget",
};

/** @param {unknown} value */
function brief(value, chars = 80) {
  const text = typeof value === "string" ? value : JSON.stringify(value ?? null);
  return text.length > chars ? `${text.slice(0, chars)}…` : text;
}

/**
 * "3 turns · answered" (null when the cell ran no loop).
 * @param {{turns?: number | null, loop_end?: string | null}} cell
 * @returns {string | null}
 */
export function loopLine(cell) {
  if (!cell.loop_end) return null;
  const turns = cell.turns === 1 ? "1 turn" : `${cell.turns} turns`;
  return `${turns} · ${ENDS[cell.loop_end] ?? cell.loop_end}`;
}

/**
 * Each call as a line: "1. get_weather {"city":"Lyon"} → Sunny (mock)"; a call nothing
 * answered says so.
 * @param {LoopCall[] | null | undefined} calls
 * @returns {{source: string, text: string}[]}
 */
export function trajectoryLines(calls) {
  return (calls ?? []).map((call) => {
    const head = `${call.turn}. ${call.name} ${brief(call.input, 60)}`;
    const asked = (call.asked ?? []).map(askedText).join("");
    if (call.source === null) return { source: "none", text: `${head} → no result${call.note ? ` (${call.note})` : ""}${asked}` };
    const error = call.is_error ? " is_error" : "";
    return { source: call.source, text: `${head} → ${brief(call.result)} (${call.source}${error})${asked}` };
  });
}

/**
 * " · sampling answered on simulator/simulator-1 (run 1a2b…)", " · sampling refused: …",
 * " · elicitation declined".
 * @param {Asked} asked
 */
function askedText(asked) {
  if (asked.kind === "elicitation") return ` · elicitation ${asked.action === "decline" || !asked.action ? "declined" : asked.action}`;
  if (asked.refused) return ` · sampling refused: ${brief(asked.refused, 100)}`;
  const run = asked.run ?? {};
  return ` · sampling answered on ${run.profile ?? "?"}/${run.model ?? "?"} (run ${String(run.id ?? "").slice(0, 8)})`;
}

/** @param {Spread | null | undefined} spread @param {(n: number) => string} shown */
function spreadText(spread, shown) {
  if (!spread) return null;
  return `${shown(spread.min)} / ${shown(spread.median)} / ${shown(spread.max)}`;
}

/**
 * "2/3 passed · unstable · latency 1.10 s / 1.20 s / 2.00 s · out 40 / 52 / 60 tok
 * (min / median / max)" (null for a cell run once).
 * @param {Repeats | null | undefined} repeats
 * @returns {string | null}
 */
export function repeatsLine(repeats) {
  if (!repeats) return null;
  const parts = [`${repeats.passed}/${repeats.asked} passed`];
  if (repeats.done < repeats.asked) parts.push(`${repeats.done} of ${repeats.asked} ran`);
  if (repeats.unstable) parts.push("unstable");
  const latency = spreadText(repeats.latency_ms, (ms) => formatMs(ms) ?? "—");
  if (latency) parts.push(`latency ${latency}`);
  const tokens = spreadText(repeats.output_tokens, String);
  if (tokens) parts.push(`out ${tokens} tok`);
  return `${parts.join(" · ")}${latency || tokens ? " (min / median / max)" : ""}`;
}

/**
 * A column's loops and repeats in words: "1 needs a result · unstable rows #2, #5" ("" when
 * neither).
 * @param {{needs_result?: number, unstable?: number[]} | null | undefined} summary
 * @returns {string}
 */
export function loopSummaryLine(summary) {
  const parts = [];
  if (summary?.needs_result) parts.push(`${summary.needs_result} need${summary.needs_result === 1 ? "s" : ""} a result`);
  const unstable = summary?.unstable ?? [];
  if (unstable.length) parts.push(`unstable rows ${unstable.map((position) => `#${position + 1}`).join(", ")}`);
  return parts.join(" · ");
}

/**
 * The options form's values as the grid's JSON takes them (numbers clamped to their bounds).
 * @param {{toolLoop: boolean, mcp: boolean, maxTurns: string, repeats: string, samplingProfile?: string, samplingModel?: string}} fields
 * @returns {GridOptions}
 */
export function optionsFrom(fields) {
  const whole = (/** @type {string} */ text, /** @type {number} */ low, /** @type {number} */ high, /** @type {number} */ fallback) => {
    const value = Number.parseInt(text, 10);
    return Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : fallback;
  };
  return {
    tool_loop: fields.toolLoop,
    mcp: fields.mcp,
    max_turns: whole(fields.maxTurns, 1, 20, 5),
    repeats: whole(fields.repeats, 1, 10, 1),
    sampling_profile: (fields.samplingProfile ?? "").trim(),
    sampling_model: (fields.samplingModel ?? "").trim(),
  };
}

/**
 * "tool loop (mock answers, MCP tools) · up to 5 turns · 3 repeats" ("one answer, once").
 * @param {GridOptions | null | undefined} options
 * @returns {string}
 */
export function optionsLine(options) {
  if (!options) return "";
  const parts = [];
  if (options.tool_loop) {
    parts.push(`tool loop (saved mocks${options.mcp ? ", MCP tools" : ""})`);
    parts.push(`up to ${options.max_turns} turns`);
    if (options.mcp && options.sampling_profile) parts.push(`MCP sampling on ${options.sampling_profile}${options.sampling_model ? `/${options.sampling_model}` : ""}`);
  } else parts.push("one answer");
  parts.push(options.repeats > 1 ? `${options.repeats} repeats` : "once");
  return parts.join(" · ");
}
