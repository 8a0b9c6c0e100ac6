// @ts-check
/**
 * The evaluation grid's page: make a grid (mode "new"), watch, rate and re-run it (mode
 * "owner"), or read it (mode "shared", a read-only link).
 *
 * Rule: the server's grid JSON is the truth; the page reads it while a cell is queued or
 * running and redraws only the cells whose JSON changed, in one animation frame; while idle it
 * asks the grid's pulse (is anything running, when did the last run start) every few seconds,
 * so runs started elsewhere (another tab, the API, the owner of a share link) show. Every string
 * from the server or a person enters the DOM through textContent (dom.js `el`). No globals, no
 * inline script: the payload is the json_script #page-data. State for tests: main#grid
 * [data-state=loading|ready|live|error], each td[data-cell][data-status], the form
 * [data-state=idle|busy|error], the Stop button shown only while live.
 */

import { apiFetch, setCsrfToken } from "../api.js";
import { BudgetChip } from "../budget-chip.js";
import { el, fillUrl, one, readPageData } from "../dom.js";
import { ColumnEditor, changesNode } from "./column-editor.js";
import { ExperimentsPanel, confirmRun } from "./experiments.js";
import {
  SCORER_TEMPLATES,
  columnChanges,
  gridIsLive,
  metricsLine,
  pastedRows,
  schemaLine,
  scoreLines,
  scorerRatesLine,
  statusWord,
  summaryLine,
  verdictWord,
  withScorer,
} from "./grid-view.js";
import { loopLine, loopSummaryLine, optionsFrom, optionsLine, repeatsLine, trajectoryLines } from "./grid-loops.js";

const POLL_MS = { live: 700, idle: 3000 };
const COLUMNS_MAX = 4;

// --- the grid -------------------------------------------------------------------------------

function cellNode(cell, { urls, mode }) {
  const td = el("td", { className: "grid-cell", dataset: { cell: cell.id, status: cell.status } });
  fillCell(td, cell, { urls, mode });
  return td;
}

function fillCell(td, cell, { urls, mode }) {
  td.dataset.status = cell.status;
  td.replaceChildren();
  const head = el("div", { className: "grid-cell-head" });
  head.append(el("span", { className: "grid-status", text: statusWord(cell.status) }));
  const verdict = verdictWord(cell);
  if (verdict) head.append(el("span", { className: "grid-verdict", text: verdict, dataset: { verdict } }));
  const metrics = metricsLine(cell);
  if (metrics) head.append(el("span", { className: "grid-metrics", text: metrics }));
  td.append(head);
  const schema = schemaLine(cell.schema);
  if (schema) {
    td.append(el("p", { className: "grid-schema", text: schema.text, dataset: { fits: String(schema.fits) } }));
  }
  const problem = cell.start_error ?? cell.error;
  if (problem) td.append(el("p", { className: "grid-error", text: problem }));
  if (cell.answer) td.append(el("p", { className: "grid-answer", text: cell.answer_cut ? `${cell.answer}…` : cell.answer }));
  const loop = loopLine(cell);
  if (loop) td.append(el("p", { className: "grid-loop", text: loop, dataset: { loopEnd: cell.loop_end } }));
  const calls = trajectoryLines(cell.trajectory);
  if (calls.length) {
    td.append(el("ol", { className: "grid-trajectory", attrs: { "aria-label": "Tool calls" } }, ...calls.map((call) => el("li", { text: call.text, dataset: { source: call.source } }))));
  }
  const repeats = repeatsLine(cell.repeats);
  if (repeats) {
    td.append(el("p", { className: "grid-repeats", text: repeats, dataset: { repeats: `${cell.repeats.passed}/${cell.repeats.asked}`, unstable: String(cell.repeats.unstable) } }));
  }
  const lines = scoreLines(cell.scores);
  if (lines.length) {
    td.append(el("ul", { className: "grid-scores" }, ...lines.map((line) => el("li", { text: line.text, dataset: { passed: String(line.passed) } }))));
  }
  const foot = el("div", { className: "grid-cell-foot" });
  // A rating is of an answer (the server keeps it with the run it rated): none before one.
  const answered = !["not_run", "queued", "running", "not_started"].includes(cell.status);
  if (mode === "owner" && answered) {
    for (const rating of ["good", "bad"]) {
      const button = el("button", {
        className: "btn btn-small grid-rate",
        text: rating === "good" ? "Good" : "Bad",
        attrs: { type: "button", "aria-pressed": String(cell.rating === rating) },
        dataset: { rate: rating },
      });
      foot.append(button);
    }
    const note = el("input", {
      className: "grid-note",
      attrs: { type: "text", placeholder: "Note", "aria-label": "Note on this cell", maxlength: "2000" },
    });
    note.value = cell.note ?? "";
    foot.append(note);
  }
  if (mode === "owner") {
    if (cell.conversation_id) {
      const href = fillUrl(urls.conversation, { conversation_id: cell.conversation_id });
      // A loop waiting for a result goes on by hand in its conversation (the call's card).
      const text = cell.status === "needs_result" ? "Open and answer" : "Open";
      foot.append(el("a", { className: "grid-open", text, attrs: { href, target: "_blank", rel: "noopener" } }));
    } else if (cell.imported) {
      // A result a bundle carried: its conversation is made when it is first opened.
      foot.append(el("button", { className: "btn btn-small grid-open", text: "Open", attrs: { type: "button" }, dataset: { openCell: "" } }));
    }
  } else if (cell.rating || cell.note) {
    const rated = [cell.rating ?? "", cell.note].filter(Boolean);
    foot.append(el("span", { className: "grid-rating", text: rated.join(" ") }));
  }
  td.append(foot);
}

function headerRow(grid, { mode, source }) {
  const tr = el("tr", {}, el("th", { className: "grid-case-head", text: "Test case", attrs: { scope: "col" } }));
  grid.columns.forEach((column, index) => {
    const th = el("th", { className: "grid-column-head", attrs: { scope: "col" }, dataset: { column: String(index) } });
    th.append(el("span", { className: "grid-column-label", text: column.label }));
    th.append(changesNode(column, source));
    th.append(el("span", { className: "grid-summary", text: summaryLine(grid.summaries[index]), dataset: { summary: String(index) } }));
    th.append(el("span", { className: "grid-scorer-rates", text: scorerRatesLine(grid.summaries[index]), dataset: { rates: String(index) } }));
    th.append(el("span", { className: "grid-loop-summary", text: loopSummaryLine(grid.summaries[index]), dataset: { loopSummary: String(index) } }));
    if (mode === "owner") {
      th.append(el("button", { className: "btn btn-small grid-rerun", text: "Re-run column", attrs: { type: "button" }, dataset: { runColumn: String(index) } }));
      th.append(el("button", { className: "btn btn-small grid-edit-column", text: "Edit column", attrs: { type: "button" }, dataset: { editColumn: String(index) } }));
    }
    tr.append(th);
  });
  return el("thead", {}, tr);
}

function rowNode(row, context) {
  const th = el("th", { className: "grid-case", attrs: { scope: "row" } });
  th.append(el("span", { className: "grid-case-number", text: `#${row.position + 1}` }));
  for (const [name, value] of Object.entries(row.values)) {
    th.append(el("span", { className: "grid-value" }, el("b", { text: `${name}: ` }), document.createTextNode(value)));
  }
  if (context.mode === "owner") {
    th.append(el("button", { className: "btn btn-small grid-rerun", text: "Re-run row", attrs: { type: "button" }, dataset: { runRow: String(row.position) } }));
  }
  const tr = el("tr", { dataset: { row: String(row.position) } }, th);
  for (const cell of row.cells) tr.append(cellNode(cell, context));
  return tr;
}

class GridView {
  constructor(root, { grid, urls, mode, pollMs = POLL_MS, budget = /** @type {BudgetChip | null} */ (null), frozen = false, source = {}, profiles = [] }) {
    /** the conversation's settings, which each column's header is compared with */
    this.source = source;
    /** @type {ColumnEditor | null} the headers' editor (the owner's page only) */
    this.editor = mode === "owner" ? new ColumnEditor({ grid: () => this.grid, urls, source, profiles, onSaved: (saved) => this.saved(saved) }) : null;
    /** an experiment's frozen results (a read-only link to one): never read again */
    this.frozen = frozen;
    this.root = root;
    /** @type {BudgetChip | null} what the owner's limits have left, asked again as cells end */
    this.budget = budget;
    this.doneCells = -1;
    this.urls = urls;
    this.mode = mode;
    this.grid = grid;
    this.pollMs = pollMs;
    this.drawn = new Map(); // cell id -> its JSON as last drawn
    this.pending = null;
    this.timer = null;
    this.queued = 0; // the cells the last run request queued, told once they have all run
    /** @type {(() => void) | null} told once the grid is idle again after running */
    this.onIdle = null;
  }

  draw() {
    const context = { urls: this.urls, mode: this.mode, source: this.source };
    const table = el("table", { className: "grid-table" }, headerRow(this.grid, context));
    const body = el("tbody");
    for (const row of this.grid.rows) body.append(rowNode(row, context));
    table.append(body);
    this.root.querySelector("[data-grid-table]").replaceChildren(table);
    for (const row of this.grid.rows) for (const cell of row.cells) this.drawn.set(cell.id, JSON.stringify(cell));
    this.mark();
  }

  /** A new grid JSON: redraw what changed in the next frame (one frame for many cells). */
  update(grid) {
    this.grid = grid;
    if (this.pending !== null) return;
    this.pending = requestAnimationFrame(() => {
      this.pending = null;
      const context = { urls: this.urls, mode: this.mode };
      for (const row of this.grid.rows) {
        for (const cell of row.cells) {
          const json = JSON.stringify(cell);
          if (this.drawn.get(cell.id) === json) continue;
          const td = this.root.querySelector(`td[data-cell="${CSS.escape(cell.id)}"]`);
          // A note being typed is not redrawn under the person's fingers.
          if (td === null || td.contains(document.activeElement)) continue;
          fillCell(td, cell, context);
          this.drawn.set(cell.id, json);
        }
      }
      this.grid.summaries.forEach((summary, index) => {
        const node = this.root.querySelector(`[data-summary="${index}"]`);
        if (node) node.textContent = summaryLine(summary);
        const rates = this.root.querySelector(`[data-rates="${index}"]`);
        if (rates) rates.textContent = scorerRatesLine(summary);
        const loops = this.root.querySelector(`[data-loop-summary="${index}"]`);
        if (loops) loops.textContent = loopSummaryLine(summary);
      });
      this.mark();
    });
  }

  mark() {
    const live = gridIsLive(this.grid);
    // "n cell(s) queued" said what a run request did; once they all ran it says so, and stays
    // (a fast re-run otherwise left no word that anything had happened).
    if (!live && this.root.dataset.state === "live") {
      if (this.queued) this.say(`${this.queued} cell(s) ran`); // else what a stop said stays
      this.queued = 0;
      this.onIdle?.();
    }
    this.root.dataset.state = live ? "live" : "ready";
    const stop = this.root.querySelector("[data-stop]");
    if (stop) stop.hidden = !live;
    const cells = this.grid.rows.flatMap((row) => row.cells);
    const done = cells.filter((cell) => !["not_run", "queued", "running"].includes(cell.status)).length;
    this.root.querySelector("[data-progress]").textContent = `${done} of ${cells.length} cells done`;
    if (this.doneCells >= 0 && done > this.doneCells) this.budget?.refresh();
    this.doneCells = done;
    this.poll();
  }

  /** The next read: the whole grid soon while live, else its pulse, less often. */
  poll() {
    if (this.timer !== null || this.frozen) return;
    const live = this.root.dataset.state === "live";
    this.timer = setTimeout(async () => {
      this.timer = null;
      try {
        if (live || (await this.changedElsewhere())) this.update(await apiFetch(this.urls.grid));
        else this.poll();
      } catch (error) {
        this.say(error.message);
        this.poll();
      }
    }, live ? this.pollMs.live : this.pollMs.idle);
  }

  /** Whether the idle grid was run since it was drawn (here, or anywhere else). */
  async changedElsewhere() {
    const separator = this.urls.grid.includes("?") ? "&" : "?";
    const pulse = await apiFetch(`${this.urls.grid}${separator}pulse=1`);
    return pulse.running || pulse.stamp !== this.grid.stamp;
  }

  async stop() {
    try {
      const answer = await apiFetch(this.urls.stop, { method: "POST", body: {} });
      this.queued = 0; // they did not all run
      this.say(`stopped: ${answer.stopped} running, ${answer.unqueued} not started`);
      this.update(await apiFetch(this.urls.grid));
    } catch (error) {
      this.say(error.message);
    }
  }

  say(text) {
    this.root.querySelector("[data-grid-message]").textContent = text;
  }

  async run(body) {
    this.say(""); // the last request's word is not this one's
    try {
      // A run that replaces answers says first how many upstream calls it makes.
      const dialog = this.root.querySelector("[data-confirm-run]");
      if (dialog instanceof HTMLDialogElement && !(await confirmRun(dialog, this.urls.plan, body))) {
        this.say("not run");
        return;
      }
      const answer = await apiFetch(this.urls.run, { method: "POST", body });
      this.queued = answer.queued;
      this.say(`${answer.queued} cell(s) queued`);
      // Live from here: "ready" again only once a grid read after this request shows nothing
      // queued or running, so [data-state] never says done between the request and that read.
      this.root.dataset.state = "live";
      this.update(await apiFetch(this.urls.grid));
    } catch (error) {
      this.say(error.message);
      if (this.root.dataset.state === "live") this.poll(); // queued, but the read failed
    }
  }

  async rate(td, fields) {
    const url = fillUrl(this.urls.cell, { cell_id: td.dataset.cell });
    try {
      const cell = await apiFetch(url, { method: "PATCH", body: fields });
      for (const row of this.grid.rows) {
        row.cells = row.cells.map((known) => (known.id === cell.id ? cell : known));
      }
      fillCell(td, cell, { urls: this.urls, mode: this.mode });
      this.drawn.set(cell.id, JSON.stringify(cell));
      this.update(await apiFetch(this.urls.grid)); // the column's ratings
    } catch (error) {
      this.say(error.message);
    }
  }

  listen() {
    this.root.addEventListener("click", (event) => {
      const target = event.target.closest("button");
      if (!target) return;
      if (target.dataset.runColumn !== undefined) this.run({ column: Number(target.dataset.runColumn) });
      else if (target.dataset.runRow !== undefined) this.run({ row: Number(target.dataset.runRow) });
      else if (target.dataset.runAll !== undefined) this.run({});
      else if (target.dataset.runFailed !== undefined) this.run({ failed: true });
      else if (target.dataset.stop !== undefined) this.stop();
      else if (target.dataset.share !== undefined) this.share(target);
      else if (target.dataset.editColumn !== undefined) this.editColumn(target);
      else if (target.dataset.openCell !== undefined) this.open(target.closest("td[data-cell]"));
      else if (target.dataset.rate !== undefined) {
        const td = target.closest("td[data-cell]");
        const pressed = target.getAttribute("aria-pressed") === "true";
        this.rate(td, { rating: pressed ? null : target.dataset.rate });
      }
    });
    this.root.addEventListener("change", (event) => {
      if (!event.target.matches(".grid-note")) return;
      this.rate(event.target.closest("td[data-cell]"), { note: event.target.value });
    });
  }

  /** The column's editor under its header (again: closed). */
  editColumn(button) {
    const th = button.closest("th");
    const open = th.querySelector("[data-column-editor]");
    if (open) open.remove();
    else if (this.editor) th.append(this.editor.form(Number(button.dataset.editColumn)));
  }

  /** A column saved: the grid the server answered, its headers drawn again. */
  saved(grid) {
    this.grid = grid;
    this.draw();
    this.say("column saved: its next run asks what its header says");
  }

  /** Open a cell whose result a bundle carried: the server makes its conversation first. */
  async open(td) {
    try {
      const opened = await apiFetch(fillUrl(this.urls.open, { cell_id: td.dataset.cell }), { method: "POST", body: {} });
      window.location.assign(opened.url);
    } catch (error) {
      this.say(error.message);
    }
  }

  /** The scorers' editor: the grid's scorers as JSON, a kind added from the list, saved with a
   * PATCH that scores every answer again (the judges that changed run again). */
  scorers() {
    const panel = this.root.querySelector("[data-scorers-panel]");
    if (!panel) return;
    panel.hidden = false;
    const text = panel.querySelector("[data-scorers]");
    const kinds = panel.querySelector("[data-scorer-kind]");
    const message = panel.querySelector("[data-scorers-message]");
    text.value = JSON.stringify(this.grid.scorers ?? [], null, 2);
    kinds.replaceChildren(el("option", { text: "Add a scorer…", attrs: { value: "" } }), ...Object.keys(SCORER_TEMPLATES).map((kind) => el("option", { text: kind, attrs: { value: kind } })));
    kinds.addEventListener("change", () => {
      if (kinds.value) text.value = withScorer(text.value, kinds.value);
      kinds.value = "";
    });
    panel.querySelector("[data-save-scorers]").addEventListener("click", async () => {
      let scorers;
      try {
        scorers = JSON.parse(text.value || "[]");
      } catch (error) {
        panel.dataset.state = "error";
        message.textContent = `not JSON: ${error.message}`;
        return;
      }
      panel.dataset.state = "busy";
      try {
        const grid = await apiFetch(this.urls.grid, { method: "PATCH", body: { scorers } });
        text.value = JSON.stringify(grid.scorers ?? [], null, 2);
        panel.dataset.state = "saved";
        message.textContent = grid.judging ? `scored again; ${grid.judging} judge run(s) under way` : "scored again";
        this.grid = grid;
        this.draw();
        if (grid.judging) this.root.dataset.state = "live";
        this.poll();
      } catch (error) {
        panel.dataset.state = "error";
        message.textContent = error.field ? `${error.field}: ${error.message}` : error.message;
      }
    });
  }

  /** How cells run (a tool loop, its turn cap, repeats): a form saved with a PATCH. */
  options() {
    const panel = this.root.querySelector("[data-options-panel]");
    if (!panel) return;
    panel.hidden = false;
    const field = (name) => panel.querySelector(`[data-option="${name}"]`);
    const message = panel.querySelector("[data-options-message]");
    const show = (options) => {
      field("tool_loop").checked = Boolean(options?.tool_loop);
      field("mcp").checked = Boolean(options?.mcp);
      field("max_turns").value = String(options?.max_turns ?? 5);
      field("repeats").value = String(options?.repeats ?? 1);
      field("sampling_profile").value = options?.sampling_profile ?? "";
      field("sampling_model").value = options?.sampling_model ?? "";
      panel.querySelector("[data-options-line]").textContent = optionsLine(options);
    };
    show(this.grid.options);
    panel.querySelector("[data-save-options]").addEventListener("click", async () => {
      const options = optionsFrom({ toolLoop: field("tool_loop").checked, mcp: field("mcp").checked, maxTurns: field("max_turns").value, repeats: field("repeats").value, samplingProfile: field("sampling_profile").value, samplingModel: field("sampling_model").value });
      panel.dataset.state = "busy";
      try {
        const grid = await apiFetch(this.urls.grid, { method: "PATCH", body: { options } });
        this.grid = grid;
        show(grid.options);
        panel.dataset.state = "saved";
        message.textContent = "saved: the next run uses them";
      } catch (error) {
        panel.dataset.state = "error";
        message.textContent = error.field ? `${error.field}: ${error.message}` : error.message;
      }
    });
  }

  async share(button) {
    try {
      const answer = await apiFetch(this.urls.share, { method: "POST", body: {} });
      const link = this.root.querySelector("[data-share-link]");
      link.hidden = false;
      link.value = answer.url;
      link.select();
      button.textContent = "New share link";
    } catch (error) {
      this.say(error.message);
    }
  }
}

// --- a new grid -----------------------------------------------------------------------------

function caseRow(variables) {
  const tr = el("tr", { dataset: { caseRow: "" } });
  for (const name of variables) {
    const input = el("input", { attrs: { type: "text", "aria-label": name }, dataset: { variable: name } });
    tr.append(el("td", {}, input));
  }
  tr.append(el("td", {}, el("button", { className: "btn btn-small", text: "Remove", attrs: { type: "button" }, dataset: { removeCase: "" } })));
  return tr;
}

function columnFieldset(index) {
  const fieldset = el("fieldset", { className: "grid-column-form", dataset: { columnForm: String(index) } });
  fieldset.append(el("legend", { text: `Column ${index + 1}` }));
  const field = (name, label, attrs = {}) => {
    const input = name === "system" ? el("textarea", { attrs: { rows: "2", ...attrs } }) : el("input", { attrs: { type: "text", ...attrs } });
    input.dataset.field = name;
    return el("label", { className: "grid-field" }, el("span", { text: label }), input);
  };
  fieldset.append(
    field("label", "Label", { placeholder: `Column ${index + 1}` }),
    field("profile", "Profile", { placeholder: "unchanged" }),
    field("model", "Model", { placeholder: "unchanged" }),
    field("temperature", "Temperature", { inputmode: "decimal", placeholder: "unchanged" }),
    field("max_tokens", "Max tokens", { inputmode: "numeric", placeholder: "unchanged" }),
    field("system", "System prompt", { placeholder: "unchanged" }),
  );
  if (index > 0) fieldset.append(el("button", { className: "btn btn-small", text: "Remove column", attrs: { type: "button" }, dataset: { removeColumn: "" } }));
  return fieldset;
}

function typedRows(form, variables) {
  const rows = [];
  for (const tr of form.querySelectorAll("[data-case-row]")) {
    const values = {};
    for (const name of variables) values[name] = tr.querySelector(`[data-variable="${CSS.escape(name)}"]`).value;
    if (Object.values(values).some((value) => value !== "")) rows.push(values);
  }
  return rows;
}

function newGrid(root, { conversation, urls }) {
  const form = root.querySelector("[data-new-grid]");
  form.hidden = false;
  const variables = conversation.variables.length ? conversation.variables : ["input"];
  const cases = form.querySelector("[data-cases]");
  cases.replaceChildren(
    el("thead", {}, el("tr", {}, ...variables.map((name) => el("th", { text: name })), el("th"))),
    el("tbody", {}, caseRow(variables), caseRow(variables)),
  );
  const columns = form.querySelector("[data-columns]");
  columns.replaceChildren(columnFieldset(0));
  const message = form.querySelector("[data-form-message]");
  root.dataset.state = "ready";

  form.addEventListener("click", (event) => {
    const button = event.target.closest("button");
    if (!button) return;
    if (button.dataset.addCase !== undefined) cases.tBodies[0].append(caseRow(variables));
    else if (button.dataset.removeCase !== undefined) button.closest("tr").remove();
    else if (button.dataset.addColumn !== undefined && columns.children.length < COLUMNS_MAX) {
      columns.append(columnFieldset(columns.children.length));
    } else if (button.dataset.removeColumn !== undefined) button.closest("fieldset").remove();
  });
  form.querySelector("[data-import]").addEventListener("change", async (event) => {
    const file = event.target.files[0];
    if (file) form.querySelector("[data-paste]").value = await file.text();
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const pasted = pastedRows(form.querySelector("[data-paste]").value);
    /** @type {Record<string, unknown>} */
    const body = {
      title: form.querySelector("[data-title]").value,
      columns: [...columns.querySelectorAll("[data-column-form]")].map((fieldset, index) => {
        const fields = Object.fromEntries([...fieldset.querySelectorAll("[data-field]")].map((input) => [input.dataset.field, input.value]));
        return { label: fields.label || `Column ${index + 1}`, changes: columnChanges(fields) };
      }),
      ...(pasted ?? { rows: typedRows(form, variables) }),
    };
    const concurrency = form.querySelector("[data-concurrency]").value;
    if (concurrency) body.concurrency = Number(concurrency);
    form.dataset.state = "busy";
    try {
      const grid = await apiFetch(urls.grids, { method: "POST", body });
      await apiFetch(fillUrl(urls.run, { grid_id: grid.id }), { method: "POST", body: {} });
      window.location.assign(fillUrl(urls.grid, { grid_id: grid.id }));
    } catch (error) {
      form.dataset.state = "error";
      message.textContent = error.field ? `${error.field}: ${error.message}` : error.message;
    }
  });
  listGrids(form.querySelector("[data-grid-list]"), urls);
}

async function listGrids(list, urls) {
  try {
    const { grids } = await apiFetch(urls.grids);
    list.replaceChildren(
      ...grids.map((grid) =>
        el("li", {}, el("a", { text: `${grid.title || "Untitled grid"} · ${grid.rows} rows × ${grid.columns} columns`, attrs: { href: grid.url } })),
      ),
    );
  } catch {
    list.replaceChildren();
  }
}

// --- the page ------------------------------------------------------------------------------

function start() {
  const data = readPageData();
  setCsrfToken(data.csrf_token);
  const root = one(document, "#grid");
  if (data.mode === "new") {
    newGrid(root, data);
    return;
  }
  one(root, "[data-grid-view]").hidden = false;
  for (const kind of ["csv", "jsonl"]) one(root, `[data-export="${kind}"]`).href = data.urls[kind];
  const warnings = one(root, "[data-grid-warnings]");
  warnings.textContent = (data.warnings ?? []).join(" · ");
  warnings.hidden = !data.warnings?.length;
  const chip = document.querySelector("[data-budget-left]");
  const budget = data.mode === "owner" && chip instanceof HTMLElement ? new BudgetChip(chip, { url: data.urls.usage_limits, limits: data.budget_limits }) : null;
  const view = new GridView(root, { grid: data.grid, urls: data.urls, mode: data.mode, pollMs: data.poll_ms, budget, frozen: Boolean(data.frozen), source: data.source_settings ?? {}, profiles: data.profiles ?? [] });
  view.draw();
  if (data.mode === "owner") {
    view.listen();
    view.scorers();
    view.options();
    const panel = new ExperimentsPanel(one(root, "[data-experiments-panel]"), { urls: data.urls, columns: () => view.grid.columns });
    view.onIdle = () => panel.refresh();
    panel.refresh();
  }
}

start();
