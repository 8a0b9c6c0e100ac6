// @ts-check
/**
 * The structured output editor: the JSON Schema the answer must follow, edited beside the tools
 * in the same kind of box, checked as you type.
 *
 * Rule: the box holds the schema alone; the setting is `output_config` = {format: {type:
 * "json_schema", schema}} (both Anthropic's and FriendliAI's Messages APIs take that form).
 * It checks shape only (JSON, an object with a "type"); the server stays the judge on save. An
 * empty box means no structured output (null). Errors are shown through textContent.
 */

import { one } from "./dom.js";

/** The output_config a schema stands for (null for none). */
export function outputConfigOf(schema) {
  return schema ? { format: { type: "json_schema", schema } } : null;
}

/** The schema an output_config holds (null for none). */
export function schemaOf(outputConfig) {
  const format = outputConfig?.format;
  return format?.type === "json_schema" && format.schema && typeof format.schema === "object" ? format.schema : null;
}

export class OutputSchemaEditor {
  #textarea;
  #status;

  constructor(root, { onChange = () => {} } = {}) {
    this.#textarea = one(root, "[data-output-schema]");
    this.#status = one(root, "[data-output-schema-status]");
    this.#textarea.addEventListener("input", () => {
      this.check();
      onChange();
    });
  }

  setValue(outputConfig) {
    const schema = schemaOf(outputConfig);
    this.#textarea.value = schema ? JSON.stringify(schema, null, 2) : "";
    this.check();
  }

  /** {ok, value (the output_config or null), problems}. */
  check() {
    const text = this.#textarea.value.trim();
    /** @type {{ ok: boolean, value: { format: { type: string, schema: unknown } } | null | undefined, problems: { path: string, message: string }[] }} */
    let result = { ok: true, value: null, problems: [] };
    if (text) {
      try {
        const schema = JSON.parse(text);
        const isObject = schema !== null && typeof schema === "object" && !Array.isArray(schema);
        result = isObject && (typeof schema.type === "string" || Array.isArray(schema.type))
          ? { ok: true, value: outputConfigOf(schema), problems: [] }
          : { ok: false, value: undefined, problems: [{ path: "schema", message: 'a JSON Schema object with a "type", e.g. {"type": "object", …}' }] };
      } catch (error) {
        result = { ok: false, value: undefined, problems: [{ path: "schema", message: `invalid JSON: ${error.message}` }] };
      }
    }
    this.#textarea.setAttribute("aria-invalid", result.ok ? "false" : "true");
    this.#status.dataset.state = result.ok ? "ok" : "error";
    this.#status.textContent = result.ok
      ? result.value ? "The answer must be JSON that fits this schema." : "No structured output: the answer is free text."
      : result.problems.map((p) => `${p.path}: ${p.message}`).join("\n");
    return result;
  }
}
