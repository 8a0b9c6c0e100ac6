// Search on the page (static/playground/search.js): the words of a query, as the server reads
// them (playground/conversations/search.py), and the words of a text they start.
import assert from "node:assert/strict";
import { test } from "node:test";

import { matchRanges, queryOf, termsOf } from "../../static/playground/search.js";

test("terms: words of any script, lower-cased, each once; punctuation is no syntax", () => {
  assert.deepEqual(termsOf('Volcano, volcano; ICE-land ü "AND" (a*)'), ["volcano", "ice", "land", "ü", "and", "a"]);
  assert.deepEqual(termsOf(""), []);
  assert.equal(termsOf("a b c d e f g h i j").length, 8);
});

test("ranges: whole words a term starts, case aside, never mid-word", () => {
  const text = "Volcanoes erupt; a volcano. Supervolcano!";
  assert.deepEqual(matchRanges(text, ["volc"]), [[0, 9], [19, 26]]);
  assert.deepEqual(matchRanges("Über über", ["über"]), [[0, 4], [5, 9]]);
  assert.deepEqual(matchRanges("nothing", []), []);
});

test("the query a result link carries", () => {
  assert.equal(queryOf("?q=volcano%20ice"), "volcano ice");
  assert.equal(queryOf(""), "");
});
