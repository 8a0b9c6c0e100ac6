// @ts-check
/**
 * Structured output checked on the turn: the answer's text against the schema it was asked to
 * follow (the conversation's `output_config`), while it streams and once it is whole.
 *
 * Rule: the same validator as the tool inputs (render/schema.js, @cfworker/json-schema) and
 * the same partial JSON reader (render/partial-json.js). While streaming, only what more text
 * cannot mend is a failure: text that stops being JSON, and problems of the values already
 * complete, save those that later text may still fix (a required field not yet sent, a list
 * still short). At the end the whole text is parsed and checked. Failures are named by JSON
 * path (`$.items[2].name`) and drawn through textContent: an answer is untrusted text.
 * State for tests and CSS: .output-check[data-output-check="fits|failed|streaming"].
 */

import { IncrementalJsonParser } from "./render/partial-json.js";
import { validateAgainstSchema } from "./render/schema.js";
import { schemaOf } from "./output-schema-editor.js";

// Problems a value still streaming may yet lose: more fields, items or characters to come.
const NOT_YET = new Set(["missing", "required", "minItems", "minProperties", "minLength", "minContains", "dependentRequired"]);

/** The answer's text: its text blocks, joined (thinking and tool calls are not the answer). */
export function answerText(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((block) => block?.type === "text").map((block) => block.text ?? "").join("");
}

/** {state: "fits"|"failed"|"streaming", problems: [{path, message}]} of `text` against
 * `schema`; `partial`: the text is still streaming. */
export function checkOutput(text, schema, { partial = false } = {}) {
  const parser = new IncrementalJsonParser();
  parser.feed(text);
  if (parser.error !== null) {
    return { state: "failed", problems: [{ path: "$", message: `not JSON: ${parser.error.message} (at character ${parser.error.offset})` }] };
  }
  if (partial && !parser.done) {
    const known = parser.value({ trailingStrings: false });
    const problems = known === undefined ? [] : validateAgainstSchema(known, schema).filter((p) => !NOT_YET.has(p.problem));
    return { state: problems.length ? "failed" : "streaming", problems: problems.map(({ path, message }) => ({ path, message })) };
  }
  if (!parser.done) return { state: "failed", problems: [{ path: "$", message: "the JSON stops before its end" }] };
  const problems = validateAgainstSchema(JSON.parse(text), schema);
  return { state: problems.length ? "failed" : "fits", problems: problems.map(({ path, message }) => ({ path, message })) };
}

const HEADINGS = {
  fits: "Fits the output schema",
  streaming: "Output schema: checking as it streams",
  failed: "Does not fit the output schema",
};

/** Draw (or redraw) `result` in `holder`'s .output-check. */
export function showOutputCheck(holder, result) {
  let box = holder.querySelector(":scope > .output-check");
  if (!box) {
    box = document.createElement("div");
    box.className = "output-check";
    box.setAttribute("role", "status");
    holder.append(box);
  }
  box.dataset.outputCheck = result.state;
  const heading = document.createElement("p");
  heading.className = "output-check-head";
  heading.textContent = HEADINGS[result.state];
  const list = document.createElement("ul");
  for (const { path, message } of result.problems) {
    const item = document.createElement("li");
    const code = document.createElement("code");
    code.textContent = path;
    item.append(code, ` ${message}`);
    list.append(item);
  }
  box.replaceChildren(heading, ...(result.problems.length ? [list] : []));
}

/** The schema of a conversation's settings, or null (re-exported for the page's wiring). */
export function outputSchemaOf(settings) {
  return schemaOf(settings?.output_config);
}
