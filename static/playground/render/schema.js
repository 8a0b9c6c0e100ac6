/**
 * Check a tool call's final input against the tool's `input_schema`.
 *
 * Rule: report, never reject. The subset of JSON Schema that tool schemas use in practice is
 * checked (type, required, properties, additionalProperties, items, enum, const); keywords we
 * do not know are ignored rather than guessed at. Unknown keys are flagged whenever the schema
 * lists `properties` and does not allow others explicitly (additionalProperties true or a
 * schema): a model inventing an argument is worth seeing even when the schema is lax.
 *
 * Each problem is {path, problem, message}: path like `$.items[2].name`, problem one of
 * "missing", "extra", "type", "enum", "const".
 */

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

function child(path, key) {
  return typeof key === "number"
    ? `${path}[${key}]`
    : IDENTIFIER.test(key)
      ? `${path}.${key}`
      : `${path}[${JSON.stringify(key)}]`;
}

function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function matchesType(value, type) {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "object":
      return isObject(value);
    case "array":
      return Array.isArray(value);
    case "null":
      return value === null;
    default:
      return true; // a type we do not know is not held against the model
  }
}

function sameValue(a, b) {
  return JSON.stringify(a) === JSON.stringify(b);
}

const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

function check(value, schema, path, problems) {
  if (!isObject(schema)) return;
  if (schema.type !== undefined) {
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    if (!types.some((type) => matchesType(value, type))) {
      problems.push({
        path,
        problem: "type",
        message: `expected ${types.join(" or ")}, got ${typeName(value)}`,
      });
      return; // the value's own fields mean little once its type is wrong
    }
  }
  if (Array.isArray(schema.enum) && !schema.enum.some((choice) => sameValue(choice, value))) {
    problems.push({
      path,
      problem: "enum",
      message: `must be one of ${schema.enum.map((c) => JSON.stringify(c)).join(", ")}`,
    });
  }
  if (hasOwn(schema, "const") && !sameValue(schema.const, value)) {
    problems.push({ path, problem: "const", message: `must be ${JSON.stringify(schema.const)}` });
  }
  if (isObject(value)) {
    const properties = isObject(schema.properties) ? schema.properties : null;
    for (const name of Array.isArray(schema.required) ? schema.required : []) {
      if (!hasOwn(value, name)) {
        problems.push({
          path: child(path, name),
          problem: "missing",
          message: "required field is missing",
        });
      }
    }
    const extra = schema.additionalProperties;
    for (const key of Object.keys(value)) {
      if (properties !== null && hasOwn(properties, key)) {
        check(value[key], properties[key], child(path, key), problems);
      } else if (isObject(extra)) {
        check(value[key], extra, child(path, key), problems);
      } else if (extra === false || (properties !== null && extra !== true)) {
        problems.push({ path: child(path, key), problem: "extra", message: "not in the schema" });
      }
    }
  }
  if (Array.isArray(value) && isObject(schema.items)) {
    value.forEach((item, index) => check(item, schema.items, child(path, index), problems));
  }
}

/** The problems of `value` against `schema` (an empty list when it fits). */
export function validateAgainstSchema(value, schema) {
  const problems = [];
  check(value, schema, "$", problems);
  return problems;
}
