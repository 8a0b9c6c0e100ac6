// Citations: what a source shows, which links are offered, marker text and numbering
// (static/playground/render/citations.js; issue 29 item 1 and 7).
import assert from "node:assert/strict";
import { test } from "node:test";

import {
  CitationNumbers,
  citationLocation,
  citationSource,
  markerText,
  safeHttpUrl,
  splitMarkers,
} from "../../static/playground/render/citations.js";

test("only absolute http and https URLs are links", () => {
  assert.equal(safeHttpUrl("https://tides.example/week"), "https://tides.example/week");
  assert.equal(safeHttpUrl("HTTP://Tides.Example"), "http://tides.example/");
  const refused = [
    "javascript:alert(1)",
    " JaVaScRiPt:alert(1)",
    "java\tscript:alert(1)",
    "java\nscript:alert(1)",
    "\u0000javascript:alert(1)",
    "javascript&#58;alert(1)",
    "javascript&colon;alert(1)",
    "&#106;avascript:alert(1)",
    "javascript%3Aalert(1)",
    "%6Aavascript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/",
    "/relative",
    "",
    null,
    42,
  ];
  for (const url of refused) assert.equal(safeHttpUrl(url), null, JSON.stringify(url));
});

test("each location type is named in words, index ranges ending exclusive", () => {
  const cases = [
    [{ type: "char_location", start_char_index: 120, end_char_index: 171 }, "characters 120–170"],
    [{ type: "char_location", start_char_index: 4, end_char_index: 5 }, "character 4"],
    [{ type: "page_location", start_page_number: 3, end_page_number: 4 }, "pages 3–4"],
    [{ type: "page_location", start_page_number: 3, end_page_number: 3 }, "page 3"],
    [{ type: "content_block_location", start_block_index: 1, end_block_index: 2 }, "block 1"],
    [
      { type: "search_result_location", search_result_index: 0, start_block_index: 0, end_block_index: 2 },
      "search result 0, blocks 0–1",
    ],
    [{ type: "web_search_result_location", url: "https://a.example" }, ""],
    [{ type: "sim_future_location" }, ""],
  ];
  for (const [citation, words] of cases) assert.equal(citationLocation(citation), words, citation.type);
});

test("a source shows its title, or its URL as text, never a link that is not http(s)", () => {
  const doc = citationSource({
    type: "char_location",
    cited_text: "<b>High</b> *tide*",
    document_index: 0,
    document_title: "Tide <b>tables</b>",
  });
  assert.deepEqual(doc, {
    title: "Tide <b>tables</b>",
    url: null,
    location: "",
    quote: "<b>High</b> *tide*",
    kind: "char_location",
  });
  const untitled = citationSource({ type: "page_location", document_index: 2, document_title: null });
  assert.equal(untitled.title, "Document 2");
  const search = citationSource({ type: "search_result_location", source: "javascript:alert(1)", title: "" });
  assert.equal(search.url, null);
  assert.equal(search.title, "javascript:alert(1)");
  const web = citationSource({ type: "web_search_result_location", url: "https://t.example/w", title: "Tides" });
  assert.equal(web.url, "https://t.example/w");
});

test("the same citation keeps its number; markers round-trip, a stray mark stays text", () => {
  const numbers = new CitationNumbers();
  const a = { type: "page_location", start_page_number: 1 };
  assert.deepEqual(numbers.add(a), { number: 1, added: true });
  assert.deepEqual(numbers.add({ type: "page_location", start_page_number: 2 }), { number: 2, added: true });
  assert.deepEqual(numbers.add({ ...a }), { number: 1, added: false });
  assert.equal(numbers.size, 2);

  const text = `tide${markerText([1, 2])} and \uE000x\uE001`;
  assert.deepEqual(splitMarkers(text), [{ text: "tide" }, { marker: 1 }, { marker: 2 }, { text: " and \uE000x\uE001" }]);
});
