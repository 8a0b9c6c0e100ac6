// @ts-check
/**
 * Search on the page: a query's words and where they occur in a text, the server's rules
 * (playground/conversations/search.py): words are letters, digits and _, any script; each
 * matches as a prefix of a word, case aside.
 *
 * Rule: PURE. The server finds the conversations; this only says what to mark in a shown one.
 */

const WORD = /[\p{L}\p{N}_]+/gu;
export const TERMS_MAX = 8;
export const WORD_MAX = 64;

/** The words of a query, lower-cased, each once (the server's terms_of). */
export function termsOf(query) {
  const words = (String(query ?? "").match(WORD) ?? []).map((word) => word.slice(0, WORD_MAX).toLowerCase());
  return [...new Set(words)].slice(0, TERMS_MAX);
}

/** The words of `text` a term starts (whole words marked): sorted [start, end) pairs. */
export function matchRanges(text, terms) {
  if (terms.length === 0) return [];
  // Terms are word characters only (termsOf), so they need no escaping.
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}_])(?:${terms.join("|")})[\\p{L}\\p{N}_]*`, "giu");
  const ranges = [];
  for (const match of text.matchAll(pattern)) ranges.push([match.index, match.index + match[0].length]);
  return ranges;
}

/** The `q` a conversation was opened with (a search result's link), or "". */
export function queryOf(search) {
  return new URLSearchParams(search).get("q") ?? "";
}
