// @ts-check
/**
 * A grid column's header: what the column changes against its conversation (column-view.js:
 * the system prompt's line diff, each setting that differs) and, on the owner's page, an
 * editor of every setting it may change, the model field suggesting the profile's models.
 *
 * Rule: the server is the truth: a save PATCHes every column (``grids.column_edit``) and the
 * page redraws from the grid it answers; a refusal is shown naming its field, the form kept
 * as typed. Every string enters the DOM through textContent (dom.js `el`). State for tests:
 * form[data-column-editor=<index>][data-state=idle|busy|error], the diff's
 * li[data-kind=added|removed|same], each differing setting li[data-setting=<name>].
 */

import { apiFetch } from "../api.js";
import { el, fillUrl } from "../dom.js";
import { ModelSuggestions } from "../model-suggestions.js";
import { COLUMN_FIELDS, ColumnFieldError, FIELD_LABELS, changesFromFields, columnDiff, fieldText } from "./column-view.js";

/**
 * What the column changes, as the header shows it.
 * @param {{changes?: Record<string, unknown>}} column
 * @param {Record<string, unknown>} source the conversation's settings (none on a shared page)
 * @returns {HTMLElement}
 */
export function changesNode(column, source) {
  const diff = columnDiff(source ?? {}, column.changes);
  const node = el("div", { className: "grid-column-changes" });
  if (diff.prompt) node.append(el("span", { className: "grid-column-prompt", text: `prompt ${diff.prompt}` }));
  if (diff.settings.length) {
    node.append(
      el(
        "ul",
        { className: "grid-column-settings" },
        ...diff.settings.map((item) => el("li", { dataset: { setting: item.name }, text: `${item.name}: ${item.before} → ${item.after}`, attrs: { title: `${item.name}: ${item.before} → ${item.after}` } })),
      ),
    );
  }
  if (diff.system) {
    const added = diff.system.filter((line) => line.kind === "added").length;
    const removed = diff.system.filter((line) => line.kind === "removed").length;
    node.append(
      el(
        "details",
        { className: "grid-column-diff", dataset: { systemDiff: "" } },
        el("summary", { text: `System prompt: +${added} −${removed} lines` }),
        el("ol", {}, ...diff.system.map((line) => el("li", { className: `diff-line diff-${line.kind}`, dataset: { kind: line.kind }, text: `${{ added: "+", removed: "−", same: " " }[line.kind]} ${line.text}` }))),
      ),
    );
  }
  if (!diff.prompt && !diff.settings.length && !diff.system) node.append(el("span", { className: "muted", text: "the conversation's settings" }));
  return node;
}

export class ColumnEditor {
  /**
   * @param {{grid: () => any, urls: Record<string, string>, source: Record<string, unknown>, profiles: {name: string, models?: string[]}[], onSaved: (grid: any) => void}} options
   */
  constructor({ grid, urls, source, profiles, onSaved }) {
    this.grid = grid;
    this.urls = urls;
    this.source = source ?? {};
    this.profiles = profiles ?? [];
    this.onSaved = onSaved;
    this.suggestions = new ModelSuggestions({
      fetchModels: (name) => apiFetch(fillUrl(urls.profile_models, { profile: name })),
      onLoaded: () => this.fillLists(),
    });
  }

  /** The profile a column runs on: its own change, else the conversation's. */
  profileOf(changes) {
    return String(changes?.profile ?? this.source.profile ?? "");
  }

  /** Every open form's model list, from the suggestions known now. */
  fillLists() {
    for (const list of document.querySelectorAll("datalist[data-column-models]")) {
      if (!(list instanceof HTMLElement)) continue;
      const name = list.dataset.columnModels ?? "";
      const profile = this.profiles.find((item) => item.name === name) ?? { name, models: [] };
      list.replaceChildren(...this.suggestions.names(profile).map((model) => el("option", { attrs: { value: model } })));
      list.dataset.source = this.suggestions.source(name);
    }
  }

  /**
   * The header's editor of column `index`: its label and every setting (blank: the
   * conversation's), saved with the grid's other columns as they are.
   * @param {number} index
   * @returns {HTMLFormElement}
   */
  form(index) {
    const column = this.grid().columns[index];
    const changes = column.changes ?? {};
    const form = /** @type {HTMLFormElement} */ (el("form", { className: "grid-column-editor", dataset: { columnEditor: String(index), state: "idle" } }));
    const profile = this.profileOf(changes);
    const listId = `grid-column-models-${index}`;
    const label = el("input", { attrs: { type: "text", name: "label", maxlength: "200" } });
    label.value = column.label ?? "";
    form.append(el("label", { className: "grid-field" }, el("span", { text: "Label" }), label));
    for (const [name, kind] of COLUMN_FIELDS) {
      const multi = kind === "textarea" || kind === "json" || kind === "lines";
      const input = multi ? el("textarea", { attrs: { name, rows: kind === "json" ? "3" : "2" } }) : el("input", { attrs: { name, type: "text" } });
      const conversation = fieldText(kind, this.source[name]);
      input.setAttribute("placeholder", conversation ? `conversation: ${conversation.split("\n")[0].slice(0, 60)}` : "the conversation's");
      if (kind === "number" || kind === "integer") input.setAttribute("inputmode", kind === "integer" ? "numeric" : "decimal");
      if (name === "model") input.setAttribute("list", listId);
      /** @type {HTMLInputElement | HTMLTextAreaElement} */ (input).value = fieldText(kind, changes[name]);
      form.append(el("label", { className: "grid-field", dataset: { field: name } }, el("span", { text: FIELD_LABELS[name] }), input));
    }
    form.append(el("datalist", { attrs: { id: listId }, dataset: { columnModels: profile } }));
    const message = el("p", { className: "grid-column-message", attrs: { role: "status" } });
    form.append(
      el(
        "div",
        { className: "grid-column-actions" },
        el("button", { className: "btn btn-small btn-primary", text: "Save column", attrs: { type: "submit" } }),
        el("button", { className: "btn btn-small", text: "Cancel", attrs: { type: "button" }, dataset: { cancelColumn: "" } }),
      ),
      message,
    );
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.save(form, index, message);
    });
    form.querySelector("[data-cancel-column]")?.addEventListener("click", () => form.remove());
    queueMicrotask(() => {
      this.fillLists();
      this.suggestions.load(profile);
    });
    return form;
  }

  /** @param {HTMLFormElement} form @param {number} index @param {HTMLElement} message */
  async save(form, index, message) {
    const grid = this.grid();
    const fields = Object.fromEntries(COLUMN_FIELDS.map(([name]) => [name, /** @type {HTMLInputElement} */ (form.elements.namedItem(name)).value]));
    let changes;
    try {
      changes = changesFromFields(fields, grid.columns[index].changes);
    } catch (error) {
      form.dataset.state = "error";
      message.textContent = error instanceof ColumnFieldError ? `${error.field}: ${error.message}` : String(error);
      return;
    }
    const label = /** @type {HTMLInputElement} */ (form.elements.namedItem("label")).value.trim();
    const columns = grid.columns.map((column, at) => (at === index ? { label: label || column.label, changes } : column));
    form.dataset.state = "busy";
    try {
      this.onSaved(await apiFetch(this.urls.grid, { method: "PATCH", body: { columns } }));
    } catch (error) {
      form.dataset.state = "error";
      message.textContent = error.field ? `${error.field}: ${error.message}` : error.message;
    }
  }
}
