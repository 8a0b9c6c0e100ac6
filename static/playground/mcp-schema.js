// @ts-check
/**
 * A JSON Schema's properties as form fields, and a form's values typed back as the schema asks:
 * the one reading of a schema for every form MCP asks for (an elicitation's requested schema, a
 * tool's input schema when it is run by hand, a prompt's arguments, a resource template's).
 *
 * Rule: pure (no DOM). A primitive property gets its own input (text and its formats, number,
 * integer, boolean, a choice of `enum` or `oneOf` values); any other (an object, an array, a
 * property with no type) is JSON typed in a text box, read as JSON, so nothing a schema allows
 * is out of reach. A required field left empty is named, never sent as "".
 */

const FORMATS = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };

/** @typedef {{ name: string, label: string, help: string, kind: string, required: boolean, options: Array<{ value: string, label: string }>, value: any }} SchemaField */

/** A schema's properties as fields: {name, label, help, kind (text, email, url, date,
 * datetime-local, number, integer, boolean, choice, json), required, options [{value, label}],
 * value (its default)}. */
export function schemaFields(schema) {
  const properties = schema?.properties ?? {};
  const required = new Set(schema?.required ?? []);
  return Object.entries(properties).map(([name, raw]) => {
    const property = raw && typeof raw === "object" ? raw : {};
    const choices = property.enum ?? property.oneOf?.map((option) => option.const);
    const labels = property.enumNames ?? property.oneOf?.map((option) => option.title ?? option.const);
    const type = Array.isArray(property.type) ? property.type.find((t) => t !== "null") : property.type;
    let kind = "json";
    if (choices) kind = "choice";
    else if (type === "string") kind = FORMATS[property.format] ?? "text";
    else if (type === "boolean" || type === "integer" || type === "number") kind = type;
    return {
      name,
      label: property.title ?? name,
      help: property.description ?? "",
      kind,
      required: required.has(name),
      options: choices ? choices.map((value, index) => ({ value: String(value), label: String(labels?.[index] ?? value) })) : [],
      value: property.default,
    };
  });
}

/** A prompt's (or a resource template's) arguments as text fields: [{name, description,
 * required}] → fields. */
export function argumentFields(args) {
  return (args ?? []).map((arg) => ({
    name: String(arg.name),
    label: arg.title ?? String(arg.name),
    help: arg.description ?? "",
    kind: "text",
    required: arg.required === true,
    options: [],
    value: undefined,
  }));
}

/** The names a URI template (RFC 6570, as MCP's resource templates write them) asks for:
 * "file:///{path}" → ["path"], "x://{a}/{+b}{?c,d}" → ["a", "b", "c", "d"]. */
export function templateNames(template) {
  const names = [];
  for (const [, expression] of String(template ?? "").matchAll(/\{([^}]+)\}/g)) {
    for (const part of expression.replace(/^[+#./;?&]/, "").split(",")) {
      const name = part.replace(/[*]$/, "").replace(/:\d+$/, "");
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** A URI template filled with `values` (simple and reserved expansion, and query forms). */
export function fillTemplate(template, values) {
  return String(template ?? "").replace(/\{([^}]+)\}/g, (_, expression) => {
    const operator = /^[+#./;?&]/.test(expression) ? expression[0] : "";
    const names = (operator ? expression.slice(1) : expression).split(",").map((part) => part.replace(/[*]$/, "").replace(/:\d+$/, ""));
    const encode = (value) => (operator === "+" || operator === "#" ? encodeURI(value) : encodeURIComponent(value));
    const present = names.filter((name) => values[name] !== undefined && values[name] !== "");
    if (operator === "?" || operator === "&") {
      const pairs = present.map((name) => `${name}=${encodeURIComponent(values[name])}`);
      return pairs.length ? `${operator}${pairs.join("&")}` : "";
    }
    const joined = present.map((name) => encode(String(values[name]))).join(",");
    if (!joined) return "";
    return operator === "+" || operator === "" ? joined : `${operator === "#" ? "#" : operator}${joined}`;
  });
}

/** The form's raw values (strings, and booleans for checkboxes) typed as the fields ask:
 * {content} to send, or {error, field} naming the first field that cannot be sent. */
export function schemaContent(fields, raw) {
  const content = {};
  for (const field of fields) {
    const value = raw[field.name];
    if (field.kind === "boolean") {
      content[field.name] = Boolean(value);
      continue;
    }
    if (value === undefined || value === "") {
      if (field.required) return { error: `${field.label} is required`, field: field.name };
      continue;
    }
    if (field.kind === "number" || field.kind === "integer") {
      const number = Number(value);
      if (!Number.isFinite(number) || (field.kind === "integer" && !Number.isInteger(number))) return { error: `${field.label} must be ${field.kind === "integer" ? "a whole number" : "a number"}`, field: field.name };
      content[field.name] = number;
    } else if (field.kind === "json") {
      try {
        content[field.name] = JSON.parse(String(value));
      } catch {
        return { error: `${field.label} must be JSON (an object, a list, a number, "text" in quotes…)`, field: field.name };
      }
    } else content[field.name] = String(value);
  }
  return { content };
}
