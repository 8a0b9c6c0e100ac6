// The settings form's codecs (static/playground/settings-fields.js): each row of the settings
// table loaded into and collected from the form by its widget; a value not of its kind refused
// naming the field.
import assert from "node:assert/strict";
import { test } from "node:test";

import { FieldError, WIDGETS, collectFields, loadFields, readObject, showObject } from "../../static/playground/settings-fields.js";

/** A control as the codecs see one: its value is always text, as an input's is. */
function control(initial) {
  let text = String(initial);
  return {
    get value() {
      return text;
    },
    set value(value) {
      text = String(value);
    },
  };
}

/** A form whose controls are plain objects: what the codecs read and write. */
function form(values) {
  const elements = {};
  for (const [name, value] of Object.entries(values)) elements[name] = typeof value === "boolean" ? { checked: value } : control(value);
  return { elements };
}

// Each row's type is its value's JSON Schema (Setting.describe).
const ROWS = [
  { name: "model", widget: "model", type: { type: "string" } },
  { name: "max_tokens", widget: "integer", type: { type: "integer" } },
  { name: "temperature", widget: "number", type: { type: "number" } },
  { name: "stop_sequences", widget: "lines", type: { type: "array", items: { type: "string" } } },
  { name: "tool_choice", widget: "tool_choice", type: { type: "object" } },
  { name: "thinking", widget: "thinking", type: { type: "object" } },
  { name: "tier", widget: "choice", type: { type: "string", enum: ["fast", "slow"] } },
  { name: "extra_fields", widget: "extra_fields", type: { type: "object" } },
];

function blank() {
  return form({
    model: "", max_tokens: "", temperature: "", stop_sequences: "", tool_choice_type: "", tool_choice_name: "",
    disable_parallel_tool_use: false, thinking_type: "off", budget_tokens: "2048", tier: "", extra_fields: "",
  });
}

test("a loaded form collects back the settings it was given", () => {
  const settings = {
    model: "m",
    max_tokens: 2048,
    temperature: 0.5,
    stop_sequences: ["END", "STOP"],
    tool_choice: { type: "tool", name: "t", disable_parallel_tool_use: true },
    thinking: { type: "enabled", budget_tokens: 1024 },
    tier: "slow",
    extra_fields: { metadata: { user_id: "u-1" }, top_level: "auto" },
  };
  const context = { form: blank() };
  loadFields(context, ROWS, settings);
  assert.deepEqual(collectFields(context, ROWS), settings);
});

test("empty fields collect as the table's leave-it-out values", () => {
  assert.deepEqual(collectFields({ form: blank() }, ROWS), {
    model: "", max_tokens: null, temperature: null, stop_sequences: [], tool_choice: null, thinking: null, tier: null, extra_fields: {},
  });
});

test("an integer field holding a fraction is refused naming the field", () => {
  const context = { form: blank() };
  context.form.elements.max_tokens.value = "1.5";
  assert.throws(() => collectFields(context, ROWS), (error) => error instanceof FieldError && error.field === "max_tokens");
});

test("extra fields must be a JSON object, and the refusal names the field", () => {
  assert.deepEqual(readObject("extra_fields", '{"metadata": {"user_id": "u"}}'), { metadata: { user_id: "u" } });
  for (const text of ["[1]", "null", '"x"', "{not json"]) {
    assert.throws(() => readObject("extra_fields", text), (error) => error instanceof FieldError && error.field === "extra_fields", text);
  }
});

test("no extra fields show as an empty box", () => {
  assert.equal(showObject({}), "");
  assert.equal(showObject(null), "");
  assert.equal(showObject({ a: 1 }), '{\n  "a": 1\n}');
});

test("every widget has both halves of a codec", () => {
  for (const [name, codec] of Object.entries(WIDGETS)) {
    assert.equal(typeof codec.load, "function", name);
    assert.equal(typeof codec.collect, "function", name);
  }
});
