// @ts-check
/**
 * The grid page's Experiments panel: every run of the grid kept as an experiment, a chart of
 * each column's pass rate over them, one chosen against a baseline (its flips and deltas), its
 * downloads and a read-only link; and the question a re-run asks first.
 *
 * Rule: the server says everything (GET …/experiments/, …/experiments/<id>/?baseline=, …/run/
 * plan/); the words are experiment-view.js's. Text enters the DOM through textContent. State for
 * tests: [data-experiments-panel][data-state=empty|ready|compared|error], the dialog
 * [data-confirm-run][open].
 */

import { apiFetch } from "../api.js";
import { el } from "../dom.js";
import { chartLines, compareLines, confirmText, experimentLine, flipWord } from "./experiment-view.js";

const SVG = "http://www.w3.org/2000/svg";
const CHART = { width: 240, height: 48 };

/** @param {string} tag @param {Record<string, string | number>} attrs */
function svg(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, String(value));
  return node;
}

export class ExperimentsPanel {
  /**
   * @param {HTMLElement} panel the [data-experiments-panel] element
   * @param {{urls: Record<string, string>, columns: () => Array<{label: string}>}} options
   */
  constructor(panel, { urls, columns }) {
    this.panel = panel;
    this.urls = urls;
    this.columns = columns;
    /** @type {any[]} */
    this.experiments = [];
    this.pick = /** @type {HTMLSelectElement} */ (panel.querySelector("[data-experiment]"));
    this.baseline = /** @type {HTMLSelectElement} */ (panel.querySelector("[data-baseline]"));
    this.pick.addEventListener("change", () => this.show());
    this.baseline.addEventListener("change", () => this.show());
    panel.querySelector("[data-experiment-share]")?.addEventListener("click", () => this.share());
  }

  /** Read the list again (after a run ended) and show the newest against the one before. */
  async refresh() {
    try {
      const { experiments } = await apiFetch(this.urls.experiments);
      this.experiments = experiments;
    } catch (error) {
      this.fail(error.message);
      return;
    }
    this.panel.hidden = false;
    if (!this.experiments.length) {
      this.panel.dataset.state = "empty";
      return;
    }
    const options = (/** @type {boolean} */ none) => [
      ...(none ? [el("option", { text: "No baseline", attrs: { value: "" } })] : []),
      ...this.experiments.map((experiment) => el("option", { text: experimentLine(experiment), attrs: { value: String(experiment.number) } })),
    ];
    this.pick.replaceChildren(...options(false));
    // A column of the chosen experiment may be the baseline of its others (a version against
    // a proposal, side by side): "column:N".
    const own = this.columns().map((column, index) => el("option", { text: `${column.label} (this experiment's column)`, attrs: { value: `column:${index}` } }));
    this.baseline.replaceChildren(...options(true), ...own);
    this.pick.value = String(this.experiments[0].number);
    // The page's address may name the baseline (#baseline=column:0, as "Try both" opens it).
    const asked = new URLSearchParams(location.hash.slice(1)).get("baseline");
    const named = [...this.baseline.options].some((option) => option.value === asked);
    this.baseline.value = asked && named ? asked : this.experiments[1] ? String(this.experiments[1].number) : "";
    this.chart();
    await this.show();
  }

  chart() {
    const box = svg("svg", { viewBox: `-4 -4 ${CHART.width + 8} ${CHART.height + 8}`, role: "img", class: "experiment-chart" });
    const labels = this.columns();
    chartLines(this.experiments, CHART).forEach((points, column) => {
      const line = svg("polyline", { points: points.map((p) => `${p.x},${p.y}`).join(" "), class: `experiment-line experiment-line-${column}` });
      box.append(line);
      for (const point of points) {
        const dot = svg("circle", { cx: point.x, cy: point.y, r: 2.5, class: `experiment-dot experiment-line-${column}` });
        const title = svg("title", {});
        title.textContent = `${labels[column]?.label ?? `Column ${column + 1}`} · #${point.number}: ${Math.round(point.rate * 100)}%`;
        dot.append(title);
        box.append(dot);
      }
    });
    const label = svg("title", {});
    label.textContent = "Each column's pass rate over the grid's experiments, oldest first";
    box.prepend(label);
    const legend = el("p", { className: "experiment-legend" }, ...labels.map((column, index) => el("span", { className: `experiment-key experiment-line-${index}`, text: column.label })));
    /** @type {HTMLElement} */ (this.panel.querySelector("[data-experiment-chart]")).replaceChildren(box, legend);
  }

  /** The chosen experiment, against the chosen baseline. */
  async show() {
    const chosen = this.experiments.find((experiment) => String(experiment.number) === this.pick.value);
    if (!chosen) return;
    const query = this.baseline.value && this.baseline.value !== this.pick.value ? `?baseline=${this.baseline.value}` : "";
    for (const kind of ["csv", "jsonl", "json", "xml"]) {
      const link = this.panel.querySelector(`[data-experiment-export="${kind}"]`);
      if (link) link.setAttribute("href", `${chosen.url}export.${kind}`);
    }
    const summary = /** @type {HTMLElement} */ (this.panel.querySelector("[data-compare-summary]"));
    const flips = /** @type {HTMLElement} */ (this.panel.querySelector("[data-compare-flips]"));
    try {
      const view = await apiFetch(`${chosen.url}${query}`);
      if (!view.compare) {
        summary.replaceChildren(el("li", { text: experimentLine(chosen) }));
        flips.replaceChildren();
        this.panel.dataset.state = "ready";
        return;
      }
      summary.replaceChildren(...compareLines(view.compare, view.columns).map((line) => el("li", { text: line })));
      const flipped = view.compare.cells.filter((/** @type {any} */ cell) => cell.flip);
      flips.replaceChildren(
        ...flipped.map((/** @type {any} */ cell) => {
          const label = view.columns[cell.column]?.label ?? `Column ${cell.column + 1}`;
          const text = `row ${cell.row + 1} · ${label}: ${flipWord(cell.flip)}`;
          return el("li", { text, dataset: { flip: cell.flip, place: `${cell.row}/${cell.column}` } });
        }),
      );
      this.panel.dataset.state = "compared";
    } catch (error) {
      this.fail(error.message);
    }
  }

  async share() {
    const chosen = this.experiments.find((experiment) => String(experiment.number) === this.pick.value);
    if (!chosen) return;
    try {
      const answer = await apiFetch(`${chosen.url}share/`, { method: "POST", body: {} });
      const link = /** @type {HTMLInputElement} */ (this.panel.querySelector("[data-experiment-share-link]"));
      link.hidden = false;
      link.value = answer.url;
      link.select();
    } catch (error) {
      this.fail(error.message);
    }
  }

  /** @param {string} text */
  fail(text) {
    this.panel.dataset.state = "error";
    const message = this.panel.querySelector("[data-experiments-message]");
    if (message) message.textContent = text;
  }
}

/**
 * Ask before a run that replaces answers, saying how many upstream calls it makes; resolves
 * true to run. A run of cells that never answered is not asked about.
 * @param {HTMLDialogElement} dialog the [data-confirm-run] dialog
 * @param {string} planUrl GET …/run/plan/
 * @param {{row?: number, column?: number, failed?: boolean}} body the run's request
 * @returns {Promise<boolean>}
 */
export async function confirmRun(dialog, planUrl, body) {
  const query = new URLSearchParams();
  if (body.row !== undefined) query.set("row", String(body.row));
  if (body.column !== undefined) query.set("column", String(body.column));
  if (body.failed) query.set("failed", "1");
  const plan = await apiFetch(`${planUrl}?${query}`);
  const text = confirmText(plan);
  if (text === null) return true;
  /** @type {HTMLElement} */ (dialog.querySelector("[data-confirm-text]")).textContent = text;
  return new Promise((resolve) => {
    const answer = (/** @type {boolean} */ yes) => () => {
      dialog.close();
      resolve(yes);
    };
    const yes = /** @type {HTMLElement} */ (dialog.querySelector("[data-confirm-yes]"));
    const no = /** @type {HTMLElement} */ (dialog.querySelector("[data-confirm-no]"));
    const controller = new AbortController();
    yes.addEventListener("click", answer(true), { signal: controller.signal });
    no.addEventListener("click", answer(false), { signal: controller.signal });
    dialog.addEventListener("close", () => { controller.abort(); resolve(false); }, { once: true });
    dialog.showModal();
  });
}
