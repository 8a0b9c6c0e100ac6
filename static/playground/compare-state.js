// @ts-check
/**
 * A compare's columns in the page's state: the fold of their frames, which state.js's reducer
 * calls (a compare is a run of two to four columns, runs.groups on the server).
 *
 * Rule: PURE (no DOM, no socket, no clock), like state.js. `state.compare` is null or
 * {group, count, columns: [{runId, index, lastSeq, firstTokenMs, lastMs, chars, done, status,
 * messageId, waiting}]} (waiting: the profile while every slot of it is taken), the columns in the order their starts arrived; `state.compareSent` the columns'
 * settings as last sent, for their headers. Each function takes the page's state and a frame and
 * returns {state, effects} as the reducer's steps do; compare.js only draws what they say.
 */

import { formatMs } from "./format.js";

/** @typedef {{do: string, [field: string]: unknown}} Effect */

/** @param {any} state @param {...Effect} effects */
const done = (state, ...effects) => ({ state, effects });

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

/** A compare's columns are streaming. */
export function compareLive(state) {
  return Boolean(state.compare?.columns.some((column) => !column.done));
}

/** The compare column a frame's run is, if any. */
export function columnOf(state, runId) {
  return state.compare?.columns.find((column) => column.runId === runId) ?? null;
}

/** Whether a frame is a compare's: a run.started naming a compare, or a frame of a column's run. */
export function isCompareFrame(state, frame) {
  if (frame.type === "run.started") return Boolean(frame.run?.compare);
  return typeof frame.run_id === "string" && columnOf(state, frame.run_id) !== null;
}

const withColumn = (state, runId, change) => ({
  ...state,
  compare: {
    ...state.compare,
    columns: state.compare.columns.map((column) => (column.runId === runId ? { ...column, ...change } : column)),
  },
});

/** hello: resume each column of a live compare (or, gone meanwhile, the unfinished ones). */
export function compareResumes(state, frame) {
  const resume = (runId, afterSeq) => ({ do: "socket", action: { action: "resume", run_id: runId, after_seq: afterSeq } });
  const active = frame.live_group?.group ? frame.live_group : null;
  if (active) return active.columns.map(({ run_id: runId }) => resume(runId, columnOf(state, runId)?.lastSeq ?? 0));
  return (state.compare?.columns ?? []).filter((column) => !column.done).map((column) => resume(column.runId, column.lastSeq));
}

function started(state, frame) {
  const { run } = frame;
  const { compare } = run;
  const fresh = state.compare?.group !== compare.group;
  const current = fresh ? { group: compare.group, count: compare.columns, columns: [] } : state.compare;
  /** @type {Effect[]} */
  const effects = [];
  let next = state;
  if (!current.columns.some((column) => column.runId === run.id)) {
    const column = { runId: run.id, index: compare.column, lastSeq: 0, firstTokenMs: null, lastMs: 0, chars: 0, done: false, status: null, messageId: null, waiting: null };
    next = { ...state, compare: { ...current, columns: [...current.columns, column] } };
    effects.push({ do: "compareColumn", run, index: compare.column, count: compare.columns, fresh, sent: state.compareSent[compare.column] ?? null });
  }
  // The user's turn is told once, with the first column: drawn above the columns.
  if (frame.user_message) effects.push({ do: "composerSent" }, { do: "reload" });
  return done(next, ...effects, { do: "controls" });
}

function events(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || frame.events.length === 0) return done(state, { do: "controls" });
  const freshEvents = frame.events.filter((event) => event.seq > column.lastSeq);
  let { firstTokenMs, lastMs } = column;
  for (const event of freshEvents) {
    if (firstTokenMs === null && event.type === "content_block_delta") firstTokenMs = event.t;
    lastMs = event.t;
  }
  const lastSeq = Math.max(column.lastSeq, frame.events.at(-1).seq);
  const next = withColumn(state, column.runId, { lastSeq, firstTokenMs, lastMs, chars: column.chars + deltaChars(freshEvents), waiting: null });
  return done(next, { do: "compareEvents", runId: column.runId, events: frame.events }, { do: "controls" });
}

function finished(state, frame) {
  const next = withColumn(state, frame.run_id, { done: true, status: frame.status, messageId: frame.message?.id ?? null });
  /** @type {Effect[]} */
  const effects = [{ do: "compareFinished", frame }];
  // Every column ended: the conversation is read again and each answer offered to keep.
  if (!compareLive(next)) effects.push({ do: "compareDone" });
  return done(next, ...effects, { do: "controls" });
}

/** run.waiting: every slot of the column's profile is taken (its live line says so), or no more. */
function waiting(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || column.lastSeq > 0) return done(state, { do: "controls" });
  const next = withColumn(state, column.runId, { waiting: frame.waiting ? String(frame.profile ?? "") : null });
  return done(next, { do: "compareEvents", runId: column.runId, events: [] }, { do: "controls" });
}

/** A compare's frame (isCompareFrame), folded; frames a column does not act on change nothing. */
export function onCompareFrame(state, frame) {
  if (frame.type === "run.started") return started(state, frame);
  if (frame.type === "run.waiting") return waiting(state, frame);
  if (frame.type === "run.events") return events(state, frame);
  if (frame.type === "run.finished") return finished(state, frame);
  return done(state, { do: "controls" });
}
