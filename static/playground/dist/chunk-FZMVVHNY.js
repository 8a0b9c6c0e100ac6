// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/mcp-schema.js
var FORMATS = { email: "email", uri: "url", date: "date", "date-time": "datetime-local" };
function schemaFields(schema) {
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
      value: property.default
    };
  });
}
function argumentFields(args) {
  return (args ?? []).map((arg) => ({
    name: String(arg.name),
    label: arg.title ?? String(arg.name),
    help: arg.description ?? "",
    kind: "text",
    required: arg.required === true,
    options: [],
    value: void 0
  }));
}
function templateNames(template) {
  const names = [];
  for (const [, expression] of String(template ?? "").matchAll(/\{([^}]+)\}/g)) {
    for (const part of expression.replace(/^[+#./;?&]/, "").split(",")) {
      const name = part.replace(/[*]$/, "").replace(/:\d+$/, "");
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}
function fillTemplate(template, values) {
  return String(template ?? "").replace(/\{([^}]+)\}/g, (_, expression) => {
    const operator = /^[+#./;?&]/.test(expression) ? expression[0] : "";
    const names = (operator ? expression.slice(1) : expression).split(",").map((part) => part.replace(/[*]$/, "").replace(/:\d+$/, ""));
    const encode = (value) => operator === "+" || operator === "#" ? encodeURI(value) : encodeURIComponent(value);
    const present = names.filter((name) => values[name] !== void 0 && values[name] !== "");
    if (operator === "?" || operator === "&") {
      const pairs = present.map((name) => `${name}=${encodeURIComponent(values[name])}`);
      return pairs.length ? `${operator}${pairs.join("&")}` : "";
    }
    const joined = present.map((name) => encode(String(values[name]))).join(",");
    if (!joined) return "";
    return operator === "+" || operator === "" ? joined : `${operator === "#" ? "#" : operator}${joined}`;
  });
}
function schemaContent(fields, raw) {
  const content = {};
  for (const field of fields) {
    const value = raw[field.name];
    if (field.kind === "boolean") {
      content[field.name] = Boolean(value);
      continue;
    }
    if (value === void 0 || value === "") {
      if (field.required) return { error: `${field.label} is required`, field: field.name };
      continue;
    }
    if (field.kind === "number" || field.kind === "integer") {
      const number = Number(value);
      if (!Number.isFinite(number) || field.kind === "integer" && !Number.isInteger(number)) return { error: `${field.label} must be ${field.kind === "integer" ? "a whole number" : "a number"}`, field: field.name };
      content[field.name] = number;
    } else if (field.kind === "json") {
      try {
        content[field.name] = JSON.parse(String(value));
      } catch {
        return { error: `${field.label} must be JSON (an object, a list, a number, "text" in quotes\u2026)`, field: field.name };
      }
    } else content[field.name] = String(value);
  }
  return { content };
}

export {
  schemaFields,
  argumentFields,
  templateNames,
  fillTemplate,
  schemaContent
};
