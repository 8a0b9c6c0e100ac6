// @ts-check
/**
 * MCP tools on the page, the pure part: which pending calls an MCP server can run, how a
 * server's tools join the conversation's tools, how a call's streamed answer (NDJSON) reads,
 * and the approval policy (ask, the default, or auto) per server and per tool.
 *
 * Rule: pure (no DOM, no fetch). A call is an MCP call when its name is one the servers'
 * listing gives (`<server>__<tool>`, made unique and legal by the server: playground/mcp/convert.py).
 */

/** Map of the Messages API name → {server, mcpName, tool} over the listed servers. */
export function toolIndex(servers) {
  const index = new Map();
  for (const server of servers ?? []) {
    for (const tool of server.tools ?? []) {
      index.set(tool.name, { server: server.name, mcpName: tool.mcp_name, annotations: tool.annotations ?? {}, title: tool.title ?? "", tool: messagesTool(tool) });
    }
  }
  return index;
}

/** The servers a conversation's tools come from (its server marks), each once, sorted: the
 * ones a page opening it starts; the others wait for "Connect / refresh". */
export function serversInUse(marks) {
  return [...new Set(Object.values(marks ?? {}).map((mark) => mark?.server).filter((name) => typeof name === "string" && name))].sort();
}

/** The body of POST …/servers/connect/ that starts `connect`'s servers (`true`: every one, a
 * list: those), or null when none is to start (the listing is then a GET, which starts none). */
export function connectBody(connect) {
  if (connect === true) return {};
  if (!Array.isArray(connect) || connect.length === 0) return null;
  return { servers: connect };
}

/** The tool as the Messages API takes it (the listing's `mcp_name`, `title` and
 * `annotations`, which are the picker's, left out). */
export function messagesTool(listed) {
  const { mcp_name: _name, title: _title, annotations: _annotations, ...tool } = listed;
  return tool;
}

/** Whether a tool may change or destroy something, read as MCP's defaults read its hints: not
 * `readOnlyHint`, and `destructiveHint` not false (an unannotated tool may). */
export function isDestructive(annotations) {
  return annotations?.readOnlyHint !== true && annotations?.destructiveHint !== false;
}

/** A tool's annotations in words for the picker and the card: ["read-only", "idempotent",
 * "open world"], or "may be destructive" first for one that may be. */
export function annotationWords(annotations) {
  const words = [];
  if (isDestructive(annotations)) words.push(annotations?.destructiveHint === true ? "destructive" : "may be destructive");
  if (annotations?.readOnlyHint === true) words.push("read-only");
  if (annotations?.idempotentHint === true) words.push("idempotent");
  if (annotations?.openWorldHint === true) words.push("open world");
  return words;
}

/** Whether a listed tool answers the picker's search: every word of `query` in its name,
 * title or description (any case). */
export function toolMatches(tool, query) {
  const words = String(query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
  const text = `${tool.name ?? ""} ${tool.title ?? ""} ${tool.description ?? ""}`.toLowerCase();
  return words.every((word) => text.includes(word));
}

/** `current` tools with `added` ones: a tool of the same name is replaced in place (a server's
 * newer schema), the others appended. {tools, added, replaced}: the names of each. */
export function mergeTools(current, added) {
  const tools = Array.isArray(current) ? [...current] : [];
  /** @type {{ tools: any[], added: string[], replaced: string[] }} */
  const result = { tools, added: [], replaced: [] };
  for (const tool of added) {
    const at = tools.findIndex((t) => t?.name === tool.name);
    if (at >= 0) {
      tools[at] = tool;
      result.replaced.push(tool.name);
    } else {
      tools.push(tool);
      result.added.push(tool.name);
    }
  }
  return result;
}

/** Whole lines of an NDJSON stream read so far: {values, rest} (`rest`: an unfinished line). */
export function readLines(buffer) {
  const parts = buffer.split("\n");
  const rest = parts.pop();
  const values = parts.filter((line) => line.trim()).map((line) => JSON.parse(line));
  return { values, rest };
}

/** A notice's words for the card: "progress 2/3 …" or "log info: …". */
export function noticeText(notice) {
  const params = notice.params ?? {};
  if (notice.kind === "progress") {
    const total = params.total !== undefined ? `/${params.total}` : "";
    return `progress ${params.progress}${total}${params.message ? ` ${params.message}` : ""}`;
  }
  if (notice.kind === "task") return `task ${params.status}${params.statusMessage ? `: ${params.statusMessage}` : ""}`;
  const data = typeof params.data === "string" ? params.data : JSON.stringify(params.data);
  return `log ${params.level ?? ""}${params.logger ? ` (${params.logger})` : ""}: ${data}`;
}

/** The policy for one tool: the tool's own, else its server's, else every server's ("*",
 * which a replay that runs the tools again sets), else "ask". A server's "auto" does not
 * reach a tool that may be destructive (`isDestructive`): only the tool's own choice, or a
 * replay's, runs one without asking. */
export function approvalFor(policy, { server, mcpName, annotations = undefined }) {
  const own = policy?.tools?.[`${server}/${mcpName}`];
  if (own === "auto" || own === "ask") return own;
  const servers = policy?.servers ?? {};
  if (servers[server] === "auto" && !(annotations && isDestructive(annotations))) return "auto";
  return servers[server] === undefined && servers["*"] === "auto" ? "auto" : "ask";
}

/** A prompt's messages (prompts/get, as Messages API messages) split for inserting: the turns up
 * to its last assistant turn go in the conversation as they are (`turns`: the assistant's as
 * the assistant's), and the user turns after it go in the composer (`composer`: their blocks),
 * to be sent by the person. A prompt with no assistant turn is all the composer's. */
export function promptParts(messages) {
  const list = messages ?? [];
  const last = list.map((message) => message.role).lastIndexOf("assistant");
  return { turns: list.slice(0, last + 1).map(({ role, content }) => ({ role, content })), composer: list.slice(last + 1).flatMap((message) => message.content ?? []) };
}

/** The policy a replay that runs the MCP tools again has (the server's `{"*": "auto"}`). */
export const RERUN_POLICY = { servers: { "*": "auto" }, tools: {} };

/** The page's policy from the server's: the conversation's `mcp_approval` ({servers}) and each
 * mark's own `approval` (keyed `<server>/<mcp_name>`, as the selects are). */
export function policyOf(approval, marks) {
  /** @type {Record<string, string>} */
  const tools = {};
  for (const mark of Object.values(marks ?? {})) {
    if (mark?.approval === "auto" || mark?.approval === "ask") tools[`${mark.server}/${mark.mcp_name}`] = mark.approval;
  }
  return { servers: { ...(approval?.servers ?? {}) }, tools };
}

/** The policy with one server's or tool's choice set (a new object). */
export function withApproval(policy, { server, mcpName = null, value }) {
  const next = { servers: { ...(policy?.servers ?? {}) }, tools: { ...(policy?.tools ?? {}) } };
  if (mcpName === null) next.servers[server] = value;
  else next.tools[`${server}/${mcpName}`] = value;
  return next;
}

/** The pending calls split: those an MCP server runs without asking (`auto`), those it can
 * run on a click (`ask`), and the rest (answered by hand or a mock). */
export function splitCalls(calls, index, policy) {
  /** @type {{ auto: any[], ask: any[], other: any[] }} */
  const out = { auto: [], ask: [], other: [] };
  for (const call of calls) {
    const found = index.get(call.name);
    if (!found) out.other.push(call);
    else out[approvalFor(policy, found)].push(call);
  }
  return out;
}

/** One call's JSON-RPC exchanges as inspector records (one JSONL line each): `at` is when each
 * passed (epoch ms: the call's start and its +ms), so calls and sessions share one timeline;
 * `run` (the run whose tool_use the call answers) when the server stored it. */
/** @param {{ callId: any, server: string, tool: string, run?: string, startedAt?: number }} call @param {any[]} exchanges */
export function exchangeRecords({ callId, server, tool, run = undefined, startedAt = undefined }, exchanges) {
  const where = run ? { call_id: callId, server, tool, run } : { call_id: callId, server, tool };
  return (exchanges ?? []).map((exchange) => ({ ...where, ...exchange, ...(startedAt !== undefined ? { at: Math.round((startedAt + (exchange.at_ms ?? 0)) * 10) / 10 } : {}) }));
}

/** The records of the calls the server stored (GET …/mcp-calls/), oldest first. */
export function storedRecords(calls) {
  return (calls ?? []).flatMap((call) => exchangeRecords({ callId: call.tool_use_id, server: call.server, tool: call.tool, run: call.run, startedAt: call.started_at }, call.exchanges));
}

/** The sessions' own messages (GET /api/mcp/sessions/: the handshake, listings, what a
 * server asked with no call under way) as records of the same timeline. */
export function sessionRecords(sessions) {
  return (sessions ?? []).flatMap((session) => (session.exchanges ?? []).map((exchange) => ({ server: session.server, session: true, ...exchange })));
}

/** A record's place in the timeline and its identity (a session's messages come again with
 * each load of them). */
export function recordKey(record) {
  const message = record.message ?? {};
  return `${record.server}|${record.call_id ?? "session"}|${record.at ?? ""}|${record.direction}|${message.id ?? ""}|${message.method ?? ""}`;
}

/** The tool_use ids of the stored calls that got a result from their server. */
export function ranOnServer(calls) {
  return new Set((calls ?? []).filter((call) => call.outcome === "result").map((call) => call.tool_use_id));
}

/** The server marks of tools added from the listing (`index` entries): {name: {server,
 * mcp_name, approval?}}, stored beside the conversation's tools (never in them); `approval`
 * is the tool's own choice in `policy`, when it has one.
 * @param {any[]} entries
 * @param {{servers?: Record<string, string>, tools?: Record<string, string>}} [policy]
 */
export function marksOf(entries, policy) {
  return Object.fromEntries(entries.map((entry) => {
    // The tool's own choice goes to the server too: a grid's loop runs only a tool set to auto.
    const own = policy?.tools?.[`${entry.server}/${entry.mcpName}`];
    const approval = own === "auto" || own === "ask" ? { approval: own } : {};
    return [entry.tool.name, { server: entry.server, mcp_name: entry.mcpName, ...approval }];
  }));
}

/** Why a call of a tool a server mark names cannot run there now (the words on its card), or
 * null when the mark names no server (a tool typed by hand). `servers` is the listing. */
export function unavailableWhy(mark, servers, removed = []) {
  if (!mark?.server) return null;
  const server = (servers ?? []).find((s) => s.name === mark.server);
  const answer = "answer it by hand or by a mock";
  const gone = (removed ?? []).find((entry) => entry.name === mark.server);
  if (!server && gone) return `MCP server “${mark.server}” was removed from the configuration (the servers file was reloaded at ${gone.removed_at}): ${answer}.`;
  if (!server) return `MCP server “${mark.server}” is not configured any more: ${answer}.`;
  if (server.state === "failed") return `MCP server “${mark.server}” failed${server.reason ? ` (${server.reason})` : ""}: ${answer}, or Connect / refresh to try again.`;
  if (server.state === "stopped" || server.state === "starting") return `MCP server “${mark.server}” is not started: Connect / refresh starts it, or ${answer}.`;
  return `MCP server “${mark.server}” no longer lists ${mark.mcp_name}: ${answer}.`;
}

/** A record's short label: "→ tools/call #3", "← result #3", "← error #3", "← notifications/progress",
 * "← initialize result #0: capabilities logging, prompts, resources, tools". */
export function exchangeLabel(record) {
  const message = record.message ?? {};
  const arrow = record.direction === "sent" ? "→" : "←";
  const id = message.id !== undefined ? ` #${message.id}` : "";
  if (message.method) return `${arrow} ${message.method}${id}`;
  if (record.answers && !message.error) {
    const capabilities = record.answers === "initialize" ? Object.keys(message.result?.capabilities ?? {}).sort() : [];
    const server = record.answers === "initialize" ? message.result?.serverInfo : null;
    const said = capabilities.length ? `: ${server?.name ? `${server.name} ${server.version ?? ""}, ` : ""}capabilities ${capabilities.join(", ")}` : "";
    return `${arrow} ${record.answers} result${id}${said}`;
  }
  if (message.fault) return `${arrow} ended${id}: ${message.fault.message ?? ""}`;
  if (message.omitted_notifications) return `${arrow} ${message.omitted_notifications} more notifications, not kept`;
  if (message.error) return `${arrow} error${id}: ${message.error.message ?? ""}`;
  if (message.omitted_bytes) return `${arrow} result${id} (${message.omitted_bytes} bytes, not kept)`;
  return `${arrow} result${id}`;
}

/** A URL-mode elicitation's link, shown as its origin before the person agrees to open it;
 * null for a link that is not http(s) (never opened). */
export function elicitationLink(url) {
  try {
    const parsed = new URL(url);
    return parsed.protocol === "https:" || parsed.protocol === "http:" ? { href: parsed.href, origin: parsed.origin } : null;
  } catch {
    return null;
  }
}

/** A sampling request's messages as plain words for the card ("user: …"). */
export function samplingText(request) {
  return (request?.messages ?? [])
    .map((message) => `${message.role}: ${(message.content ?? []).map((block) => (block.type === "text" ? block.text : `[${block.type}]`)).join(" ")}`)
    .join("\n");
}
