// @ts-check
/**
 * The text of an answer, live or stored: consecutive assistant text blocks as one run, with
 * citation markers and a source list (citations.js says what each shows).
 *
 * Rule: as every block view (blocks.js), untrusted strings enter the DOM through textContent
 * or renderMarkdownSafe; the markers travel through markdown as private-use characters and
 * become elements only after sanitizing. A live view records deltas until `render()`.
 */

import { el } from "../dom.js";
import { CitationNumbers, citationSource, MARK_OPEN, markerText, splitMarkers } from "./citations.js";
import { renderMarkdownSafe } from "./markdown.js";
import { MarkdownSplitter } from "./markdown-stream.js";

/**
 * Markdown (assistant) or plain text (user), live or stored. Consecutive assistant text blocks
 * are one TextView (a run): the API splits a cited answer into several blocks, which read as
 * one text here, each cited block followed by its numbered markers, the sources listed below.
 */
export class TextView {
  constructor({ markdown = true } = {}) {
    this.element = el("div", { className: "pg-block pg-text" });
    this.element.dataset.blockType = "text";
    this.element.dataset.blocks = "1";
    this.markdown = markdown;
    this.splitter = new MarkdownSplitter();
    this.frozen = [];
    this.tailDirty = false;
    this.tail = el("div", { className: "pg-md-tail" });
    this.element.append(this.tail);
    this.citations = new CitationNumbers();
    this.sources = null;
    this.lastCited = false;
    if (!markdown) this.element.classList.add("pg-plain");
  }

  /** A stored run of text blocks ([{text, citations?}]); user text is plain, one block. */
  static stored(blocks, { markdown }) {
    const view = new TextView({ markdown });
    view.tail.remove();
    view.element.dataset.blocks = String(blocks.length);
    if (markdown) {
      const text = blocks
        .map((block, i) => {
          const before = i === 0 ? "" : view.#separator(block);
          const markers = view.#markers(block.citations);
          view.lastCited = markers !== "";
          return before + String(block.text ?? "") + markers;
        })
        .join("");
      view.element.prepend(view.#rendered(text));
    } else {
      view.element.textContent = blocks.map((block) => String(block.text ?? "")).join("");
    }
    view.element.dataset.state = "done";
    return view;
  }

  /** The view a further text block of the same run feeds (live): the run's own methods. */
  continuation(block) {
    this.element.dataset.blocks = String(Number(this.element.dataset.blocks) + 1);
    const before = this.#separator(block);
    if (before) this.#feed(before);
    delete this.element.dataset.state;
    return {
      run: this,
      element: null, // drawn by the run's element
      delta: (delta) => this.delta(delta),
      render: () => this.render(),
      stop: (block) => this.stop(block),
      incomplete: () => this.incomplete(),
    };
  }

  delta(delta) {
    // citations_delta needs nothing here: the stop's block carries the citations folded.
    if (delta.type === "text_delta") this.#feed(delta.text ?? "");
  }

  #feed(text) {
    const frozen = this.splitter.push(text);
    if (frozen) this.frozen.push(frozen);
    this.tailDirty = true;
  }

  render() {
    if (this.frozen.length > 0) {
      // Rendered once, here, and never again: later frames only replace the tail.
      const segment = el("div", { className: "pg-md-frozen" });
      segment.append(this.#rendered(this.frozen.join("")));
      this.frozen = [];
      this.element.insertBefore(segment, this.tail);
    }
    if (this.tailDirty) {
      this.tailDirty = false;
      this.tail.replaceChildren(this.#rendered(this.splitter.tail));
    }
  }

  /**
   * What goes between the run's text so far and the next block: nothing beside a cited block
   * (the API cuts a sentence around each cited span, spaces included), a paragraph break
   * between two blocks without citations (separate texts, drawn apart before runs existed).
   */
  #separator(next) {
    return this.lastCited || Array.isArray(next?.citations) ? "" : "\n\n";
  }

  /** A block of the run ended: its citations' markers follow its text. */
  stop(block) {
    const markers = this.#markers(block?.citations);
    this.lastCited = markers !== "";
    if (markers) this.#feed(markers);
    this.element.dataset.state = "done";
  }

  incomplete() {
    this.element.dataset.state = "incomplete";
  }

  /** Number the citations (new ones join the source list); their marker text. */
  #markers(citations) {
    if (!Array.isArray(citations) || citations.length === 0) return "";
    const numbers = citations.map((citation) => {
      const { number, added } = this.citations.add(citation);
      if (added) this.#listSource(number, citation);
      return number;
    });
    return markerText(numbers);
  }

  #listSource(number, citation) {
    if (this.sources === null) {
      this.sources = el("ol", { className: "pg-sources" });
      this.sources.setAttribute("aria-label", "Sources");
      this.element.append(this.sources);
    }
    this.sources.append(sourceItem(number, citation));
  }

  /** Markdown (or plain text) rendered, then its citation markers made elements. */
  #rendered(text) {
    const fragment = renderMarkdownSafe(text);
    if (this.citations.size > 0) placeMarkers(fragment, this.citations.size);
    return fragment;
  }
}

/** One source: number, title (a link only for http/https), location, the cited text. */
function sourceItem(number, citation) {
  const source = citationSource(citation);
  const item = el("li", { className: "pg-source", dataset: { cite: String(number), kind: source.kind } });
  item.value = number;
  const title = source.url
    ? el("a", {
        className: "pg-source-title",
        text: source.title,
        attrs: { href: source.url, rel: "noopener noreferrer", target: "_blank" },
      })
    : el("span", { className: "pg-source-title", text: source.title });
  item.append(title);
  if (source.location) item.append(el("span", { className: "pg-source-location", text: source.location }));
  if (source.quote) item.append(el("blockquote", { className: "pg-source-quote", text: source.quote }));
  return item;
}

/** Replace marker text (citations.js) in the rendered fragment's text nodes with markers. */
function placeMarkers(fragment, count) {
  const walker = document.createTreeWalker(fragment, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const found = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const text = /** @type {Text} */ (node);
    if (text.data.includes(MARK_OPEN)) found.push(text);
  }
  for (const node of found) {
    const parts = splitMarkers(node.data).map((part) => {
      if (part.marker === undefined) return document.createTextNode(part.text);
      if (part.marker < 1 || part.marker > count) return document.createTextNode(markerText([part.marker]));
      return el("sup", { className: "pg-cite", text: `[${part.marker}]`, dataset: { cite: String(part.marker) } });
    });
    node.replaceWith(...parts);
  }
}
