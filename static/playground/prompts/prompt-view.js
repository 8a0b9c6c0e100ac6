// @ts-check
/**
 * What the prompt pages show, as plain values: a changed line cut into its kept and changed
 * pieces, the parts of a definition the structural diff compares, and the code that fetches
 * a version (curl, Python).
 *
 * Rule: pure (no DOM, no fetch), so the Node tests read every case. Code is built from values
 * with quoting that holds for any text: a shell word in single quotes (a quote inside closed,
 * escaped and reopened), a Python string as JSON writes it (a JSON string is a Python string
 * literal).
 */

/** The parts of a definition compared structurally (json-diff.js), in the order shown. */
export const STRUCTURED = [
  ["tools", "Tools"],
  ["output_config", "Output schema"],
  ["settings", "Settings"],
  ["variables", "Variables (defaults)"],
  ["tool_mocks", "Tool mocks"],
  ["profile", "Profile"],
  ["model", "Model"],
];

/**
 * A line cut at `spans` ([start, end) ranges that changed) into pieces `{text, changed}`.
 * @param {string} text @param {number[][] | undefined} spans
 * @returns {{text: string, changed: boolean}[]}
 */
export function pieces(text, spans) {
  if (!spans || spans.length === 0) return [{ text, changed: false }];
  /** @type {{text: string, changed: boolean}[]} */
  const out = [];
  let at = 0;
  for (const [start, end] of spans) {
    if (start > at) out.push({ text: text.slice(at, start), changed: false });
    if (end > start) out.push({ text: text.slice(start, end), changed: true });
    at = Math.max(at, end);
  }
  if (at < text.length) out.push({ text: text.slice(at), changed: false });
  return out;
}

/** @param {string} text a shell word that means exactly `text` */
export function shellQuote(text) {
  return `'${text.replaceAll("'", `'"'"'`)}'`;
}

/**
 * The URL that fetches a version: by label or number, with each variable's value.
 * @param {string} base the serving URL (absolute) @param {{label?: string | null, version?: number | null, variables?: Record<string, string>}} choice
 */
export function serveUrl(base, { label = null, version = null, variables = {} }) {
  const params = new URLSearchParams();
  if (version !== null && version !== undefined) params.set("version", String(version));
  else if (label) params.set("label", label);
  for (const [name, value] of Object.entries(variables)) params.set(`var.${name}`, value);
  const query = params.toString();
  return query ? `${base}?${query}` : base;
}

/**
 * curl and Python (the standard library only) that fetch a version. With `token` (login
 * mode) curl sends the personal API token from the environment; without (local mode) it
 * sends none, since an empty bearer token is refused. Python sends one when the environment
 * holds one, so the same code runs in both modes.
 * @param {string} base @param {{label?: string | null, version?: number | null, variables?: Record<string, string>}} choice
 * @param {{token?: boolean}} [options]
 * @returns {{curl: string, python: string}}
 */
export function serveSnippets(base, choice, { token = true } = {}) {
  const url = serveUrl(base, choice);
  const curl = token
    ? [`curl -sS ${shellQuote(url)} \\`, `  -H "Authorization: Bearer $PLAYGROUND_API_TOKEN"`].join("\n")
    : `curl -sS ${shellQuote(url)}`;
  /** @type {Record<string, string>} */
  const params = {};
  if (choice.version !== null && choice.version !== undefined) params.version = String(choice.version);
  else if (choice.label) params.label = choice.label;
  for (const [name, value] of Object.entries(choice.variables ?? {})) params[`var.${name}`] = value;
  const entries = Object.entries(params).map(([key, value]) => `    ${JSON.stringify(key)}: ${JSON.stringify(value)},`);
  const python = [
    "import json",
    "import os",
    "import urllib.parse",
    "import urllib.request",
    "",
    `URL = ${JSON.stringify(base)}`,
    "params = {",
    ...entries,
    "}",
    'token = os.environ.get("PLAYGROUND_API_TOKEN")  # a personal API token, in login mode',
    "request = urllib.request.Request(",
    '    URL + "?" + urllib.parse.urlencode(params),',
    '    headers={"Authorization": "Bearer " + token} if token else {},',
    ")",
    "with urllib.request.urlopen(request) as response:",
    "    prompt = json.load(response)",
    '    etag = response.headers["ETag"]  # send as If-None-Match: a 304 while unchanged',
    "",
    'print(prompt["version"], prompt["system"])',
    '# prompt["request"]: the Messages body, filled in, ready to send.',
  ].join("\n");
  return { curl, python };
}

/**
 * Short words for when: "just now", "5 min ago", "3 h ago", else the date.
 * @param {string} iso @param {number} [now]
 */
export function whenText(iso, now = Date.now()) {
  const then = Date.parse(iso);
  if (Number.isNaN(then)) return "";
  const seconds = Math.max(0, Math.round((now - then) / 1000));
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(then).toISOString().slice(0, 10);
}

/**
 * The two versions a page compares first: the newest against the one before it (or itself).
 * @param {{number: number}[]} versions newest first
 * @returns {[number, number] | null}
 */
export function defaultPair(versions) {
  if (versions.length === 0) return null;
  const newest = versions[0].number;
  return [versions.length > 1 ? versions[1].number : newest, newest];
}

/**
 * Template messages as text for reading: a header per turn, then its text; another block as
 * one line of JSON (prompts/diffs.py's `message_lines`, which the diff compares).
 * @param {{role: string, content: unknown}[]} messages
 */
export function messagesText(messages) {
  const lines = [];
  messages.forEach((message, index) => {
    lines.push(`── ${message.role} #${index + 1} ──`);
    const blocks = typeof message.content === "string" ? [{ type: "text", text: message.content }] : /** @type {any[]} */ (message.content ?? []);
    for (const block of blocks) lines.push(block?.type === "text" ? String(block.text ?? "") : JSON.stringify(block));
  });
  return lines.join("\n");
}

/**
 * What an import did, in words: the versions added, those already there, the labels set.
 * @param {{prompt: {name: string}, added: number[], already: number[], labels: Record<string, number>}} answer
 */
export function importedWords({ prompt, added, already, labels }) {
  /** @param {number[]} numbers */
  const list = (numbers) => numbers.map((number) => `v${number}`).join(", ");
  const parts = [];
  parts.push(added.length ? `Added ${list(added)} to ${prompt.name}.` : `Nothing new for ${prompt.name}.`);
  if (already.length) parts.push(`Already there: ${list(already)}.`);
  const names = Object.entries(labels);
  if (names.length) parts.push(`Labels: ${names.map(([label, number]) => `${label} → v${number}`).join(", ")}.`);
  return parts.join(" ");
}
