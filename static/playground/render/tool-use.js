// @ts-check
/**
 * The view of a tool call: name and id, input growing live, then checked against the tool's
 * schema; a call the stream flagged (invalid JSON, cut off) shows its raw text and why.
 *
 * Rule: as every block view (blocks.js), untrusted strings enter the DOM through textContent
 * only, and a live view records what arrived until `render()`, once per animation frame.
 */

import { el } from "../dom.js";
import { pretty } from "../format.js";
import { ISSUE, RAW_JSON } from "./accumulate.js";
import { IncrementalJsonParser } from "./partial-json.js";
import { callProblems } from "./server-tools.js";

/** How a call is labelled: a client's call awaits the person's result; the others the server
 * made itself (server tools; the MCP connector's `mcp_tool_use`, BetaMCPToolUseBlock). */
const CALL_LABELS = {
  tool_use: "Tool call",
  server_tool_use: "Server tool call",
  mcp_tool_use: "MCP tool call",
};

/** Input fields of a server call read as text when the call has only that one. */
const MAIN_FIELDS = ["code", "command", "query", "url"];

const ISSUE_TITLES = {
  invalid_json: "Invalid JSON",
  incomplete: "Incomplete: the call was cut off",
};

/** Who made the call when the model did not make it directly (its `caller`): programmatic
 * tool calling runs the model's code, which calls client tools from the code-execution
 * container (`{"type": "code_execution_20250825", "tool_id": "srvtoolu_…"}`). */
function callerElement(caller) {
  const type = caller?.type;
  if (typeof type !== "string" || type === "direct") return ""; // not null: append writes it
  const from = type.startsWith("code_execution") ? "code execution" : type;
  const id = typeof caller.tool_id === "string" ? ` ${caller.tool_id}` : "";
  return el("span", { className: "pg-tool-caller", text: `called from ${from}${id}`, dataset: { caller: type } });
}

/**
 * A tool call: name and id, input growing live, then checked against the tool's schema; a
 * server tool call against the server tools declared (`serverTools`, see server-tools.js).
 */
export class ToolUseView {
  constructor(block, { toolSchemas, serverTools, live }) {
    this.block = block;
    this.toolSchemas = toolSchemas;
    this.serverTools = serverTools;
    this.parser = new IncrementalJsonParser();
    this.inputDirty = false;
    const root = el("div", { className: "pg-block pg-tool" });
    root.dataset.blockType = String(block.type);
    root.dataset.toolState = live ? "streaming" : "done";
    this.serverCall = block.type !== "tool_use";
    if (this.serverCall) root.dataset.serverCall = "true";
    const head = el("div", { className: "pg-tool-head" });
    head.append(
      el("span", { className: "pg-tool-label", text: CALL_LABELS[block.type] ?? "Call" }),
      el("code", { className: "pg-tool-name", text: String(block.name ?? "") }),
      typeof block.server_name === "string"
        ? el("span", { className: "pg-tool-server", text: `on ${block.server_name}` })
        : "", // not null: append writes that as text
      el("span", { className: "pg-tool-id", text: String(block.id ?? "") }),
      callerElement(block.caller),
    );
    this.input = el("pre", { className: "pg-tool-input" });
    this.report = el("div", { className: "pg-tool-report" });
    root.append(head, this.input, this.report);
    this.element = root;
    this.input.textContent = pretty(block.input);
  }

  /**
   * A stored call. `issue` (the run's block_issues entry) marks one whose JSON did not arrive
   * whole and valid: it is stored and sent back as {"INVALID_JSON": raw} (docs/protocol.md).
   */
  static stored(block, { toolSchemas, serverTools, issue = null }) {
    const view = new ToolUseView(block, { toolSchemas, serverTools, live: false });
    if (issue === "invalid_json" || issue === "incomplete") {
      const raw = block.input?.INVALID_JSON;
      view.element.dataset.toolState = issue === "incomplete" ? "incomplete" : "done";
      view.#invalid(typeof raw === "string" ? raw : pretty(block.input), ISSUE_TITLES[issue]);
      view.report.append(
        el("p", { className: "pg-tool-sent-back", text: 'Sent back as {"INVALID_JSON": "…"}: the text as received.' }),
      );
      return view;
    }
    view.#showInput(block.input);
    view.#validate(block.input);
    return view;
  }

  delta(delta) {
    if (delta.type !== "input_json_delta") return;
    this.parser.feed(delta.partial_json ?? "");
    this.inputDirty = true;
  }

  render() {
    if (!this.inputDirty) return;
    this.inputDirty = false;
    const value = this.parser.value();
    if (value !== undefined) this.input.textContent = pretty(value);
  }

  /** Final input: strict parse happened in the fold; here it is shown and checked. */
  stop(block) {
    this.block = block;
    this.inputDirty = false;
    this.element.dataset.toolState = "done";
    if (block[ISSUE] === "invalid_json") {
      this.#invalid(block[RAW_JSON] ?? "", ISSUE_TITLES.invalid_json);
      return { valid: false, problems: [{ path: "$", problem: "json", message: "invalid JSON" }] };
    }
    this.#showInput(block.input);
    return this.#validate(block.input);
  }

  /** The whole input: JSON, or for a server call of one text field (code, a shell command, a
   * query, a URL) that text, which reads better than its JSON string. */
  #showInput(input) {
    const keys = input !== null && typeof input === "object" ? Object.keys(input) : [];
    const field = this.serverCall && keys.length === 1 && MAIN_FIELDS.includes(keys[0]) ? keys[0] : null;
    if (field === null || typeof input[field] !== "string") {
      this.input.textContent = pretty(input);
      return;
    }
    this.input.textContent = input[field];
    this.input.dataset.inputView = field;
  }

  incomplete({ block }) {
    this.render();
    this.block = block;
    this.element.dataset.toolState = "incomplete";
    this.#invalid(block[RAW_JSON] ?? "", ISSUE_TITLES.incomplete);
  }

  #invalid(raw, title) {
    this.element.dataset.toolValid = "false";
    this.element.dataset.toolJson = "invalid";
    const box = el("div", { className: "pg-tool-invalid" });
    box.append(el("strong", { className: "pg-tool-invalid-title", text: title }));
    if (this.parser.error !== null) {
      const { offset, message } = this.parser.error;
      box.append(el("span", { className: "pg-tool-invalid-why", text: ` (at character ${offset}: ${message})` }));
    }
    box.append(el("pre", { className: "pg-tool-raw", text: raw }));
    this.report.replaceChildren(box);
  }

  #validate(input) {
    let problems = callProblems(
      { ...this.block, input },
      { toolSchemas: this.toolSchemas, serverTools: this.serverTools },
    );
    if (problems === null) {
      this.element.dataset.toolSchema = "none";
      problems = [];
    }
    const notes = problems.filter((problem) => problem.severity === "note");
    const faults = problems.filter((problem) => problem.severity !== "note");
    const valid = faults.length === 0;
    this.element.dataset.toolValid = !valid ? "false" : notes.length ? "noted" : "true";
    this.element.dataset.toolJson = "valid";
    const lists = [];
    /** @type {[typeof faults, string][]} */
    const groups = [[faults, "pg-tool-problems"], [notes, "pg-tool-notes"]];
    for (const [items, className] of groups) {
      if (!items.length) continue;
      const list = el("ul", { className });
      for (const problem of items) {
        const text = problem.path === "$" ? problem.message : `${problem.path}: ${problem.message}`;
        const item = el("li", { className: "pg-tool-problem", text });
        item.dataset.problem = problem.problem;
        item.dataset.path = problem.path;
        if (problem.severity) item.dataset.severity = problem.severity;
        list.append(item);
      }
      lists.push(list);
    }
    this.report.replaceChildren(...lists);
    return { valid, problems: faults };
  }
}
