// @ts-check
/**
 * The settings panel: upstream, model, sampling, thinking, tools and tool_choice, saved with
 * one PATCH, as they are typed (as in the Anthropic Console): a change is saved SAVE_DELAY_MS
 * after the last keystroke (a choice at once), one save at a time, and Send waits for
 * `flush()` so a message never goes out with settings the person typed but the server lacks.
 *
 * The fields are the settings table's rows (``fields``: the page data's ``settings_form``),
 * each loaded and collected by its widget's codec (settings-fields.js).
 *
 * Rule: the server judges (it knows the upstream's dialect); this panel only turns the form
 * into JSON and shows a refusal next to the field it names (``tools[0].name`` → the tools
 * box). A value that is not even a number is refused here, naming the field, without a
 * request. A refused save changes nothing stored.
 */

import { apiFetch } from "./api.js";
import { el, one } from "./dom.js";
import { ToolsEditor } from "./tools-editor.js";
import { OutputSchemaEditor } from "./output-schema-editor.js";
import { FieldError, collectFields, loadFields } from "./settings-fields.js";

/** The form field a server field path belongs to: "tools[0].name" → "tools". */
export function fieldRoot(path) {
  return String(path ?? "").split(/[.[]/)[0];
}

/**
 * Thinking needs its budget below max_tokens: the values to use when it is not, or null. The
 * budget stays (the person chose it, or it is the minimum), max_tokens grows to twice it, so
 * the answer after the thinking has as much room as the thinking. `fallback`: the limit taken
 * when the field is empty (the max_tokens row's default, in the page data).
 */
export function fitThinking({ budget, maxTokens, fallback }) {
  const limit = maxTokens ?? fallback;
  if (!Number.isInteger(budget) || budget < 1 || limit === null || budget < limit) return null;
  return { budget, maxTokens: budget * 2, was: limit };
}

const SAVE_DELAY_MS = 600;
const CHOICE_DELAY_MS = 50;

export class SettingsPanel {
  #form;
  #root;
  #profiles;
  #url;
  #tools;
  #output;
  #state;
  #error;
  #onSaved;
  #suggestions;
  #fields;
  #timer = 0;
  /** @type {Promise<boolean> | null} */
  #saving = null; // the save in flight (a promise of true/false)
  #edits = 0; // edits since the page loaded: a save answered after newer edits keeps them
  #lastError = "";

  /** fields: the settings table's rows the form shows (``settings_form``, in the page data);
   * suggestions: a ModelSuggestions (model-suggestions.js), or none for the configured list. */
  constructor(root, { fields, profiles, url, onSaved, suggestions = /** @type {import("./model-suggestions.js").ModelSuggestions | null} */ (null) }) {
    this.#root = root;
    this.#fields = fields;
    this.#suggestions = suggestions;
    this.#form = one(root, "[data-settings-form]");
    this.#profiles = profiles;
    this.#url = url;
    this.#onSaved = onSaved;
    this.#state = one(root, "[data-settings-state]");
    this.#error = one(root, "[data-settings-error]");
    this.#tools = new ToolsEditor(this.#form, { onChange: () => this.#dirty() });
    this.#output = new OutputSchemaEditor(this.#form, { onChange: () => this.#dirty() });
    this.#form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save({ focus: true });
    });
    this.#form.addEventListener("input", (event) => {
      this.#dirty();
      const typed = event.target.matches?.("input:not([type=radio]):not([type=checkbox]), textarea");
      this.#schedule(typed ? SAVE_DELAY_MS : CHOICE_DELAY_MS);
    });
    this.#form.addEventListener("change", (event) => {
      if (["thinking_type", "budget_tokens", "max_tokens"].includes(event.target.name)) this.#fitThinking();
      this.#sync();
      this.#schedule(CHOICE_DELAY_MS);
    });
  }

  /** Tool name → input_schema from the saved settings (for the transcript's checks). */
  static schemas(settings) {
    const map = {};
    for (const tool of settings?.tools ?? []) {
      if (typeof tool?.name === "string") map[tool.name] = tool.input_schema ?? {};
    }
    return map;
  }

  load(settings) {
    loadFields(this.#context(), this.#fields, settings);
    this.#clearErrors();
    this.#sync();
    this.#setState("saved", "Saved");
  }

  #context() {
    return { form: this.#form, tools: this.#tools, output: this.#output };
  }

  /** Thinking turned on (or its budget or max_tokens changed) with a budget not below
   * max_tokens, which every upstream refuses: raise max_tokens, and say so beside it. */
  #fitThinking() {
    const f = this.#form.elements;
    const note = one(this.#form, "[data-thinking-note]");
    note.hidden = true;
    if (f.thinking_type.value !== "enabled") return;
    const number = (name) => {
      const raw = f[name].value.trim();
      return raw === "" ? null : Number(raw);
    };
    const fallback = this.#fields.find((row) => row.name === "max_tokens")?.default ?? null;
    const fit = fitThinking({ budget: number("budget_tokens"), maxTokens: number("max_tokens"), fallback });
    if (!fit) return;
    f.max_tokens.value = String(fit.maxTokens);
    note.textContent = `max_tokens raised from ${fit.was} to ${fit.maxTokens}: the thinking budget (${fit.budget}) must be below it.`;
    note.hidden = false;
  }

  /** Show/hide dependent fields and refresh the model suggestions. */
  #sync() {
    const f = this.#form.elements;
    const profile = this.#profiles.find((p) => p.name === f.profile.value);
    this.suggestionsChanged(profile);
    one(this.#form, "[data-thinking-budget]").hidden = f.thinking_type.value !== "enabled";
    one(this.#form, "[data-tool-choice-name]").hidden = f.tool_choice_type.value !== "tool";
  }

  /** Redraw the model field's datalist (the upstream's list may have arrived). */
  suggestionsChanged(profile = this.#profiles.find((p) => p.name === this.#form.elements.profile.value)) {
    const list = one(this.#form, "[data-model-suggestions]");
    const names = this.#suggestions ? this.#suggestions.names(profile) : (profile?.models ?? []);
    list.replaceChildren(...names.map((m) => el("option", { attrs: { value: m } })));
    if (!this.#suggestions || !profile) return;
    list.dataset.source = this.#suggestions.source(profile.name);
    const note = this.#form.querySelector("[data-model-note]");
    if (note instanceof HTMLElement) {
      note.textContent = this.#suggestions.note(profile.name);
      note.hidden = !note.textContent;
    }
    this.#suggestions.load(profile.name);
  }

  #dirty() {
    this.#edits += 1;
    this.#setState("dirty", "Saving soon…");
  }

  #schedule(delay) {
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => this.save(), delay);
  }

  get dirty() {
    return this.#root.dataset.settingsState !== "saved";
  }

  /** Save what is typed now, if anything; resolves to "" when saved, else what is wrong. */
  async flush() {
    if (!this.dirty) return "";
    const ok = await this.save();
    return ok ? "" : this.#lastError || "the settings could not be saved";
  }

  #setState(state, text) {
    this.#root.dataset.settingsState = state;
    this.#state.textContent = text;
  }

  /** The form as the API's settings fields; throws FieldError for a value not of its kind. */
  collect() {
    return collectFields(this.#context(), this.#fields);
  }

  /** Save the form now (after the save in flight, if any); resolves to true once saved. */
  async save({ focus = false } = {}) {
    clearTimeout(this.#timer);
    while (this.#saving) await this.#saving;
    if (!this.dirty) return true;
    this.#saving = this.#saveNow({ focus });
    try {
      return await this.#saving;
    } finally {
      this.#saving = null;
    }
  }

  async #saveNow({ focus }) {
    this.#clearErrors();
    let body;
    try {
      body = this.collect();
    } catch (error) {
      if (!(error instanceof FieldError)) throw error;
      this.#showError(error.field, error.message, { focus });
      return false;
    }
    const edits = this.#edits;
    this.#setState("saving", "Saving…");
    try {
      const conversation = await apiFetch(this.#url, { method: "PATCH", body });
      this.#onSaved(conversation);
      if (conversation.profile_check) showProfileCheck(one(this.#form, "[data-profile-check]"), conversation.profile_check);
      // Typed while the request was out: keep the newer text (the next save sends it).
      if (edits === this.#edits) this.load(conversation.settings);
      else this.#setState("dirty", "Saving soon…");
      return edits === this.#edits;
    } catch (error) {
      this.#showError(error.field, error.message, { focus });
      return false;
    }
  }

  #clearErrors() {
    this.#form.querySelectorAll(".field-error[data-error-for]").forEach((node) => node.remove());
    this.#form.querySelectorAll("[aria-invalid='true']:not([data-tools-json])").forEach((node) => node.removeAttribute("aria-invalid"));
    this.#error.hidden = true;
    this.#error.textContent = "";
  }

  /** Put the message next to the field it names; unnamed errors go to the form's line. */
  #showError(path, message, { focus = true } = {}) {
    this.#setState("error", "Not saved");
    const root = fieldRoot(path);
    const name = root === "budget_tokens" ? "thinking" : root;
    const field = name ? this.#form.querySelector(`[data-field="${CSS.escape(name)}"]`) : null;
    // Server messages usually name the field already; prefix the path only when they do not.
    const text = path && !String(message).includes(path) ? `${path}: ${message}` : message;
    this.#lastError = text;
    if (!field) {
      this.#error.textContent = text;
      this.#error.hidden = false;
      return;
    }
    const container = field.closest(".field") ?? field;
    const error = el("p", { className: "field-error", text, attrs: { role: "alert" }, dataset: { errorFor: name } });
    container.append(error);
    const control = field.matches("input, select, textarea") ? field : field.querySelector("input, select, textarea");
    control?.setAttribute("aria-invalid", "true");
    if (focus) control?.focus(); // an automatic save never moves the person's focus
  }
}

/** What the new profile's rules refuse or change in this conversation (profile_move.py), said
 * under the profile field as soon as the move is saved; text only, never markup. */
function showProfileCheck(box, { dialect, was, refused, changes }) {
  const lines = [];
  if (refused) {
    const where = refused.field ? ` (${refused.field})` : "";
    lines.push(el("p", { className: "profile-check-refused", text: `The ${dialect} rules refuse this conversation: ${refused.message}${where}. Send is refused until it changes.` }));
  }
  if (changes.length) {
    lines.push(el("p", { text: `Moving from the ${was} rules to the ${dialect} rules:` }));
    lines.push(el("ul", {}, ...changes.map((change) => el("li", { text: change }))));
  }
  if (!lines.length) lines.push(el("p", { className: "muted", text: `Checked by the ${dialect} rules: nothing in this conversation changes.` }));
  box.replaceChildren(...lines);
  box.dataset.refused = refused ? "true" : "false";
  box.hidden = false;
}
