// @ts-check
/**
 * Draws a list of JSON changes (json-diff.js) as rows: the path, and the value before and
 * after, each as JSON text.
 *
 * Rule: values go in through textContent only (a request holds the model's and the person's
 * text). Long values are cut for the row (a changed pair around where it differs: clipPair)
 * and shown whole in its title; the count is mirrored
 * on the list as data-changes for CSS and tests.
 */

import { el } from "./dom.js";
import { clipPair, describeChange } from "./json-diff.js";

const SHOWN_CHARS = 240;
const MARKS = { added: "+", removed: "−", changed: "~" };

function valueText(value) {
  if (value === undefined) return "";
  const text = JSON.stringify(value);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
}

/** The row's two texts: a changed pair cut around where it differs, else each from its start. */
function shownTexts(change) {
  if (change.kind !== "changed") return [valueText(change.before), valueText(change.after)];
  return clipPair(JSON.stringify(change.before), JSON.stringify(change.after), { limit: SHOWN_CHARS });
}

function row(change) {
  const values = el("span", { className: "diff-values" });
  const [before, after] = shownTexts(change);
  if (change.kind !== "added") values.append(el("code", { className: "diff-before", text: before }));
  if (change.kind === "changed") values.append(el("span", { className: "muted", text: " → " }));
  if (change.kind !== "removed") values.append(el("code", { className: "diff-after", text: after }));
  return el(
    "li",
    { className: `diff-row diff-${change.kind}`, dataset: { kind: change.kind, path: change.path }, attrs: { title: describeChange(change) } },
    el("span", { className: "diff-mark", text: MARKS[change.kind], attrs: { "aria-hidden": "true" } }),
    el("code", { className: "diff-path", text: change.path }),
    values,
  );
}

/** Fill `list` with `changes`; `empty` is the words shown when there are none. */
export function drawChanges(list, changes, { empty = "No differences." } = {}) {
  list.dataset.changes = String(changes.length);
  if (changes.length === 0) {
    list.replaceChildren(el("li", { className: "diff-row diff-none muted", text: empty }));
    return;
  }
  list.replaceChildren(...changes.map(row));
}
