// @ts-check
/**
 * Step mode's decision for one step of a tool loop: send the mocks' answers, pause first, or
 * stop (a call has no mock, or the iteration limit is reached), or the loop is done.
 *
 * Rule: pure (no DOM). Every saved mock may answer in step mode (mock-match.js chooses); the
 * limit counts the steps step mode sent on its own since it was switched on or resumed.
 */

import { answerCalls } from "./mock-match.js";

export const DEFAULT_LIMIT = 10;
export const MAX_LIMIT = 1000;

/** What is wrong with a typed limit ("" when it is a whole number from 1 to MAX_LIMIT): a
 * limit the page cannot use is named, never quietly replaced (0 typed ran ten steps). */
export function limitProblem(text) {
  const raw = String(text ?? "").trim();
  const value = Number(raw);
  if (raw !== "" && Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT) return "";
  return `Iteration limit: a whole number from 1 to ${MAX_LIMIT} (got ${raw === "" ? "nothing" : JSON.stringify(raw)}); step mode waits until it is one.`;
}

/** A saved limit, as a whole number from 1 to MAX_LIMIT (else the default). */
export function readLimit(text) {
  const value = Number(String(text ?? "").trim());
  return Number.isInteger(value) && value >= 1 && value <= MAX_LIMIT ? value : DEFAULT_LIMIT;
}

/**
 * The next move for pending `calls`: {do: "done"} when there are none; else the calls the
 * mocks answer (`answered`: [{call, mock}]) and {do: "stop", reason: "no_mock", missing} |
 * {do: "stop", reason: "limit"} | {do: "pause"} | {do: "send"}.
 */
export function planStep({ calls, mocks, sent, limit, pause }) {
  if (calls.length === 0) return { do: "done", answered: [], missing: [] };
  const { answered, missing } = answerCalls(calls, mocks);
  if (missing.length > 0) return { do: "stop", reason: "no_mock", answered, missing };
  if (sent >= limit) return { do: "stop", reason: "limit", answered, missing };
  return { do: pause ? "pause" : "send", answered, missing };
}

/** The status line for a move. `asking`: the ids of the calls an MCP server would run once a
 * person allows them (their tool on "ask"): named as waiting on approval, not as lacking a mock. */
export function stepWords(move, { sent, limit, asking = new Set() }) {
  if (move.do === "done") return `Done: the loop ended after ${sent} step${sent === 1 ? "" : "s"} answered from mocks.`;
  if (move.do === "pause") return `Paused before step ${sent + 1}: the mocks' results are in the cards; change any, then Continue.`;
  if (move.do === "send") return `Step ${sent + 1} of at most ${limit}: sending the mocks' results…`;
  if (move.reason === "limit") return `Stopped: the limit of ${limit} step${limit === 1 ? "" : "s"} is reached. Continue resumes for ${limit} more.`;
  const namesOf = (calls) => [...new Set(calls.map((call) => call.name))].join(", ");
  const waiting = move.missing.filter((call) => asking.has(call.id));
  const unmocked = move.missing.filter((call) => !asking.has(call.id));
  const parts = [];
  if (waiting.length) parts.push(`waiting for your approval to run ${namesOf(waiting)} on its MCP server (Run on the card, or Always allow)`);
  if (unmocked.length) parts.push(`no mock for ${namesOf(unmocked)}`);
  const then = unmocked.length ? "Type the result (or add a mock), then Continue." : "Its result then waits in the card: Continue sends it.";
  return `Stopped: ${parts.join("; ")}. ${then}`;
}
