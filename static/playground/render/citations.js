// @ts-check
/**
 * Citations on text blocks: what a source list shows for each, and the numbers the markers
 * carry.
 *
 * Rule: pure (no DOM, node tests it). A citation's strings are data, never markup: they are
 * returned as plain strings for textContent, and a link is offered only for an absolute http
 * or https URL as the browser's own URL parser reads it (so `JaVaScRiPt:`, ` javascript:`,
 * `java\tscript:`, entity- or percent-encoded schemes are all refused, never "cleaned").
 *
 * Shapes (anthropic-sdk-python, src/anthropic/types/): CitationCharLocation
 * (char_location: document_title, start/end_char_index), CitationPageLocation (page_location:
 * start/end_page_number), CitationContentBlockLocation (content_block_location: start/end
 * _block_index), CitationsWebSearchResultLocation (web_search_result_location: title, url),
 * CitationSearchResultLocation (search_result_location: source, title, search_result_index,
 * start/end_block_index). Each carries `cited_text`.
 */

const LINKABLE = new Set(["http:", "https:"]);

/** The URL as the browser would follow it, when it is absolute http(s); otherwise null. */
export function safeHttpUrl(raw) {
  if (typeof raw !== "string") return null;
  try {
    const url = new URL(raw);
    return LINKABLE.has(url.protocol) ? url.href : null;
  } catch {
    return null; // relative or unparsable
  }
}

function range(noun, start, end, { endExclusive = false } = {}) {
  if (!Number.isInteger(start)) return "";
  // char and block indexes end exclusive (Anthropic's citations docs); pages end inclusive.
  const last = Number.isInteger(end) ? (endExclusive ? end - 1 : end) : start;
  return last > start ? `${noun}s ${start}–${last}` : `${noun} ${start}`;
}

/** Where in its source a citation points, in words ("" when the citation does not say). */
export function citationLocation(citation) {
  const c = citation ?? {};
  switch (c.type) {
    case "char_location":
      return range("character", c.start_char_index, c.end_char_index, { endExclusive: true });
    case "page_location":
      return range("page", c.start_page_number, c.end_page_number);
    case "content_block_location":
      return range("block", c.start_block_index, c.end_block_index, { endExclusive: true });
    case "search_result_location": {
      const blocks = range("block", c.start_block_index, c.end_block_index, { endExclusive: true });
      const index = Number.isInteger(c.search_result_index) ? `search result ${c.search_result_index}` : "";
      return [index, blocks].filter(Boolean).join(", ");
    }
    default:
      return "";
  }
}

/**
 * What a source list item shows: {title, url (safe or null), location, quote, kind}. The
 * title falls back to the URL or source as text, then to "Document N".
 */
export function citationSource(citation) {
  const c = citation ?? {};
  const rawUrl = c.type === "search_result_location" ? c.source : c.url;
  const url = safeHttpUrl(rawUrl);
  let title = typeof c.document_title === "string" && c.document_title ? c.document_title : null;
  if (title === null && typeof c.title === "string" && c.title) title = c.title;
  if (title === null && typeof rawUrl === "string" && rawUrl) title = rawUrl;
  if (title === null && Number.isInteger(c.document_index)) title = `Document ${c.document_index}`;
  return {
    title: title ?? "Source",
    url,
    location: citationLocation(c),
    quote: typeof c.cited_text === "string" ? c.cited_text : "",
    kind: typeof c.type === "string" ? c.type : "unknown",
  };
}

/** Numbers citations in the order they are first seen; the same citation twice keeps its
 * number (compared by its JSON). */
export class CitationNumbers {
  #byKey = new Map();
  #list = [];

  /** The citation's number (1-based) and whether it is new. */
  add(citation) {
    const key = JSON.stringify(citation ?? null);
    const known = this.#byKey.get(key);
    if (known !== undefined) return { number: known, added: false };
    this.#list.push(citation);
    this.#byKey.set(key, this.#list.length);
    return { number: this.#list.length, added: true };
  }

  get size() {
    return this.#list.length;
  }
}

/**
 * A cited block's markers travel inside the markdown source, at the end of its text, as
 * private-use characters around the number: markdown leaves them alone, and they become
 * elements only after sanitizing (blocks.js). A number no citation has stays text.
 */
export const MARK_OPEN = "\uE000";
export const MARK_CLOSE = "\uE001";

/** The marker text for these citation numbers. */
export function markerText(numbers) {
  return numbers.map((n) => `${MARK_OPEN}${n}${MARK_CLOSE}`).join("");
}

/** Split text holding markers into [{text} | {marker: n}] (a stray MARK stays text). */
export function splitMarkers(text) {
  const parts = [];
  const pattern = new RegExp(`${MARK_OPEN}(\\d+)${MARK_CLOSE}`, "g");
  let last = 0;
  for (const match of text.matchAll(pattern)) {
    if (match.index > last) parts.push({ text: text.slice(last, match.index) });
    parts.push({ marker: Number(match[1]) });
    last = match.index + match[0].length;
  }
  if (last < text.length) parts.push({ text: text.slice(last) });
  return parts;
}
