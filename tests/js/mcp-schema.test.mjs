// mcp-schema.js: a tool's input schema (objects and lists among its properties), a prompt's
// arguments and a resource template's URI as form fields, read back typed.
import assert from "node:assert/strict";
import { test } from "node:test";

import { argumentFields, fillTemplate, schemaContent, schemaFields, templateNames } from "../../static/playground/mcp-schema.js";

test("a property that is no primitive is JSON in a text box, read as JSON", () => {
  const fields = schemaFields({
    type: "object",
    properties: { query: { type: "string" }, filters: { type: "object" }, ids: { type: "array" }, limit: { type: ["integer", "null"] } },
    required: ["query", "filters"],
  });
  assert.deepEqual(fields.map((f) => [f.name, f.kind]), [["query", "text"], ["filters", "json"], ["ids", "json"], ["limit", "integer"]]);
  assert.deepEqual(schemaContent(fields, { query: "q", filters: "{not json" }), { error: "filters must be JSON (an object, a list, a number, \"text\" in quotes…)", field: "filters" });
  assert.deepEqual(schemaContent(fields, { query: "q", filters: '{"a": 1}', ids: "[1, 2]", limit: "" }), { content: { query: "q", filters: { a: 1 }, ids: [1, 2] } });
});

test("a prompt's arguments are text fields, the required ones named when empty", () => {
  const fields = argumentFields([{ name: "city", description: "Where", required: true }, { name: "style" }]);
  assert.deepEqual(schemaContent(fields, { city: "" }), { error: "city is required", field: "city" });
  assert.deepEqual(schemaContent(fields, { city: "Paris", style: "" }), { content: { city: "Paris" } });
});

test("a resource template names its arguments and is filled, each value encoded", () => {
  assert.deepEqual(templateNames("demo://resource/dynamic/text/{resourceId}"), ["resourceId"]);
  assert.deepEqual(templateNames("x://{a}/{+b}{?c,d}"), ["a", "b", "c", "d"]);
  assert.equal(fillTemplate("demo://resource/dynamic/text/{resourceId}", { resourceId: "a b/1" }), "demo://resource/dynamic/text/a%20b%2F1");
  assert.equal(fillTemplate("file:///{+path}", { path: "docs/read me.md" }), "file:///docs/read%20me.md");
  assert.equal(fillTemplate("x://q{?c,d}", { c: "1", d: "" }), "x://q?c=1");
});
