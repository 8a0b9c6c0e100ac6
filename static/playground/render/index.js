// @ts-check
/**
 * The playground's rendering core: what a turn looks like, live or stored. No page shell.
 *
 * Import from here only (ES modules, no bundler, no globals):
 *
 *   import { LiveTurn, renderMessage } from "/static/playground/render/index.js";
 *
 *   const turn = new LiveTurn(container, { toolSchemas, onToolUse });
 *     // toolSchemas: {toolName: input_schema} (omit to skip schema checks)
 *     // serverTools: serverToolNames(tools), what server_tool_use may name (omit: unchecked)
 *     // onToolUse({index, id, name, input, valid, problems}) once per tool_use block, at its stop
 *   turn.applyEvents(frame.events);  // run.events frames: [{seq, t, type, data}]; dup seqs skipped
 *   turn.finish({status, stop_reason, usage, timings, error});  // run.finished
 *   turn.message;                    // the folded message, API JSON shape (for tool forms)
 *   turn.element;                    // the turn's root, appended to `container`
 *   turn.flush();                    // do the pending DOM work now (otherwise once per frame)
 *   turn.protocolErrors, turn.upstreamError
 *
 *   renderMessage(message, { toolSchemas, serverTools }) -> HTMLElement   // stored turns
 *   serverToolNames(tools) -> [name]                         // what server tool calls may name
 *   accumulate(snapshot, event) -> snapshot                  // pure fold (Python core's rules)
 *   renderMarkdownSafe(text) -> DocumentFragment             // markdown -> sanitized DOM
 *   warmUp()                                                 // pay the renderer's first-use costs
 *   parsePartialJson(text) -> value                          // partial parse, trailing strings
 *   validateAgainstSchema(value, schema) -> [{path, problem, message}]
 *
 * DOM contract (data-* attributes to style and to wait on):
 *   .pg-turn            data-role=user|assistant, data-state=streaming|done, data-status,
 *                       data-stop-reason, data-error-code, data-upstream-error,
 *                       data-protocol-error, aria-busy; data-passed-over=<count> (live: events
 *                       before message_start, kept unfolded); data-flagged=true (stored: the
 *                       run flagged a block, see run.block_issues)
 *   .pg-block           data-block-type=<block type>
 *   .pg-text            data-state=done|incomplete; .pg-md-frozen segments + .pg-md-tail;
 *                       data-blocks=<n>: an assistant's text blocks in a row are one .pg-text,
 *                       citation markers sup.pg-cite[data-cite], then ol.pg-sources >
 *                       li.pg-source[data-cite][data-kind] (.pg-source-title: a link only for
 *                       http/https, .pg-source-location, .pg-source-quote)
 *   .pg-thinking        <details>, data-thinking=open|closed, data-state=streaming|done|incomplete
 *   .pg-tool            data-tool-state=streaming|done|incomplete, data-tool-valid=true|false,
 *                       data-tool-json=valid|invalid, data-tool-schema=none (no schemas given);
 *                       a flagged stored call shows its raw JSON in pre.pg-tool-raw;
 *                       problems in li.pg-tool-problem[data-problem][data-path]
 *                       data-server-call=true (server_tool_use, mcp_tool_use: never awaiting
 *                       a result, never checked against the client tools; .pg-tool-server)
 *   .pg-tool-result     data-is-error=true|false
 *   .pg-server-result   a server tool's or MCP result, container_upload (server-blocks.js):
 *                       data-is-error; .pg-server-error[data-error-code]; .pg-search-result,
 *                       .pg-exec-stdout/-stderr, .pg-exec-code[data-return-code],
 *                       .pg-exec-files, .pg-file-view, .pg-diff, .pg-file-created
 *   .pg-redacted, .pg-unknown   <details>, collapsed; .pg-compaction <details> with the summary
 *   .pg-code            code block wrapper; button.pg-copy gets data-copied=true|false
 * Styles: /static/playground/render.css (light and dark via prefers-color-scheme).
 */

export { accumulate, ProtocolError } from "./accumulate.js";
export { setFileUrl } from "./attachment.js";
export { LiveTurn } from "./live-turn.js";
export { renderMarkdownSafe, warmUp } from "./markdown.js";
export { renderMessage } from "./message.js";
export { IncrementalJsonParser, parsePartialJson } from "./partial-json.js";
export { validateAgainstSchema } from "./schema.js";
export { serverToolNames } from "./server-tools.js";
