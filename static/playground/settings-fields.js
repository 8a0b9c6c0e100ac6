// @ts-check
/**
 * The settings form's fields, one codec per widget of the settings table
 * (``protocol/settings_table.py``): the server renders the table's rows into the page's data
 * (``settings_form``: name, widget, type as a JSON Schema, default), and the settings panel loads and collects
 * each row through the codec its widget names, so a setting added to the table needs no new
 * line here unless it brings a new kind of control.
 *
 * Rule: a codec only turns a form's controls into the API's JSON and back; a value that is not
 * even of its kind (no number, no JSON object) is refused with a FieldError naming the field,
 * and everything else is judged by the server.
 */

export class FieldError extends Error {
  constructor(field, message) {
    super(message);
    this.field = field;
  }
}

function optionalNumber(form, name, { integer }) {
  const raw = form.elements[name].value.trim();
  if (raw === "") return null;
  const value = Number(raw);
  if (!Number.isFinite(value) || (integer && !Number.isInteger(value))) {
    throw new FieldError(name, `expected ${integer ? "an integer" : "a number"}, got ${JSON.stringify(raw)}`);
  }
  return value;
}

function problems(name, result) {
  return new FieldError(name, result.problems.map((p) => `${p.path}: ${p.message}`).join("; "));
}

/** A JSON object typed in a textarea: {} when empty, FieldError when it is not one. */
export function readObject(name, text) {
  if (text.trim() === "") return {};
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new FieldError(name, `not valid JSON: ${error.message}`);
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new FieldError(name, "expected a JSON object {\"name\": value, …}");
  }
  return value;
}

/** What the textarea shows for an object: nothing for {}, else indented JSON. */
export function showObject(value) {
  return value && Object.keys(value).length ? JSON.stringify(value, null, 2) : "";
}

const text = {
  load: ({ form }, row, value) => {
    form.elements[row.name].value = value ?? "";
  },
  collect: ({ form }, row) => form.elements[row.name].value,
};

const number = {
  load: ({ form }, row, value) => {
    form.elements[row.name].value = value ?? "";
  },
  collect: ({ form }, row) => optionalNumber(form, row.name, { integer: row.type.type === "integer" }),
};

/** Widget → { load(context, row, value), collect(context, row) }; context: { form, tools, output }. */
export const WIDGETS = {
  profile: text,
  model: { load: text.load, collect: ({ form }, row) => form.elements[row.name].value.trim() },
  textarea: text,
  integer: number,
  number,
  // One of the row's choices (its JSON Schema's enum); "" is unset (null).
  choice: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = value ?? "";
    },
    collect: ({ form }, row) => form.elements[row.name].value || null,
  },
  lines: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = (value ?? []).join("\n");
    },
    collect: ({ form }, row) => form.elements[row.name].value.split("\n").filter((line) => line !== ""),
  },
  thinking: {
    load: ({ form }, row, thinking) => {
      const type = thinking?.type === "enabled" || thinking?.type === "adaptive" ? thinking.type : "off";
      form.elements.thinking_type.value = type;
      if (thinking?.budget_tokens) form.elements.budget_tokens.value = thinking.budget_tokens;
    },
    collect: ({ form }, row) => {
      const type = form.elements.thinking_type.value;
      if (type === "adaptive") return { type: "adaptive" };
      if (type !== "enabled") return null;
      const budget = optionalNumber(form, "budget_tokens", { integer: true });
      if (budget === null) throw new FieldError(row.name, "enabled thinking needs a budget");
      return { type: "enabled", budget_tokens: budget };
    },
  },
  tools: {
    load: ({ tools }, row, value) => tools.setValue(value ?? []),
    collect: ({ tools }, row) => {
      const result = tools.check();
      if (!result.ok) throw problems(row.name, result);
      return result.value;
    },
  },
  output_config: {
    load: ({ output }, row, value) => output.setValue(value ?? null),
    collect: ({ output }, row) => {
      const result = output.check();
      if (!result.ok) throw problems(row.name, result);
      return result.value;
    },
  },
  tool_choice: {
    load: ({ form }, row, choice) => {
      const f = form.elements;
      f.tool_choice_type.value = choice?.type ?? "";
      f.tool_choice_name.value = choice?.name ?? "";
      f.disable_parallel_tool_use.checked = choice?.disable_parallel_tool_use === true;
    },
    collect: ({ form }) => {
      const f = form.elements;
      const type = f.tool_choice_type.value;
      if (!type) return null;
      const choice = { type };
      if (type === "tool") choice.name = f.tool_choice_name.value.trim();
      if (f.disable_parallel_tool_use.checked && type !== "none") choice.disable_parallel_tool_use = true;
      return choice;
    },
  },
  extra_fields: {
    load: ({ form }, row, value) => {
      form.elements[row.name].value = showObject(value);
    },
    collect: ({ form }, row) => readObject(row.name, form.elements[row.name].value),
  },
};

/** The rows' values read from the form, in the table's order; FieldError for the first wrong one. */
export function collectFields(context, rows) {
  return Object.fromEntries(rows.map((row) => [row.name, WIDGETS[row.widget].collect(context, row)]));
}

/** Put every row's value (``settings[row.name]``) into the form. */
export function loadFields(context, rows, settings) {
  for (const row of rows) WIDGETS[row.widget].load(context, row, settings[row.name]);
}
