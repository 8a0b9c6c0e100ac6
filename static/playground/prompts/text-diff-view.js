// @ts-check
/**
 * Draws a line diff (prompts/diffs.py's rows) side by side: the old line on the left, the new
 * on the right, the characters that changed in a changed line marked, folded equal stretches
 * as one "n unchanged lines" row.
 *
 * Rule: every text goes in through textContent (el); a row's kind is data-op, for CSS and
 * tests. On a phone the two sides stack (CSS), the old above the new.
 */

import { el } from "../dom.js";
import { pieces } from "./prompt-view.js";

function side(text, number, spans, kind) {
  const cell = el("div", { className: `tdiff-side tdiff-${kind}` });
  cell.append(el("span", { className: "tdiff-no", text: number ?? "", attrs: { "aria-hidden": "true" } }));
  const line = el("span", { className: "tdiff-text" });
  if (text === null) {
    cell.classList.add("tdiff-blank");
  } else {
    for (const piece of pieces(text, spans)) {
      line.append(piece.changed ? el("mark", { text: piece.text }) : document.createTextNode(piece.text));
    }
  }
  cell.append(line);
  return cell;
}

/** One row's element. */
function rowNode(row) {
  if (row.op === "skip") {
    return el("div", { className: "tdiff-row tdiff-skip", dataset: { op: "skip" }, text: `⋯ ${row.count} unchanged line${row.count === 1 ? "" : "s"}` });
  }
  const node = el("div", { className: `tdiff-row tdiff-${row.op}`, dataset: { op: row.op } });
  node.append(side(row.a, row.a_no, row.a_spans, "old"), side(row.b, row.b_no, row.b_spans, "new"));
  return node;
}

/**
 * A text diff's block: its heading, then the rows, or `unchanged` (the text, once) when
 * nothing changed.
 * @param {string} title @param {{changed: boolean, rows: object[]}} diff @param {string} unchanged
 */
export function textDiffBlock(title, diff, unchanged) {
  const block = el("section", { className: "tdiff card", dataset: { changed: String(diff.changed) } });
  const head = el("h3", { className: "section-title", text: title });
  if (!diff.changed) head.append(el("span", { className: "muted tdiff-same", text: " · unchanged" }));
  block.append(head);
  if (!diff.changed) {
    block.append(el("pre", { className: "tdiff-whole", text: unchanged || "(empty)" }));
    return block;
  }
  const rows = el("div", { className: "tdiff-rows", attrs: { role: "table", "aria-label": `${title}: old and new` } });
  for (const row of diff.rows) rows.append(rowNode(row));
  block.append(rows);
  return block;
}
