// @ts-check
/**
 * A form drawn from fields (mcp-schema.js): one labelled input per field, read back typed.
 *
 * Rule: the fields' words (titles, descriptions: a server's text) go in as text only. Each input
 * carries `data-field="<name>"` (and `data-<prefix>-field` for the form's own tests); a field
 * that cannot be read is focused and named by `read()`.
 */

import { el } from "./dom.js";
import { schemaContent } from "./mcp-schema.js";

const INPUT_TYPES = { integer: "number", number: "number", email: "email", url: "url", date: "date", "datetime-local": "datetime-local" };

/**
 * @param {import("./mcp-schema.js").SchemaField[]} fields
 * @param {{ prefix?: string, values?: Record<string, any> }} [options]
 * @returns {{ element: HTMLElement, read: () => { content?: Record<string, any>, error?: string, field?: string }, disable: () => void }}
 */
export function schemaForm(fields, { prefix = "form", values = {} } = {}) {
  const inputs = new Map();
  const element = el("div", { className: "mcp-form" });
  for (const field of fields) {
    /** @type {HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement} */
    let input;
    const start = values[field.name] ?? field.value;
    if (field.kind === "choice") {
      input = el("select", { className: "input input-small" }, ...(field.required ? [] : [el("option", { text: "—", attrs: { value: "" } })]), ...field.options.map((option) => el("option", { text: option.label, attrs: { value: option.value } })));
      if (start !== undefined) input.value = String(start);
    } else if (field.kind === "boolean") {
      input = el("input", { attrs: { type: "checkbox" } });
      /** @type {HTMLInputElement} */ (input).checked = start === true;
    } else if (field.kind === "json") {
      input = el("textarea", { className: "input mono", attrs: { rows: "2", spellcheck: "false" } });
      if (start !== undefined) input.value = JSON.stringify(start);
    } else {
      input = el("input", { className: "input input-small", attrs: { type: INPUT_TYPES[field.kind] ?? "text", ...(field.kind === "number" ? { step: "any" } : {}) } });
      if (start !== undefined) input.value = String(start);
    }
    input.dataset.field = field.name;
    input.dataset[`${prefix}Field`] = field.name;
    inputs.set(field.name, input);
    const label = `${field.label}${field.required ? " *" : ""}${field.kind === "json" ? " (JSON)" : ""}`;
    element.append(el("label", { className: field.kind === "boolean" ? "check" : "field" }, el("span", { text: label }), input, el("span", { className: "muted", text: field.help })));
  }
  return {
    element,
    read() {
      const raw = Object.fromEntries([...inputs].map(([name, input]) => [name, input.type === "checkbox" ? input.checked : input.value]));
      const read = schemaContent(fields, raw);
      if (read.error) inputs.get(read.field)?.focus();
      return read;
    },
    disable() {
      for (const input of inputs.values()) input.disabled = true;
    },
  };
}
