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
  TextView,
  ThinkingView,
  toolResultElement,
  unknownElement,
} from "./blocks.js";
import { ToolUseView } from "./tool-use.js";

function blockElement(block, { role, key, toolSchemas, serverTools, issue, toolNames }) {
  switch (block?.type) {
    case "text":
      return TextView.stored(String(block.text ?? ""), { markdown: role === "assistant" })
        .element;
    case "thinking":
      return ThinkingView.stored(block, { key }).element;
    case "redacted_thinking":
      return new RedactedThinkingView().element;
    case "tool_use":
    case "server_tool_use":
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

/** Render a stored message ({role, content, run?}) to a new element; `toolNames` maps a
 * tool_use id to its tool's name, so a result says which tool it answers; `serverTools` the
 * names server tool calls may carry (server-tools.js), omitted to leave them unchecked. */
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
  content.forEach((block, index) => {
    if (carried > 0 && index === carried) {
      root.append(el("p", { className: "pg-continued muted", text: "Continued from here" }));
    }
    const issue = index >= carried ? (issues[String(index - carried)] ?? null) : null;
    root.append(
      blockElement(block, { role, key: `${id}:${index}`, toolSchemas, serverTools, issue, toolNames }),
    );
  });
  return root;
}
