// @ts-check
/**
 * Which tool a call may name: a `tool_use` one of the tools offered (by name, its input checked
 * against the tool's schema), a `server_tool_use` one the declared server tools run.
 *
 * Rule: a server tool call is judged by the server tools declared, never by the client tools:
 * its name is the API's (a `code_execution_20250825` tool is called as `bash_code_execution`
 * and `text_editor_code_execution`, never by its own name), and its input is the API's to
 * check, so no schema is applied. Pure: no DOM, so node tests it.
 */

import { validateAgainstSchema } from "./schema.js";

/** Server tool type prefixes and the names their calls carry (Anthropic's server tools docs;
 * the SDK's ServerToolUseBlock names: web_search, web_fetch, code_execution,
 * bash_code_execution, text_editor_code_execution, tool_search_tool_regex/_bm25). */
/** @type {[string, string[]][]} */
const CALLED_AS = [
  // The first code execution tool runs Python and is called by its own name...
  ["code_execution_2025052", ["code_execution"]],
  // ...its successors (20250825 on) run bash and edit files, each its own call name, and run
  // the Python that calls client tools (programmatic tool calling) as code_execution.
  ["code_execution_", ["code_execution", "bash_code_execution", "text_editor_code_execution"]],
  ["web_search_", ["web_search"]],
  ["web_fetch_", ["web_fetch"]],
];

/**
 * The names a `server_tool_use` may carry given the `tools` setting: each server tool's (any
 * tool with a `type` other than `custom`). A server tool this table does not know is called by
 * the name it was declared with, as web search and web fetch are.
 */
export function serverToolNames(tools) {
  const names = new Set();
  for (const tool of Array.isArray(tools) ? tools : []) {
    const type = tool?.type;
    if (typeof type !== "string" || type === "custom") continue;
    const known = CALLED_AS.find(([prefix]) => type.startsWith(prefix));
    if (known) for (const name of known[1]) names.add(name);
    else if (typeof tool.name === "string") names.add(tool.name);
  }
  return [...names];
}

/**
 * A call's problems, `[{path, problem, message, severity?}]`, or null when there is nothing to
 * check it against (the page gave no tools: a test). `toolSchemas`: {name: input_schema} of the
 * tools offered; `serverTools`: what {@link serverToolNames} gives for the same tools.
 *
 * A server tool call no declared server tool makes is a `note`, not a fault: the server ran it
 * (a server with a built-in search runs one undeclared) and its result is in the turn; the
 * person is told, and nothing is wrong with the call that anyone could mend.
 * @returns {(import("./schema.js").Problem & { severity?: string })[] | null}
 */
export function callProblems(block, { toolSchemas, serverTools }) {
  const name = block?.name;
  // An MCP connector call is the MCP server's to check: its tools are not declared here.
  if (block?.type === "mcp_tool_use") return null;
  if (block?.type === "server_tool_use") {
    if (serverTools == null) return null;
    if (serverTools.includes(name)) return [];
    const declared = serverTools.length ? serverTools.join(", ") : "none";
    return [
      {
        path: "$",
        problem: "unknown_server_tool",
        severity: "note",
        message: `the server ran a tool no declared server tool is called by (declared: ${declared})`,
      },
    ];
  }
  if (toolSchemas == null) return null;
  if (!Object.prototype.hasOwnProperty.call(toolSchemas, name)) {
    return [{ path: "$", problem: "unknown_tool", message: "no tool by this name was offered" }];
  }
  return validateAgainstSchema(block.input, toolSchemas[name]);
}
