// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  formatMs
} from "./chunk-PODVIVX6.js";

// static/playground/live-group.js
function deltaChars(events) {
  let chars = 0;
  for (const event of events) {
    const delta = event.type === "content_block_delta" ? event.data?.delta : null;
    if (!delta) continue;
    chars += (delta.text ?? delta.thinking ?? delta.partial_json ?? "").length;
  }
  return chars;
}
function liveStats({ firstTokenMs, lastMs = 0, chars = 0, waiting = null }) {
  if (waiting) return `Waiting for a free slot on ${waiting}`;
  if (firstTokenMs === null) return "Waiting for the first token\u2026";
  const span = (lastMs - firstTokenMs) / 1e3;
  const rate = span > 0 ? ` \xB7 \u2248${(chars / 4 / span).toFixed(1)} tok/s` : "";
  return `first token ${formatMs(firstTokenMs)}${rate} \xB7 streaming`;
}
function placeOf(run) {
  const compare = run.compare;
  return compare ? { group: compare.group, index: compare.column, count: compare.columns } : { group: null, index: 0, count: 1 };
}
function newColumn(run, index) {
  return { id: run.id, index, lastSeq: 0, profile: run.profile, model: run.model, firstTokenMs: null, lastMs: 0, chars: 0, done: false, status: null, messageId: null, waiting: null };
}
function columnOf(state, runId) {
  return state.live?.columns.find((column) => column.id === runId) ?? null;
}
function withColumn(group, runId, change) {
  return { ...group, columns: group.columns.map((column) => column.id === runId ? { ...column, ...change } : column) };
}
function foldEvents(column, events) {
  const fresh = events.filter((event) => event.seq > column.lastSeq);
  let { firstTokenMs, lastMs } = column;
  for (const event of fresh) {
    if (firstTokenMs === null && event.type === "content_block_delta") firstTokenMs = event.t;
    lastMs = event.t;
  }
  const lastSeq = Math.max(column.lastSeq, events.at(-1).seq);
  return { lastSeq, firstTokenMs, lastMs, chars: column.chars + deltaChars(fresh), waiting: null };
}
function resumesOnHello(state, liveGroup) {
  if (liveGroup) return liveGroup.columns.map(({ run_id: runId }) => ({ runId, afterSeq: columnOf(state, runId)?.lastSeq ?? 0 }));
  return (state.live?.columns ?? []).filter((column) => !column.done).map((column) => ({ runId: column.id, afterSeq: column.lastSeq }));
}

export {
  deltaChars,
  liveStats,
  placeOf,
  newColumn,
  columnOf,
  withColumn,
  foldEvents,
  resumesOnHello
};
