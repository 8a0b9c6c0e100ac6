// @ts-check
/**
 * In the inspector's Request tab: the shown run's request against the run before it, so each
 * step of a tool loop shows what it added (the last answer, the results) and anything else
 * that changed (settings, an edited request, a rewritten history).
 *
 * Rule: both bodies are the stored ones (GET /api/runs/<id>/), as sent; the run before is the
 * next older run among the inspector's choices. A run with no run before says so.
 * State for tests: [data-run-request-diff][data-state="empty|loading|shown|first|failed"].
 */

import { apiFetch } from "./api.js";
import { fillUrl, parts } from "./dom.js";

export class RunRequestDiff {
  #root;
  #url;
  #note;
  #list;
  #token = 0;

  constructor(root, { runUrl }) {
    this.#root = root;
    this.#url = runUrl;
    ({ note: this.#note, list: this.#list } = parts(root, {
      note: "[data-run-request-diff-note]",
      list: "[data-run-request-diff-list]",
    }));
  }

  /** Show `run`'s request against the run `previousId` (null: the first run). */
  async show(run, previousId) {
    const token = ++this.#token;
    this.#root.dataset.runId = run.id;
    if (!previousId) {
      this.#list.replaceChildren();
      this.#note.textContent = "The first run of this conversation: nothing to compare with.";
      this.#root.dataset.state = "first";
      return;
    }
    this.#root.dataset.state = "loading";
    this.#note.textContent = "Loading the run before…";
    try {
      // The diff's modules are loaded with the run before, on the first diff shown (not at open).
      const [before, { drawChanges }, { jsonDiff }] = await Promise.all([
        apiFetch(fillUrl(this.#url, { run_id: previousId })),
        import("./diff-view.js"),
        import("./json-diff.js"),
      ]);
      if (token !== this.#token) return;
      const changes = jsonDiff(before.request ?? {}, run.request ?? {});
      this.#note.textContent = `Against the run before (${before.model} on ${before.profile}, ${before.status}).`;
      drawChanges(this.#list, changes, { empty: "The same request as the run before." });
      this.#root.dataset.state = "shown";
    } catch (error) {
      if (token !== this.#token) return;
      this.#note.textContent = `Could not load the run before: ${error.message}`;
      this.#list.replaceChildren();
      this.#root.dataset.state = "failed";
    }
  }
}
