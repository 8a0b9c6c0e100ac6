// @ts-check
/**
 * The tools editor: a JSON array of tool definitions, checked as you type, with presets.
 *
 * Rule: it checks shape only (a list of {name, description?, input_schema: {type: object}},
 * names made of letters, digits, _ and -, unique); the server stays the judge on save. The name
 * rule is the server's limits table (protocol/limits.py), read from the textarea's
 * data-name-pattern and data-name-max, never written here. Names and errors are shown through
 * textContent: a tool name is untrusted text like any other.
 */

import { one } from "./dom.js";

const WEATHER = {
  name: "get_weather",
  description: "Current weather for a city.",
  input_schema: {
    type: "object",
    properties: {
      location: { type: "string", description: "City name, e.g. Paris" },
      unit: { type: "string", enum: ["celsius", "fahrenheit"] },
    },
    required: ["location"],
  },
};
const TIME = {
  name: "get_time",
  description: "Current local time in a city.",
  input_schema: {
    type: "object",
    properties: { city: { type: "string" } },
    required: ["city"],
  },
};
const SEARCH = {
  name: "search_docs",
  description: "Search the documentation; returns the best passages.",
  input_schema: {
    type: "object",
    properties: {
      query: { type: "string" },
      limit: { type: "integer", minimum: 1, maximum: 10 },
    },
    required: ["query"],
  },
};

export const PRESETS = {
  weather: [WEATHER],
  weather_time: [WEATHER, TIME],
  search: [SEARCH],
  none: [],
};

/** Problems with a tools value: [{path, message}] (empty when it looks right); ``limits`` is
 * {namePattern: RegExp, nameMax: number}, the page's limits table. */
export function checkTools(value, { namePattern, nameMax }) {
  if (!Array.isArray(value)) return [{ path: "tools", message: "must be a JSON array of tools" }];
  const problems = [];
  const seen = new Set();
  value.forEach((tool, index) => {
    const where = `tools[${index}]`;
    if (tool === null || typeof tool !== "object" || Array.isArray(tool)) {
      problems.push({ path: where, message: "must be an object {name, description?, input_schema}" });
      return;
    }
    if ((tool.type ?? "custom") !== "custom") return; // a server tool: the server decides
    if (typeof tool.name !== "string" || !namePattern.test(tool.name)) {
      problems.push({
        path: `${where}.name`,
        message: `name ${JSON.stringify(tool.name ?? null)} is invalid: use 1 to ${nameMax} letters, digits, _ or -`,
      });
    } else if (seen.has(tool.name)) {
      problems.push({ path: `${where}.name`, message: `duplicate name ${JSON.stringify(tool.name)}` });
    }
    if (typeof tool.name === "string") seen.add(tool.name);
    const schema = tool.input_schema;
    if (schema === null || typeof schema !== "object" || schema.type !== "object") {
      problems.push({ path: `${where}.input_schema`, message: 'must be a JSON Schema with "type": "object"' });
    }
  });
  return problems;
}

export class ToolsEditor {
  #textarea;
  #status;
  #onChange;
  #limits;

  constructor(root, { onChange = () => {} } = {}) {
    this.#textarea = one(root, "[data-tools-json]");
    const { namePattern, nameMax } = this.#textarea.dataset;
    this.#limits = { namePattern: new RegExp(namePattern), nameMax: Number(nameMax) };
    this.#status = one(root, "[data-tools-status]");
    this.#onChange = onChange;
    const preset = one(root, "[data-tools-preset]");
    preset.addEventListener("change", () => {
      if (preset.value in PRESETS) this.setValue(PRESETS[preset.value]);
      preset.value = "";
      this.#onChange();
    });
    this.#textarea.addEventListener("input", () => {
      this.check();
      this.#onChange();
    });
  }

  setValue(tools) {
    this.#textarea.value = tools && tools.length ? JSON.stringify(tools, null, 2) : "";
    this.check();
  }

  /** {ok, value, problems}: an empty box means no tools. */
  check() {
    const text = this.#textarea.value.trim();
    let result;
    if (!text) {
      result = { ok: true, value: [], problems: [] };
    } else {
      try {
        const value = JSON.parse(text);
        const problems = checkTools(value, this.#limits);
        result = { ok: problems.length === 0, value, problems };
      } catch (error) {
        result = { ok: false, value: undefined, problems: [{ path: "tools", message: `invalid JSON: ${error.message}` }] };
      }
    }
    this.#show(result);
    return result;
  }

  /** Tool names from the box as it is now (for tool_choice and schema checks). */
  names() {
    const { value } = this.check();
    return Array.isArray(value) ? value.filter((t) => typeof t?.name === "string").map((t) => t.name) : [];
  }

  #show({ ok, value, problems }) {
    this.#textarea.setAttribute("aria-invalid", ok ? "false" : "true");
    this.#status.dataset.state = ok ? "ok" : "error";
    if (!ok) {
      this.#status.textContent = problems.map((p) => `${p.path}: ${p.message}`).join("\n");
    } else if (value.length === 0) {
      this.#status.textContent = "No tools.";
    } else {
      this.#status.textContent = `${value.length} tool${value.length > 1 ? "s" : ""}: ${value.map((t) => t.name).join(", ")}`;
    }
  }
}
