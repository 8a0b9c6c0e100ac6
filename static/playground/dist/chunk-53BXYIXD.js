// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  clipPair,
  describeChange
} from "./chunk-EDSQLX5D.js";
import {
  el
} from "./chunk-ACANGUXN.js";

// static/playground/diff-view.js
var SHOWN_CHARS = 240;
var MARKS = { added: "+", removed: "\u2212", changed: "~" };
function valueText(value) {
  if (value === void 0) return "";
  const text = JSON.stringify(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}\u2026` : text;
}
function shownTexts(change) {
  if (change.kind !== "changed") return [valueText(change.before), valueText(change.after)];
  return clipPair(JSON.stringify(change.before), JSON.stringify(change.after), { limit: SHOWN_CHARS });
}
function row(change) {
  const values = el("span", { className: "diff-values" });
  const [before, after] = shownTexts(change);
  if (change.kind !== "added") values.append(el("code", { className: "diff-before", text: before }));
  if (change.kind === "changed") values.append(el("span", { className: "muted", text: " \u2192 " }));
  if (change.kind !== "removed") values.append(el("code", { className: "diff-after", text: after }));
  return el(
    "li",
    { className: `diff-row diff-${change.kind}`, dataset: { kind: change.kind, path: change.path }, attrs: { title: describeChange(change) } },
    el("span", { className: "diff-mark", text: MARKS[change.kind], attrs: { "aria-hidden": "true" } }),
    el("code", { className: "diff-path", text: change.path }),
    values
  );
}
function drawChanges(list, changes, { empty = "No differences." } = {}) {
  list.dataset.changes = String(changes.length);
  if (changes.length === 0) {
    list.replaceChildren(el("li", { className: "diff-row diff-none muted", text: empty }));
    return;
  }
  list.replaceChildren(...changes.map(row));
}

export {
  drawChanges
};
