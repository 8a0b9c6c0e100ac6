// @ts-check
/**
 * What a grid column changes, against its conversation: the system prompt's line diff and the
 * settings whose value differs; and the header editor's fields read back as the column's
 * changes.
 *
 * Rule: PURE (values in, plain objects out; no DOM), so the node tier tests it. A field left
 * blank changes nothing (the column follows the conversation there); a number or a JSON field
 * that is not one is refused naming the field, and everything else is judged by the server
 * (``grids.column_edit``), whose refusal names ``columns[1].changes.top_p``.
 */

/** The settings a header edits, in the order it shows them, with each one's kind of field. */
export const COLUMN_FIELDS = /** @type {const} */ ([
  ["model", "text"],
  ["system", "textarea"],
  ["temperature", "number"],
  ["top_p", "number"],
  ["top_k", "integer"],
  ["max_tokens", "integer"],
  ["stop_sequences", "lines"],
  ["thinking", "json"],
  ["tools", "json"],
  ["tool_choice", "json"],
  ["output_config", "json"],
  ["extra_fields", "json"],
]);

/** What a person calls each setting in the header. */
export const FIELD_LABELS = {
  model: "Model",
  system: "System prompt",
  temperature: "Temperature",
  top_p: "top_p",
  top_k: "top_k",
  max_tokens: "Max tokens",
  stop_sequences: "Stop sequences (one a line)",
  thinking: "Thinking (JSON)",
  tools: "Tools (JSON list)",
  tool_choice: "Tool choice (JSON)",
  output_config: "Output schema (output_config, JSON)",
  extra_fields: "Extra fields (JSON)",
};

export class ColumnFieldError extends Error {
  /** @param {string} field @param {string} message */
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

/**
 * One line of a system prompt's diff.
 * @typedef {{kind: "same" | "added" | "removed", text: string}} DiffLine
 */

/**
 * The lines of `after` against `before` (longest common subsequence of lines): kept lines
 * "same", the rest "removed" from before or "added" in after, in reading order.
 * @param {string} before
 * @param {string} after
 * @returns {DiffLine[]}
 */
export function lineDiff(before, after) {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  // lengths[i][j]: the common subsequence of a[i:] and b[j:].
  const lengths = Array.from({ length: a.length + 1 }, () => new Array(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1]);
    }
  }
  /** @type {DiffLine[]} */
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i] });
      i += 1;
      j += 1;
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) {
      out.push({ kind: "removed", text: a[i] });
      i += 1;
    } else {
      out.push({ kind: "added", text: b[j] });
      j += 1;
    }
  }
  for (; i < a.length; i += 1) out.push({ kind: "removed", text: a[i] });
  for (; j < b.length; j += 1) out.push({ kind: "added", text: b[j] });
  return out;
}

/** @param {unknown} value */
function systemText(value) {
  if (typeof value === "string") return value;
  if (Array.isArray(value)) return value.map((block) => (block && typeof block === "object" && "text" in block ? String(block.text) : "")).join("");
  return "";
}

/** @param {unknown} value */
function shown(value) {
  if (value === null || value === undefined) return "unset";
  if (typeof value === "string") return value;
  return JSON.stringify(value);
}

/**
 * What a column changes against its conversation's settings: the system prompt's diff (null
 * when the column keeps it) and each other setting whose value differs, as text.
 * @param {Record<string, unknown>} source the conversation's settings
 * @param {Record<string, unknown> | null | undefined} changes the column's changes
 * @returns {{system: DiffLine[] | null, settings: {name: string, before: string, after: string}[], prompt: string | null}}
 */
export function columnDiff(source, changes) {
  const own = changes ?? {};
  let system = null;
  if ("system" in own && systemText(own.system) !== systemText(source.system)) {
    system = lineDiff(systemText(source.system), systemText(own.system));
  }
  const settings = [];
  for (const [name, value] of Object.entries(own)) {
    if (name === "system" || name === "prompt") continue;
    if (JSON.stringify(value) === JSON.stringify(source[name])) continue;
    settings.push({ name, before: shown(source[name]), after: shown(value) });
  }
  return { system, settings, prompt: typeof own.prompt === "string" ? own.prompt : null };
}

/**
 * What a header's field shows for a column's value (blank: the column follows the
 * conversation).
 * @param {string} kind
 * @param {unknown} value
 * @returns {string}
 */
export function fieldText(kind, value) {
  if (value === undefined || value === null) return "";
  if (kind === "lines") return Array.isArray(value) ? value.join("\n") : "";
  if (kind === "json") return JSON.stringify(value, null, 2);
  if (kind === "textarea") return systemText(value);
  return String(value);
}

/**
 * The column's changes from the header's fields: blank fields left out; a column's prompt
 * (a prompt library's version, ``prompt``) kept as it was.
 * @param {Record<string, string>} fields field name → its text
 * @param {Record<string, unknown> | null | undefined} previous the column's changes before
 * @returns {Record<string, unknown>}
 */
export function changesFromFields(fields, previous) {
  /** @type {Record<string, unknown>} */
  const changes = {};
  if (previous && typeof previous.prompt === "string") changes.prompt = previous.prompt;
  for (const [name, kind] of COLUMN_FIELDS) {
    const raw = String(fields[name] ?? "");
    if (raw.trim() === "") continue;
    if (kind === "number" || kind === "integer") {
      const value = Number(raw.trim());
      if (!Number.isFinite(value) || (kind === "integer" && !Number.isInteger(value))) {
        throw new ColumnFieldError(name, `expected ${kind === "integer" ? "an integer" : "a number"}, got ${JSON.stringify(raw.trim())}`);
      }
      changes[name] = value;
    } else if (kind === "json") {
      try {
        changes[name] = JSON.parse(raw);
      } catch (error) {
        throw new ColumnFieldError(name, `not valid JSON: ${error instanceof Error ? error.message : String(error)}`);
      }
    } else if (kind === "lines") {
      changes[name] = raw.split("\n").filter((line) => line !== "");
    } else {
      changes[name] = raw;
    }
  }
  return changes;
}
