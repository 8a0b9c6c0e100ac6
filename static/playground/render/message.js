// @ts-check
/**
 * Stored turns (user and assistant) rendered whole.
 *
 * Rule: the same block views as a live turn, so a turn looks the same before and after its
 * run ends. User text is shown as typed (plain text); assistant text as markdown.
 */

import { el } from "../dom.js";
import { documentElement, imageElement } from "./attachment.js";
import {
  RedactedThinkingView,
  ThinkingView,
  toolResultElement,
  unknownElement,
} from "./blocks.js";
import { CompactionView, isServerResult, serverResultElement } from "./server-blocks.js";
import { TextView } from "./text-view.js";
import { ToolUseView } from "./tool-use.js";

function blockElement(block, { role, key, toolSchemas, serverTools, issue, toolNames }) {
  if (isServerResult(block?.type)) {
    return serverResultElement(block, { callName: toolNames?.[block.tool_use_id] ?? null });
  }
  switch (block?.type) {
    case "text":
      return TextView.stored([block], { markdown: role === "assistant" }).element;
    case "thinking":
      return ThinkingView.stored(block, { key }).element;
    case "redacted_thinking":
      return new RedactedThinkingView(block).element;
    case "compaction":
      return CompactionView.stored(block).element;
    case "tool_use":
    case "server_tool_use":
    case "mcp_tool_use":
      return ToolUseView.stored(block, { toolSchemas, serverTools, issue }).element;
    case "tool_result":
      return toolResultElement(block, { name: toolNames?.[block.tool_use_id] ?? null });
    case "image":
      return imageElement(block);
    case "document":
      return documentElement(block);
    default:
      return unknownElement(block);
  }
}

/** The blocks to draw, an assistant's text blocks in a row joined as one `run` (the API
 * splits cited text into blocks; the live turn joins them the same way). A continued turn's
 * first `carried` blocks were sent back and the run wrote the rest: a `mark` between them. */
function* pieces(content, role, carried = 0) {
  let run = null;
  for (const [index, block] of content.entries()) {
    if (carried > 0 && index === carried) {
      if (run !== null) yield { run };
      run = null;
      yield { mark: true };
    }
    if (role === "assistant" && block?.type === "text") {
      if (run === null) run = [];
      run.push(block);
      continue;
    }
    if (run !== null) yield { run };
    run = null;
    yield { index, block };
  }
  if (run !== null) yield { run };
}

/** Render a stored message ({role, content, run?}) to a new element; `toolNames` maps a
 * tool_use id to its tool's name, so a result says which tool it answers; `serverTools` the
 * names server tool calls may carry (server-tools.js), omitted to leave them unchecked. */
/** @param {any} message @param {{ toolSchemas?: any, serverTools?: any, toolNames?: any }} [context] */
export function renderMessage(message, { toolSchemas, serverTools, toolNames } = {}) {
  const role = message.role === "assistant" ? "assistant" : "user";
  const root = el("div", { className: "pg-turn" });
  root.dataset.role = role;
  root.dataset.state = "done";
  const status = message.run?.status;
  if (typeof status === "string") root.dataset.status = status;
  const content =
    typeof message.content === "string"
      ? [{ type: "text", text: message.content }]
      : Array.isArray(message.content)
        ? message.content
        : [];
  // Keyed by run (as its live turn was), so what the person saw live is found again.
  const own = message.run?.id ?? message.id;
  const id = own === undefined || own === null ? "" : String(own);
  // Blocks the run flagged (invalid or cut-off tool JSON): marked on the block and the turn.
  const issues = message.run?.block_issues ?? {};
  if (Object.keys(issues).length > 0) root.dataset.flagged = "true";
  // A continued turn (a prefill, or a turn the API paused): its first blocks were sent back,
  // the run wrote the rest, and its flags count from there.
  const carried = Number.isInteger(message.carried_blocks) ? message.carried_blocks : 0;
  if (message.prefill) {
    root.dataset.prefill = "true";
    root.append(el("p", { className: "pg-continued muted", text: "Prefill: the start of the answer, written by you; Continue sends it" }));
  }
  // A server result names the call it answers, which is in the same turn.
  const names = { ...toolNames };
  for (const block of content) if (typeof block?.id === "string") names[block.id] = block.name;
  for (const { index, block, run, mark } of pieces(content, role, carried)) {
    if (mark) {
      root.append(el("p", { className: "pg-continued muted", text: "Continued from here" }));
      continue;
    }
    if (run) {
      root.append(TextView.stored(run, { markdown: true }).element);
      continue;
    }
    const issue = index >= carried ? (issues[String(index - carried)] ?? null) : null;
    root.append(
      blockElement(block, { role, key: `${id}:${index}`, toolSchemas, serverTools, issue, toolNames: names }),
    );
  }
  return root;
}
