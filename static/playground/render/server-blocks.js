// @ts-check
/**
 * Results of calls the server made (server tools, the MCP connector) and a compaction
 * summary: drawn as what they are, never as a client tool result the person owes.
 *
 * Rule: as every block view (blocks.js), untrusted strings enter the DOM through textContent
 * only; a link is made only for an http(s) URL (citations.js `safeHttpUrl`). These blocks
 * arrive whole in their content_block_start, so the live and the stored view are the same
 * element. Shapes are the SDK's (anthropic-sdk-python, src/anthropic/types/):
 * WebSearchToolResultBlock / WebSearchResultBlock / WebSearchToolResultError,
 * CodeExecutionToolResultBlock / CodeExecutionResultBlock, BashCodeExecutionToolResultBlock /
 * BashCodeExecutionResultBlock, TextEditorCodeExecutionToolResultBlock (view, create,
 * str_replace results and error), ContainerUploadBlock, and the beta BetaMCPToolResultBlock
 * and BetaCompactionBlock.
 */

import { el } from "../dom.js";
import { safeHttpUrl } from "./citations.js";

/** What each error code means (the SDK's *_error types and Anthropic's server tools docs). */
const ERROR_WORDS = {
  invalid_tool_input: "the tool input was invalid",
  unavailable: "the tool was unavailable",
  max_uses_exceeded: "the request's max_uses for this tool was reached",
  too_many_requests: "rate limited",
  query_too_long: "the query was too long",
  execution_time_exceeded: "the run took too long",
  output_file_too_large: "an output file was too large",
  file_not_found: "file not found",
  url_too_long: "the URL was too long",
  url_not_allowed: "the URL is not allowed",
  url_not_accessible: "the URL could not be fetched",
  unsupported_content_type: "unsupported content type",
};

const LABELS = {
  web_search_tool_result: "Web search results",
  code_execution_tool_result: "Code execution result",
  bash_code_execution_tool_result: "Bash result",
  text_editor_code_execution_tool_result: "File editor result",
  mcp_tool_result: "MCP result",
};

function frame(block, { label, callName, isError }) {
  const root = el("div", { className: "pg-block pg-server-result" });
  root.dataset.blockType = String(block.type);
  root.dataset.isError = isError ? "true" : "false";
  const head = el("div", { className: "pg-tool-head" });
  head.append(
    el("span", { className: "pg-tool-label", text: label }),
    callName ? el("code", { className: "pg-tool-name", text: String(callName) }) : "", // not null: append writes it
    el("span", { className: "pg-tool-id", text: String(block.tool_use_id ?? "") }),
  );
  if (isError) head.append(el("span", { className: "pg-badge pg-badge-error", text: "Error" }));
  root.append(head);
  return root;
}

function isErrorContent(content) {
  return content !== null && typeof content === "object" && /_error$/.test(String(content.type ?? ""));
}

function errorElement(content) {
  const code = String(content.error_code ?? "error");
  const words = ERROR_WORDS[code];
  const box = el("p", { className: "pg-server-error", dataset: { errorCode: code } });
  box.append(el("code", { text: code }), words ? ` — ${words}` : "");
  if (typeof content.error_message === "string" && content.error_message) {
    box.append(el("span", { className: "pg-server-error-message", text: `: ${content.error_message}` }));
  }
  return box;
}

/** A title that links only when the URL is http(s); the URL itself is always shown as text. */
function linkedTitle(title, rawUrl, className) {
  const url = safeHttpUrl(rawUrl);
  const text = typeof title === "string" && title ? title : String(rawUrl ?? "");
  if (url === null) return el("span", { className, text, dataset: { unsafeUrl: "true" } });
  return el("a", { className, text, attrs: { href: url, rel: "noopener noreferrer", target: "_blank" } });
}

function webSearchBody(content) {
  const list = el("ol", { className: "pg-search-results" });
  for (const result of Array.isArray(content) ? content : []) {
    const item = el("li", { className: "pg-search-result" });
    item.append(linkedTitle(result?.title, result?.url, "pg-search-title"));
    item.append(el("span", { className: "pg-search-url", text: String(result?.url ?? "") }));
    if (result?.page_age) item.append(el("span", { className: "pg-search-age", text: String(result.page_age) }));
    list.append(item);
  }
  return list;
}

function preText(className, label, text) {
  const box = el("div", { className: `pg-exec-stream ${className}` });
  box.append(el("span", { className: "pg-exec-label", text: label }), el("pre", { text }));
  return box;
}

/** stdout, stderr, return code and files written, as CodeExecutionResultBlock and
 * BashCodeExecutionResultBlock carry them. */
function execBody(content) {
  const body = el("div", { className: "pg-exec" });
  if (content?.stdout) body.append(preText("pg-exec-stdout", "stdout", String(content.stdout)));
  if (content?.stderr) body.append(preText("pg-exec-stderr", "stderr", String(content.stderr)));
  const code = content?.return_code;
  const status = el("span", { className: "pg-exec-code", text: `exit code ${code ?? "?"}` });
  status.dataset.returnCode = String(code ?? "");
  body.append(status);
  const files = Array.isArray(content?.content) ? content.content : [];
  if (files.length > 0) {
    const list = el("ul", { className: "pg-exec-files", attrs: { "aria-label": "Files created" } });
    for (const file of files) list.append(el("li", { text: String(file?.file_id ?? "") }));
    body.append(el("span", { className: "pg-exec-label", text: "Files created" }), list);
  }
  return body;
}

function fileView(content) {
  const start = Number.isInteger(content.start_line) ? content.start_line : 1;
  const shown = Number.isInteger(content.num_lines) ? content.num_lines : null;
  const total = Number.isInteger(content.total_lines) ? `${content.total_lines}` : "?";
  const caption = shown ? `lines ${start}–${start + shown - 1} of ${total}` : `${content.file_type ?? "file"}`;
  const box = el("div", { className: "pg-file-view" });
  box.append(el("span", { className: "pg-exec-label", text: caption }));
  box.append(el("pre", { className: "pg-file-text", text: String(content.content ?? "") }));
  return box;
}

function diffView(content) {
  const pre = el("pre", { className: "pg-diff" });
  const head = `@@ -${content.old_start ?? "?"},${content.old_lines ?? "?"} +${content.new_start ?? "?"},${content.new_lines ?? "?"} @@`;
  pre.append(el("span", { className: "pg-diff-head", text: head }), "\n");
  for (const line of Array.isArray(content.lines) ? content.lines : []) {
    const text = String(line);
    const kind = text.startsWith("+") ? "add" : text.startsWith("-") ? "del" : "ctx";
    pre.append(el("span", { className: `pg-diff-line pg-diff-${kind}`, text }), "\n");
  }
  return pre;
}

function editorBody(content) {
  switch (content?.type) {
    case "text_editor_code_execution_view_result":
      return fileView(content);
    case "text_editor_code_execution_create_result":
      return el("p", { className: "pg-file-created", text: content.is_file_update ? "File updated" : "File created" });
    case "text_editor_code_execution_str_replace_result":
      return diffView(content);
    default:
      return el("pre", { className: "pg-unknown-json", text: JSON.stringify(content, null, 2) });
  }
}

function mcpBody(content) {
  const parts = typeof content === "string" ? [{ type: "text", text: content }] : Array.isArray(content) ? content : [];
  const box = el("div", { className: "pg-mcp-content" });
  for (const part of parts) {
    const text = part?.type === "text" ? String(part.text ?? "") : JSON.stringify(part, null, 2);
    box.append(el("pre", { className: "pg-tool-result-text", text }));
  }
  return box;
}

const BODIES = {
  web_search_tool_result: webSearchBody,
  code_execution_tool_result: execBody,
  bash_code_execution_tool_result: execBody,
  text_editor_code_execution_tool_result: editorBody,
  mcp_tool_result: mcpBody,
};

/** Whether {@link serverResultElement} draws this block type. */
export function isServerResult(type) {
  return Object.hasOwn(BODIES, type) || type === "container_upload";
}

/**
 * A server-side result block; `callName` is the name of the call it answers, when known.
 */
export function serverResultElement(block, { callName = null } = {}) {
  if (block.type === "container_upload") {
    // A file the request put in the code execution container (ContainerUploadBlock).
    const root = frame(block, { label: "File uploaded to the container", callName: null, isError: false });
    root.append(el("code", { className: "pg-upload-file", text: String(block.file_id ?? "") }));
    return root;
  }
  const content = block.content;
  const isError = block.is_error === true || isErrorContent(content);
  const root = frame(block, { label: LABELS[block.type], callName, isError });
  root.append(isErrorContent(content) ? errorElement(content) : BODIES[block.type](content));
  return root;
}

/** compaction: the summary the API wrote of earlier turns (BetaCompactionBlock). Live, it
 * arrives in compaction_delta events, each replacing the whole content. */
export class CompactionView {
  constructor() {
    const details = el("details", { className: "pg-block pg-compaction" });
    details.dataset.blockType = "compaction";
    details.open = true;
    details.append(el("summary", { className: "pg-compaction-summary", text: "Earlier turns, compacted" }));
    this.text = el("p", { className: "pg-compaction-text" });
    details.append(this.text);
    this.element = details;
    this.pending = null;
  }

  static stored(block) {
    const view = new CompactionView();
    view.stop(block);
    return view;
  }

  delta(delta) {
    if (delta.type === "compaction_delta") this.pending = delta.content ?? "";
  }

  render() {
    if (this.pending === null) return;
    this.text.textContent = this.pending;
    this.pending = null;
  }

  stop(block) {
    this.pending = null;
    const content = typeof block?.content === "string" ? block.content : "";
    this.text.textContent = content || "(no summary: the compacted context is encrypted)";
    this.element.dataset.state = "done";
  }
}
