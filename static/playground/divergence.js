// @ts-check
/**
 * A replayed tool loop against its source: the fixtures a replay answers from, and where the
 * two runs' tool_use decisions diverge (which tool, the input, order and count) and how the
 * final answers compare.
 *
 * Rule: pure (no DOM), over stored messages ({role, content}). A loop is a user turn that is
 * not tool results, then every assistant step until the next such turn; a step is one assistant
 * turn's tool calls. Fixtures are data keyed by tool name and the call's whole input (a mock
 * with that `match`), never code. Each replayed call is marked by how it was answered: run
 * again on its MCP server (the page knows which calls it ran there), from the recording (its
 * result is the source's for the same tool and input), or otherwise (by hand, by a mock).
 */

import { describeChange, jsonDiff } from "./json-diff.js";

const blocksOf = (message) =>
  Array.isArray(message.content) ? message.content : [{ type: "text", text: String(message.content ?? "") }];
const textOf = (blocks) =>
  blocks
    .filter((block) => block.type === "text")
    .map((block) => block.text)
    .join("\n")
    .trim();

/** The loops of a conversation: [{user: text, content, steps: [[{id, name, input}]], final: text}]. */
export function loopsOf(messages) {
  const loops = [];
  /** @type {{ user: string, content: unknown, steps: { id: string, name: string, input: unknown }[][], final: string } | null} */
  let current = null;
  for (const message of messages) {
    const blocks = blocksOf(message);
    if (message.role === "user") {
      if (!blocks.some((block) => block.type === "tool_result")) {
        current = { user: textOf(blocks), content: message.content, steps: [], final: "" };
        loops.push(current);
      }
      continue;
    }
    if (current === null) continue;
    const calls = blocks.filter((block) => block.type === "tool_use").map((block) => ({ id: block.id, name: String(block.name), input: block.input ?? {} }));
    if (calls.length > 0) current.steps.push(calls);
    else current.final = textOf(blocks);
  }
  return loops;
}

/** Each answered call as a fixture (a mock matched on its whole input), first answer kept. */
export function fixturesOf(messages) {
  const calls = new Map();
  const fixtures = [];
  const seen = new Set();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use") calls.set(block.id, block);
      if (block.type !== "tool_result" || !calls.has(block.tool_use_id)) continue;
      const call = calls.get(block.tool_use_id);
      const key = JSON.stringify([call.name, call.input ?? {}]);
      if (seen.has(key)) continue;
      seen.add(key);
      fixtures.push({ tool: String(call.name), match: call.input ?? {}, content: block.content ?? "", is_error: block.is_error === true, auto: false });
    }
  }
  return fixtures;
}

/** A result's words, however it was stored: a string, text blocks joined, else its JSON. */
function resultWords(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content) && content.every((block) => block?.type === "text")) return content.map((block) => block.text).join("");
  return JSON.stringify(content ?? "");
}

/** How a replayed call was answered: "rerun" (run again on its MCP server), "recorded" (the
 * source's result for the same tool and input), "other" (by hand or by a mock, or edited).
 * A Map of tool_use id → mark over `messages`' answered calls; `ranAgain` is a Set of the
 * tool_use ids run on a server, `fixtures` fixturesOf(the source). */
export function answersOf(messages, { ranAgain = new Set(), fixtures = /** @type {any[]} */ ([]) } = {}) {
  const recorded = new Map(fixtures.map((f) => [JSON.stringify([f.tool, f.match ?? {}]), f]));
  const calls = new Map();
  const marks = new Map();
  for (const message of messages) {
    for (const block of blocksOf(message)) {
      if (block.type === "tool_use") calls.set(block.id, block);
      if (block.type !== "tool_result" || !calls.has(block.tool_use_id)) continue;
      const call = calls.get(block.tool_use_id);
      const fixture = recorded.get(JSON.stringify([String(call.name), call.input ?? {}]));
      const same = fixture !== undefined && resultWords(fixture.content) === resultWords(block.content) && fixture.is_error === (block.is_error === true);
      marks.set(block.tool_use_id, ranAgain.has(block.tool_use_id) ? "rerun" : same ? "recorded" : "other");
    }
  }
  return marks;
}

function compareStep(source, replay) {
  if (!source) return ["only in the replay"];
  if (!replay) return ["only in the source"];
  const notes = [];
  const names = (calls) => calls.map((call) => call.name);
  if (source.length !== replay.length) notes.push(`count: ${source.length} vs ${replay.length}`);
  const [a, b] = [names(source), names(replay)];
  const sorted = (list) => [...list].sort().join(" ");
  if (a.join(" ") !== b.join(" ")) notes.push(sorted(a) === sorted(b) ? `order: ${a.join(", ")} vs ${b.join(", ")}` : `tools: ${a.join(", ")} vs ${b.join(", ")}`);
  for (let index = 0; index < Math.min(source.length, replay.length); index += 1) {
    if (source[index].name !== replay[index].name) continue;
    for (const change of jsonDiff(source[index].input, replay[index].input)) notes.push(`${source[index].name} input ${describeChange(change)}`);
  }
  return notes;
}

/**
 * Loop by loop, step by step: [{user, steps: [{index, source, replay, notes, diverged,
 * answers}], final: {source, replay, same}, diverged}], `diverged` true from the first step
 * that differs; `answers` the replay's calls' marks (answersOf, null while unanswered), given
 * `answers` (a Map from answersOf).
 */
export function compareLoops(sourceMessages, replayMessages, { answers = new Map() } = {}) {
  const source = loopsOf(sourceMessages);
  const replay = loopsOf(replayMessages);
  return source.map((loop, index) => {
    const other = replay[index] ?? { steps: [], final: "" };
    const count = Math.max(loop.steps.length, other.steps.length);
    const steps = [];
    for (let step = 0; step < count; step += 1) {
      const notes = compareStep(loop.steps[step] ?? null, other.steps[step] ?? null);
      const replayCalls = other.steps[step] ?? null;
      const marks = (replayCalls ?? []).map((call) => answers.get(call.id) ?? null);
      steps.push({ index: step, source: loop.steps[step] ?? null, replay: replayCalls, notes, diverged: notes.length > 0, answers: marks });
    }
    const final = { source: loop.final, replay: other.final, same: loop.final === other.final };
    return { user: loop.user, steps, final, replayed: index < replay.length, diverged: steps.some((s) => s.diverged) };
  });
}
