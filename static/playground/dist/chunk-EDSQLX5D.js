// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/json-diff.js
var isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);
function join(path, key) {
  if (typeof key === "number") return `${path}[${key}]`;
  return path ? `${path}.${key}` : key;
}
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
function jsonDiff(before, after) {
  const changes = [];
  walk(before, after, "", changes);
  return changes;
}
function describeChange(change) {
  const show = (value) => value === void 0 ? "" : JSON.stringify(value);
  if (change.kind === "added") return `+ ${change.path}: ${show(change.after)}`;
  if (change.kind === "removed") return `- ${change.path}: ${show(change.before)}`;
  return `~ ${change.path}: ${show(change.before)} \u2192 ${show(change.after)}`;
}
function clipPair(before, after, { limit = 240, context = 40 } = {}) {
  if (before.length <= limit && after.length <= limit) return [before, after];
  const shorter = Math.min(before.length, after.length);
  let start = 0;
  while (start < shorter && before[start] === after[start]) start += 1;
  let end = 0;
  while (end < shorter - start && before[before.length - 1 - end] === after[after.length - 1 - end]) end += 1;
  const from = Math.max(0, start - context);
  const clip = (text) => {
    let first = from;
    if (first > 0 && /[\uDC00-\uDFFF]/.test(text[first])) first -= 1;
    let last = Math.min(text.length, text.length - end + context, first + limit);
    if (last < text.length && /[\uD800-\uDBFF]/.test(text[last - 1])) last -= 1;
    return `${first > 0 ? "\u2026" : ""}${text.slice(first, last)}${last < text.length ? "\u2026" : ""}`;
  };
  return [clip(before), clip(after)];
}

export {
  jsonDiff,
  describeChange,
  clipPair
};
