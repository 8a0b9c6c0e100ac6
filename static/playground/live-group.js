// @ts-check
/**
 * The live group in the page's state: a run is a group of one to four columns (runs.groups on
 * the server), a send's of one, a compare's of two to four, and state.js folds every column's
 * frames the same way with these helpers.
 *
 * Rule: PURE (no DOM, no socket, no clock), like state.js. `state.live` is null or
 * {group, count, columns: [Column]} (group: the compare's id, null for a group of one), the
 * columns in the order their starts arrived; it is null again once every column has ended.
 */

import { formatMs } from "./format.js";

/**
 * @typedef {{id: string, index: number, lastSeq: number, profile: string, model: string,
 *   firstTokenMs: number | null, lastMs: number, chars: number, done: boolean,
 *   status: string | null, messageId: unknown, waiting: string | null}} Column
 *   (waiting: the profile while every slot of it is taken)
 * @typedef {{group: string | null, count: number, columns: Column[]}} Group
 */

/** Characters of answer in a run.events batch (text, thinking, tool input). */
export function deltaChars(events) {
  let chars = 0;
  for (const event of events) {
    const delta = event.type === "content_block_delta" ? event.data?.delta : null;
    if (!delta) continue;
    chars += (delta.text ?? delta.thinking ?? delta.partial_json ?? "").length;
  }
  return chars;
}

/** The live line of a column: first token and an estimated speed (~4 characters a token),
 * or the wait for a free slot of its profile.
 *
 * @param {{firstTokenMs: number | null, lastMs?: number, chars?: number, waiting?: string | null}} column
 * @returns {string}
 */
export function liveStats({ firstTokenMs, lastMs = 0, chars = 0, waiting = null }) {
  if (waiting) return `Waiting for a free slot on ${waiting}`;
  if (firstTokenMs === null) return "Waiting for the first token…";
  const span = (lastMs - firstTokenMs) / 1000;
  const rate = span > 0 ? ` · ≈${(chars / 4 / span).toFixed(1)} tok/s` : "";
  return `first token ${formatMs(firstTokenMs)}${rate} · streaming`;
}

/** Where a run.started's run sits: its group, column and the group's size (one when it
 * names no compare). */
export function placeOf(run) {
  const compare = run.compare;
  return compare ? { group: compare.group, index: compare.column, count: compare.columns } : { group: null, index: 0, count: 1 };
}

/** @returns {Column} */
export function newColumn(run, index) {
  return { id: run.id, index, lastSeq: 0, profile: run.profile, model: run.model, firstTokenMs: null, lastMs: 0, chars: 0, done: false, status: null, messageId: null, waiting: null };
}

/** The live group's column a frame's run is, if any. @returns {Column | null} */
export function columnOf(state, runId) {
  return state.live?.columns.find((column) => column.id === runId) ?? null;
}

/** The group with one column changed. @param {Group} group @returns {Group} */
export function withColumn(group, runId, change) {
  return { ...group, columns: group.columns.map((column) => (column.id === runId ? { ...column, ...change } : column)) };
}

/** A column's live numbers after a run.events batch (a replayed seq is not counted twice).
 * @param {Column} column */
export function foldEvents(column, events) {
  const fresh = events.filter((event) => event.seq > column.lastSeq);
  let { firstTokenMs, lastMs } = column;
  for (const event of fresh) {
    if (firstTokenMs === null && event.type === "content_block_delta") firstTokenMs = event.t;
    lastMs = event.t;
  }
  const lastSeq = Math.max(column.lastSeq, events.at(-1).seq);
  return { lastSeq, firstTokenMs, lastMs, chars: column.chars + deltaChars(fresh), waiting: null };
}

/** hello: each column to resume and the seq to resume it from: the live group's every column
 * (from the seq drawn, 0 for one not drawn), or, the group gone meanwhile, the columns this
 * page did not see end (the server replays their tail and run.finished).
 * @returns {{runId: string, afterSeq: number}[]} */
export function resumesOnHello(state, liveGroup) {
  if (liveGroup) return liveGroup.columns.map(({ run_id: runId }) => ({ runId, afterSeq: columnOf(state, runId)?.lastSeq ?? 0 }));
  return (state.live?.columns ?? []).filter((column) => !column.done).map((column) => ({ runId: column.id, afterSeq: column.lastSeq }));
}
