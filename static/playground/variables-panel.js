// @ts-check
/**
 * The Variables panel: one field per `{{name}}` the next request names, its value saved with the
 * conversation (PUT …/variables/), and the reason Send is blocked while one is missing.
 *
 * Rule: the panel finds names with the pure variables.js and saves every value it knows (a
 * name no longer written keeps its value, so taking a placeholder out and back loses nothing).
 * A change is saved after a short pause; until the server has it, Send is blocked ("Saving the
 * variables…"), so a request never goes out with the values before the edit. The root's
 * data-save-state="saved|pending|failed" and data-missing (the missing names, comma-separated)
 * are for CSS and tests. It reports through `onChange()`; page.js asks `refresh(...)` for the
 * blocked reason.
 */

import { apiFetch } from "./api.js";
import { el, parts } from "./dom.js";
import { missingNames, missingReason, namesInConversation } from "./variables.js";

const SAVE_PAUSE_MS = 300;

export class VariablesPanel {
  #root;
  #list;
  #empty;
  #error;
  #stateLine;
  #url;
  #values;
  #onChange;
  #fields = new Map(); // name -> textarea
  #timer = 0;
  /** @type {Promise<any> | null} */
  #saving = null; // the save in flight (a promise)
  #dirty = false;

  /** The values as saved or typed now (a copy). */
  get values() {
    return { ...this.#values };
  }

  constructor(root, { url, values, draftInput, onChange }) {
    this.#root = root;
    this.#url = url;
    this.#values = { ...(values ?? {}) };
    this.#onChange = onChange;
    ({ list: this.#list, empty: this.#empty, error: this.#error, stateLine: this.#stateLine } = parts(root, {
      list: "[data-variables-list]",
      empty: "[data-variables-empty]",
      error: "[data-variables-error]",
      stateLine: "[data-variables-state]",
    }));
    // The draft can name a variable before it is sent: its field appears as it is typed.
    draftInput.addEventListener("input", () => this.#onChange());
  }

  /** Draw the fields for what the next request names; the reason Send is blocked, or "". */
  refresh({ system, messages, draft }) {
    const names = namesInConversation({ system, messages, draft });
    this.#draw(names);
    const missing = missingNames(names, this.#values);
    this.#root.dataset.missing = missing.join(",");
    if (this.#dirty || this.#saving) return "Saving the variables…";
    if (this.#root.dataset.saveState === "failed") return "The variables are not saved: see Variables.";
    return missingReason(missing);
  }

  /** Focus the first variable without a value (or the first one); false when there is none. */
  focusMissing() {
    const missing = (this.#root.dataset.missing || "").split(",").filter(Boolean);
    const input = this.#fields.get(missing[0]) ?? this.#fields.values().next().value;
    if (!input) return false;
    input.scrollIntoView({ block: "nearest" });
    input.focus();
    return true;
  }

  #draw(names) {
    for (const [name, input] of this.#fields) {
      if (!names.includes(name)) {
        input.closest("[data-variable-row]").remove();
        this.#fields.delete(name);
      }
    }
    names.forEach((name, index) => {
      let input = this.#fields.get(name);
      if (!input) {
        input = el("textarea", { className: "input", attrs: { rows: "1", "aria-label": `Value of ${name}` }, dataset: { variable: name } });
        input.value = Object.hasOwn(this.#values, name) ? String(this.#values[name] ?? "") : "";
        input.addEventListener("input", () => this.#edited(name, input.value));
        const label = el("span", { className: "field-label" }, el("code", { text: `{{${name}}}` }));
        const row = el("label", { className: "field", dataset: { variableRow: name } }, label, input);
        this.#fields.set(name, input);
        this.#list.append(row);
      }
      // Keep the order the names appear in (a move, not a redraw: focus and caret survive).
      const row = input.closest("[data-variable-row]");
      if (this.#list.children[index] !== row) this.#list.insertBefore(row, this.#list.children[index] ?? null);
    });
    this.#empty.hidden = names.length > 0;
  }

  #edited(name, value) {
    this.#values = { ...this.#values, [name]: value };
    this.#dirty = true;
    this.#root.dataset.saveState = "pending";
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.#save(), SAVE_PAUSE_MS);
    this.#onChange();
  }

  async #save() {
    if (this.#saving) return; // the save in flight saves again when it ends
    this.#dirty = false;
    const values = this.#values;
    this.#saving = apiFetch(this.#url, { method: "PUT", body: { variables: values } });
    try {
      const conversation = await this.#saving;
      this.#showError("");
      if (!this.#dirty) {
        this.#values = { ...conversation.variables };
        this.#root.dataset.saveState = "saved";
        this.#stateLine.textContent = "Saved";
      }
    } catch (error) {
      this.#root.dataset.saveState = "failed";
      this.#showError(`Could not save the variables: ${error.message}`);
    } finally {
      this.#saving = null;
    }
    if (this.#dirty) this.#save();
    this.#onChange();
  }

  #showError(text) {
    this.#error.textContent = text;
    this.#error.hidden = !text;
  }
}
