// @ts-check
/**
 * Check a tool call's final input against the tool's `input_schema`: an adapter over the
 * vendored validator (@cfworker/json-schema, draft 2020-12, no eval, so the strict CSP holds).
 *
 * Rule: report, never reject. Every keyword the validator knows is checked (anyOf, oneOf,
 * $ref/$defs, minimum, maximum, pattern, maxLength, maxItems, format…): pydantic's Optional
 * (anyOf with null) and nested models ($defs) included. One house rule on top: unknown keys are
 * flagged whenever a schema lists `properties` and says nothing about others (no
 * additionalProperties, patternProperties or unevaluatedProperties), where it stands alone
 * (not beside or inside allOf, if/then/else, not): a model inventing an argument is worth
 * seeing even when the schema is lax. The caller's schema is never changed (it is copied).
 *
 * Each problem is {path, problem, message}: path like `$.items[2].name`; problem "missing",
 * "extra", "type", "enum", "const", the JSON Schema keyword that failed ("maximum", "pattern",
 * "anyOf", …), or "schema" when the schema itself cannot be used (an unresolved $ref).
 */

// One module, made from the vendored package's nine (playground/vendor_bundle.py): one request
// at open instead of nine.
import {
  dereference,
  schemaArrayKeyword,
  schemaKeyword,
  schemaMapKeyword,
  validate,
} from "../../vendor/cfworker-json-schema/bundle.js";

const DRAFT = "2020-12";
// A fixed base, so a "#/$defs/X" reference resolves the same on every page (and in node).
const BASE = new URL("https://schema.invalid/input_schema");
const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;

// Where a subschema is checked beside its siblings: closing it would refuse their keys.
const SHARED = new Set(["allOf", "if", "then", "else", "not", "dependentSchemas", "propertyNames"]);
const COMBINED = ["allOf", "anyOf", "oneOf", "$ref", "if", "dependentSchemas"];
const OPEN_KEYS = ["additionalProperties", "patternProperties", "unevaluatedProperties"];
// Errors that only say "something below failed": their own entries follow them.
const PASS_THROUGH = new Set([
  "properties", "patternProperties", "additionalProperties", "unevaluatedProperties", "items",
  "prefixItems", "additionalItems", "unevaluatedItems", "$ref", "$recursiveRef", "allOf",
  "dependentSchemas", "if",
]);
// Errors that stand for their subschemas' errors: one problem, what is below is summarised.
const GROUPS = new Set(["anyOf", "oneOf", "not", "contains", "propertyNames"]);
const SUMMARISED = 3; // how many of a group's errors its message quotes

/**
 * One error as the validator reports it (its `OutputUnit`), and one problem as we report it.
 * @typedef {{keyword: string, keywordLocation: string, instanceLocation: string, error: string}} ValidatorError
 * @typedef {{path: string, problem: string, message: string}} Problem
 */

// The validator's keyword tables, looked up by any key of a schema.
const MAP_KEYWORDS = /** @type {Record<string, boolean | undefined>} */ (schemaMapKeyword);
const SCHEMA_KEYWORDS = /** @type {Record<string, boolean | undefined>} */ (schemaKeyword);
const ARRAY_KEYWORDS = /** @type {Record<string, boolean | undefined>} */ (schemaArrayKeyword);

/** @param {unknown} value @returns {value is Record<string, any>} */
function isObject(value) {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** @param {object} object @param {string} key */
const hasOwn = (object, key) => Object.prototype.hasOwnProperty.call(object, key);

/**
 * A copy of `schema` with the house's closed objects (see the module rule).
 * @param {unknown} schema @param {boolean} [shared] @returns {unknown}
 */
function closed(schema, shared = false) {
  if (Array.isArray(schema)) return schema.map((item) => closed(item, shared));
  if (!isObject(schema)) return schema;
  /** @type {Record<string, unknown>} */
  const copy = {};
  for (const [key, value] of Object.entries(schema)) {
    if (MAP_KEYWORDS[key] && isObject(value)) {
      copy[key] = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, closed(sub, key === "dependentSchemas")]),
      );
    } else if (SCHEMA_KEYWORDS[key] || ARRAY_KEYWORDS[key]) {
      copy[key] = closed(value, SHARED.has(key));
    } else {
      copy[key] = value; // data (enum, const, default, examples): kept as it is
    }
  }
  const lonely = !shared && !COMBINED.some((key) => hasOwn(schema, key));
  if (lonely && isObject(schema.properties) && !OPEN_KEYS.some((key) => hasOwn(schema, key))) {
    copy.additionalProperties = false;
  }
  return copy;
}

/** @param {unknown} value */
function typeName(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** "#/items/2/name" (a JSON pointer as the validator writes it) -> "$.items[2].name". */
/** @param {string} pointer @param {unknown} instance */
function readablePath(pointer, instance) {
  let path = "$";
  /** @type {any} */
  let value = instance;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    if (Array.isArray(value)) path += `[${key}]`;
    else path += IDENTIFIER.test(key) ? `.${key}` : `[${JSON.stringify(key)}]`;
    value = value?.[Array.isArray(value) ? Number(key) : key];
  }
  return path;
}

/** @param {string} pointer @param {unknown} instance */
function valueAt(pointer, instance) {
  /** @type {any} */
  let value = instance;
  for (const raw of pointer.replace(/^#/, "").split("/").slice(1)) {
    const key = decodeURIComponent(raw).replaceAll("~1", "/").replaceAll("~0", "~");
    value = value?.[Array.isArray(value) ? Number(key) : key];
  }
  return value;
}

/** @param {string} pointer @param {string} key */
function child(pointer, key) {
  return `${pointer}/${encodeURIComponent(key.replaceAll("~", "~0").replaceAll("/", "~1"))}`;
}

/**
 * One validator error as {at (its pointer), problem, message}.
 * @param {ValidatorError} error @param {ValidatorError | undefined} previous @param {unknown} instance
 */
function problemOf(error, previous, instance) {
  const { keyword, instanceLocation: at } = error;
  if (keyword === "required") {
    const name = /property "(.*)"\.$/s.exec(error.error)?.[1] ?? "";
    return { at: child(at, name), problem: "missing", message: "required field is missing" };
  }
  if (keyword === "false") {
    const extra =
      previous !== undefined && ["additionalProperties", "unevaluatedProperties"].includes(previous.keyword);
    return extra
      ? { at, problem: "extra", message: "not in the schema" }
      : { at, problem: "false", message: "no value is allowed here" };
  }
  if (keyword === "type") {
    const expected = /Expected "(.*)"\.$/s.exec(error.error)?.[1]?.split('", "') ?? [];
    const got = typeName(valueAt(at, instance));
    return { at, problem: "type", message: `expected ${expected.join(" or ")}, got ${got}` };
  }
  const text = error.error.replace(/^Instance /, "").replace(/\.$/, "");
  return { at, problem: keyword, message: text.charAt(0).toLowerCase() + text.slice(1) };
}

/**
 * The problems of `value` against `schema` (an empty list when it fits).
 * @param {unknown} value @param {unknown} schema @returns {Problem[]}
 */
export function validateAgainstSchema(value, schema) {
  if (!isObject(schema) && typeof schema !== "boolean") return [];
  /** @type {ValidatorError[]} */
  let errors;
  try {
    const copy = closed(schema);
    errors = validate(value, copy, DRAFT, dereference(copy, Object.create(null), BASE), false).errors;
  } catch (error) {
    // An unresolved $ref, a pattern that is no regular expression, a value JSON cannot hold.
    const reason = error instanceof Error ? error.message : String(error);
    return [{ path: "$", problem: "schema", message: `the schema could not be checked: ${reason.split("\n")[0]}` }];
  }
  /** @type {Problem[]} */
  const problems = [];
  /** @type {{location: string, below: string[], entry: {path: string, problem: string, message: string}} | null} */
  let group = null; // an anyOf/oneOf/… problem whose subschemas' errors are summarised into it
  const close = () => {
    if (group?.below.length) group.entry.message += ` (${group.below.join("; ")})`;
    group = null;
  };
  for (const [index, error] of errors.entries()) {
    const previous = errors[index - 1];
    // The validator writes a false schema's location as the instance's: take its parent's.
    const location = error.keyword === "false" ? (previous?.keywordLocation ?? "") : error.keywordLocation;
    if (group !== null && location.startsWith(`${group.location}/`)) {
      if (!PASS_THROUGH.has(error.keyword) && group.below.length < SUMMARISED) {
        const below = problemOf(error, previous, value);
        const where = readablePath(below.at, value);
        group.below.push(where === group.entry.path ? below.message : `${where}: ${below.message}`);
      }
      continue;
    }
    close();
    if (PASS_THROUGH.has(error.keyword)) continue;
    const problem = problemOf(error, previous, value);
    const entry = { path: readablePath(problem.at, value), problem: problem.problem, message: problem.message };
    if (error.keyword === "anyOf") entry.message = "matches none of the allowed schemas";
    problems.push(entry);
    if (GROUPS.has(error.keyword)) group = { location: error.keywordLocation, below: [], entry };
  }
  close();
  return problems;
}
