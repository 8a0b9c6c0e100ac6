// @ts-check
/**
 * The differences between two JSON values, path by path: what a request editor and the
 * run-to-run diff show.
 *
 * Rule: pure (no DOM). Objects are compared key by key (order ignored: the server's encoder
 * decides key order); arrays index by index, so a conversation that grew shows its new
 * messages as added at the end, and a changed message shows the one field that changed.
 * Paths are written as the server's error fields are (`messages[2].content[0].text`), so a
 * refusal and a difference name a place the same way.
 */

/** @typedef {{path: string, kind: "added" | "removed" | "changed", before?: unknown, after?: unknown}} Change */

/** @typedef {Record<string, unknown>} JsonObject */

/** @param {unknown} value @returns {value is JsonObject} */
const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

/** @param {string} path @param {string | number} key */
function join(path, key) {
  if (typeof key === "number") return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}

/** @param {unknown} before @param {unknown} after @param {string} path @param {Change[]} changes */
function walk(before, after, path, changes) {
  if (Array.isArray(before) && Array.isArray(after)) {
    const shared = Math.min(before.length, after.length);
    for (let index = 0; index < shared; index += 1) walk(before[index], after[index], join(path, index), changes);
    for (let index = shared; index < after.length; index += 1) changes.push({ path: join(path, index), kind: "added", after: after[index] });
    for (let index = shared; index < before.length; index += 1) changes.push({ path: join(path, index), kind: "removed", before: before[index] });
    return;
  }
  if (isObject(before) && isObject(after)) {
    for (const key of Object.keys(before)) {
      if (Object.hasOwn(after, key)) walk(before[key], after[key], join(path, key), changes);
      else changes.push({ path: join(path, key), kind: "removed", before: before[key] });
    }
    for (const key of Object.keys(after)) {
      if (!Object.hasOwn(before, key)) changes.push({ path: join(path, key), kind: "added", after: after[key] });
    }
    return;
  }
  if (!Object.is(before, after)) changes.push({ path: path || "(the whole value)", kind: "changed", before, after });
}

/**
 * Every difference from `before` to `after`, in document order (`[]` when equal).
 * @param {unknown} before @param {unknown} after @returns {Change[]}
 */
export function jsonDiff(before, after) {
  /** @type {Change[]} */
  const changes = [];
  walk(before, after, "", changes);
  return changes;
}

/**
 * One line per change, for a screen reader, a copy, or a test: `~ temperature: 1 → 0.2`.
 * @param {Change} change
 */
export function describeChange(change) {
  /** @param {unknown} value */
  const show = (value) => (value === undefined ? "" : JSON.stringify(value));
  if (change.kind === "added") return `+ ${change.path}: ${show(change.after)}`;
  if (change.kind === "removed") return `- ${change.path}: ${show(change.before)}`;
  return `~ ${change.path}: ${show(change.before)} → ${show(change.after)}`;
}

/**
 * Two long texts cut to show where they differ: each keeps `context` characters before the
 * first difference and runs on to the end of the difference (then `context` more), at most
 * `limit` characters, with "…" where something is left out. A change at the end of a long
 * string would otherwise be cut from both sides, showing two equal beginnings.
 */
/** @param {string} before @param {string} after @returns {[string, string]} */
export function clipPair(before, after, { limit = 240, context = 40 } = {}) {
  if (before.length <= limit && after.length <= limit) return [before, after];
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start += 1;
  let end = 0; // the length of the common ending
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  const from = Math.max(0, start - context);
  /** @param {string} text */
  const clip = (text) => {
    let first = from;
    // Never split a surrogate pair (an emoji) at the cut.
    if (first > 0 && /[\uDC00-\uDFFF]/.test(text[first])) first -= 1;
    let last = Math.min(text.length, text.length - end + context, first + limit);
    if (last < text.length && /[\uD800-\uDBFF]/.test(text[last - 1])) last -= 1;
    return `${first > 0 ? "…" : ""}${text.slice(first, last)}${last < text.length ? "…" : ""}`;
  };
  return [clip(before), clip(after)];
}
