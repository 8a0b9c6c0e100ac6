// @ts-check
/**
 * Search, the DOM side: a result in the sidebar shows its snippet and opens the conversation
 * with `?q=`; the conversation page then marks the words in its turns and scrolls to the first.
 *
 * Rule: text is only ever split into text nodes and <mark> elements (no HTML is parsed), and
 * only inside the transcript's turns, once, when the page opens. The root's data-search-hits
 * holds how many were marked (tests wait on it).
 */

import { el } from "./dom.js";
import { matchRanges, termsOf } from "./search.js";

/** A sidebar result's extras: the link opens the match; the snippet shows it, words marked. */
export function decorateResult(link, main, summary, query) {
  if (!summary.match || !query) return;
  const url = new URL(summary.url, location.href);
  url.searchParams.set("q", query);
  link.href = url.pathname + url.search;
  const snippet = el("span", { className: "sidebar-snippet muted", dataset: { searchSnippet: "" } });
  appendMarked(snippet, summary.match.snippet, termsOf(query));
  main.append(snippet);
}

function appendMarked(parent, text, terms) {
  let at = 0;
  for (const [start, end] of matchRanges(text, terms)) {
    parent.append(text.slice(at, start), el("mark", { className: "search-hit", text: text.slice(start, end) }));
    at = end;
  }
  parent.append(text.slice(at));
}

/** Mark `query`'s words in the turns under `transcript`; scroll to the first; the count. */
export function highlightTurns(root, transcript, query) {
  const terms = termsOf(query);
  /** @type {Text[]} */
  const texts = [];
  for (const turn of transcript.querySelectorAll(".msg")) {
    const walker = document.createTreeWalker(turn, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.parentElement?.closest("button, mark")) texts.push(/** @type {Text} */ (node));
    }
  }
  let count = 0;
  for (const node of texts) {
    const ranges = matchRanges(node.data, terms);
    if (ranges.length === 0) continue;
    const pieces = document.createDocumentFragment();
    appendMarked(pieces, node.data, terms);
    count += ranges.length;
    node.replaceWith(pieces);
  }
  root.dataset.searchHits = String(count);
  transcript.querySelector("mark.search-hit")?.scrollIntoView({ block: "center" });
  return count;
}
