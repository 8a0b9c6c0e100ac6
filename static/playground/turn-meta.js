// @ts-check
/**
 * The footer of an assistant turn: how the run went (status, stop reason and its details,
 * usage, timings, model and upstream, flagged blocks and tolerated oddities, the error with its
 * type and request id).
 *
 * Rule: a pure function of a run's JSON ({status, stop_reason, usage, timings, error, model,
 * profile}) and the turn's content; the same footer for a stored turn and for a live one when
 * its run finishes. It says only what is known: a run cut short before the upstream's final
 * count shows an estimate of its output, marked as one, never "out 0" under a visible answer.
 */

import { el } from "./dom.js";
import { costText, formatMs, usageText } from "./format.js";

const STATUS_TEXT = {
  running: "Streaming",
  stopped: "Stopped",
  failed: "Failed",
  truncated: "Truncated",
  interrupted: "Interrupted",
};

/** The shortest generation a speed is given for: an answer that came in one burst (a buffering
 * proxy, the simulator at full speed: 196 tokens in 1 ms) has no speed worth reading, where
 * "196000.0 tok/s" was shown. */
export const MIN_RATE_SPAN_MS = 250;

/** Output tokens per second over the generation (first token to the end); null when it lasted
 * less than MIN_RATE_SPAN_MS. */
export function tokensPerSecond(run) {
  const output = run?.usage?.output_tokens;
  const { first_token_ms: first, duration_ms: duration } = run?.timings ?? {};
  if (typeof output !== "number" || typeof duration !== "number") return null;
  const span = duration - (typeof first === "number" ? first : 0);
  if (span < MIN_RATE_SPAN_MS || output <= 0) return null;
  return output / (span / 1000);
}

/** @returns {HTMLSpanElement | null} */
function item(label, value, key) {
  if (value === null || value === undefined || value === "") return null;
  return el(
    "span",
    { className: "meta-item", dataset: { meta: key } },
    el("span", { className: "meta-label", text: label }),
    el("span", { className: "meta-value", text: value }),
  );
}

function stopDetailsText(details) {
  if (!details || typeof details !== "object") return null;
  const head = [details.type, details.category ? `(${details.category})` : null].filter(Boolean);
  const text = head.join(" ");
  return details.explanation ? `${text}: ${details.explanation}` : text || null;
}

/** Block types whose cut-off end is what Stop means: no flag when the person stopped them
 * (a cut-off tool call or one with invalid JSON is flagged whatever the status). */
const STOPPABLE_BLOCKS = new Set(["text", "thinking", "redacted_thinking"]);

/** @param {Record<string, unknown>} [issues] @param {{ status?: string, content?: any[] | null }} [run] */
function flaggedText(issues = {}, { status, content = [] } = {}) {
  const names = { invalid_json: "invalid JSON", incomplete: "cut off" };
  const parts = Object.entries(issues ?? {})
    .filter(([index, issue]) => !(status === "stopped" && issue === "incomplete" && STOPPABLE_BLOCKS.has(content?.[index]?.type)))
    .map(([index, issue]) => `block ${index} ${names[issue] ?? issue}`);
  return parts.length ? parts.join(", ") : null;
}

/** Characters of answer a turn shows (text, thinking, tool input), for the estimate. */
function shownChars(content) {
  if (!Array.isArray(content)) return 0;
  let chars = 0;
  for (const block of content) {
    if (typeof block?.text === "string") chars += block.text.length;
    if (typeof block?.thinking === "string") chars += block.thinking.length;
    if (block?.type === "tool_use" || block?.type === "server_tool_use") chars += JSON.stringify(block.input ?? {}).length;
  }
  return chars;
}

/** The usage words: the upstream's counts, or (when it never sent the output count) an
 * estimate of ~4 characters a token, marked estimated. The share page's run line says the same. */
export function usageWords(run, content) {
  const usage = run.usage ?? {};
  const chars = shownChars(content);
  const reported = Number.isFinite(usage.output_tokens) ? usage.output_tokens : 0;
  const estimate = Math.max(1, Math.round(chars / 4));
  // message_start's count (0 or 1) is all a run cut short may have: far below what it shows.
  const uncounted = run.status !== "complete" && chars > 0 && estimate > reported * 1.5 + 4;
  if (!uncounted) return { text: usageText(run.usage), estimated: false };
  const known = Number.isFinite(usage.input_tokens) ? `in ${usage.input_tokens} · ` : "";
  return { text: `${known}out ≈${estimate} (estimated)`, estimated: true };
}

/** The usage item (usageWords), an estimate marked. */
function usageItem(run, content) {
  const { text, estimated } = usageWords(run, content);
  const node = item("usage", text, "usage");
  if (node === null || !estimated) return node;
  node.dataset.estimated = "true";
  node.title = "The run ended before the upstream sent its output count; estimated from the text shown";
  return node;
}

/** Whether the turn shows any answer at all (for what the footer may say about it). */
export function hasAnswer(content) {
  return shownChars(content) > 0;
}

/** The footer element for `run` (null when there is no run, e.g. a user turn); `content` is
 * the turn's blocks as shown. */
export function runMeta(run, { content = /** @type {any[] | null} */ (null) } = {}) {
  if (!run) return null;
  const footer = el("footer", { className: "turn-meta", dataset: { runId: run.id ?? "" } });
  const status = run.status ?? "complete";
  footer.dataset.status = status;
  if (status !== "complete") {
    footer.append(
      el("span", {
        className: `status-badge status-${status}`,
        text: STATUS_TEXT[status] ?? status,
        dataset: { runStatus: status },
      }),
    );
  }
  const rate = tokensPerSecond(run);
  const items = [
    item("stop", run.stop_reason, "stop-reason"),
    item("stop sequence", run.stop_sequence == null ? null : JSON.stringify(run.stop_sequence), "stop-sequence"),
    item("stop details", stopDetailsText(run.stop_details), "stop-details"),
    item("container", run.container?.id ?? null, "container"),
    item("flagged", flaggedText(run.block_issues, { status: run.status, content }), "flagged"),
    usageItem(run, content),
    item("cost", costText(run.cost), "cost"),
    item("first token", formatMs(run.timings?.first_token_ms), "ttft"),
    item("total", formatMs(run.timings?.duration_ms), "duration"),
    item("speed", rate === null ? null : `${rate.toFixed(1)} tok/s`, "rate"),
    item("model", [run.model, run.profile].filter(Boolean).join(" · "), "model"),
  ];
  footer.append(...items.filter((node) => node !== null));
  for (const note of run.notes ?? []) {
    footer.append(el("div", { className: "turn-note muted", text: note, dataset: { meta: "note" } }));
  }
  if (run.error) {
    const error = el(
      "div",
      { className: "turn-error", attrs: { role: "status" }, dataset: { errorCode: run.error.code ?? "" } },
      el("strong", { text: run.error.code ?? "error" }),
      run.error.error_type ? el("span", { className: "error-type", text: ` (${run.error.error_type})`, dataset: { errorType: run.error.error_type } }) : null,
      el("span", { text: `: ${run.error.message ?? ""}` }),
    );
    if (run.error.request_id) {
      error.append(
        el("span", { className: "request-id", text: ` · request id ${run.error.request_id}`, dataset: { requestId: run.error.request_id } }),
      );
    }
    if (status !== "complete" && hasAnswer(content)) {
      error.append(el("span", { className: "muted", text: " · the partial answer above is kept" }));
    }
    footer.append(error);
  }
  return footer;
}
