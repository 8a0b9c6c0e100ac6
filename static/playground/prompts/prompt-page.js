// @ts-check
/**
 * The prompt library's pages: the list (make a prompt, import a file), a prompt (its versions,
 * any two compared side by side, labels and their history, roll back, open in a conversation,
 * Improve, use in code, export, share), and a read-only link's prompt.
 *
 * Rule: the server's JSON is the truth; after each change the prompt is read again and drawn
 * whole. Text diffs come from the server (prompts/diffs.py), the structural diff of tools,
 * schema and settings is json-diff.js drawn by diff-view.js, as the request editor's. Every
 * string enters the DOM through textContent (dom.js `el`). No globals, no inline script.
 * State for tests: main[data-state=loading|ready|error], [data-diff][data-state], each
 * version li[data-number], the compare selects' values.
 */

import { apiFetch, apiUpload, setCsrfToken } from "../api.js";
import { drawChanges } from "../diff-view.js";
import { copyText, el, fillUrl, one, readPageData } from "../dom.js";
import { jsonDiff } from "../json-diff.js";
import { Modal, showError } from "../modal.js";
import { defaultPair, importedWords, messagesText, serveSnippets, STRUCTURED, whenText } from "./prompt-view.js";
import { textDiffBlock } from "./text-diff-view.js";

const root = one(document, "#prompt-page");
const data = readPageData();
setCsrfToken(data.csrf_token);

function say(text) {
  const node = root.querySelector("[data-message]");
  if (node) node.textContent = text;
  const live = document.querySelector("[data-live-status]");
  if (live) live.textContent = text;
}

// --- The list -----------------------------------------------------------------------------

function drawList() {
  const list = one(root, "[data-prompt-list]");
  list.replaceChildren(
    ...data.prompts.map((prompt) =>
      el(
        "li",
        { dataset: { prompt: prompt.name } },
        el("a", { text: prompt.name, attrs: { href: prompt.url } }),
        el("span", { className: "muted", text: ` · changed ${whenText(prompt.updated_at)}` }),
        prompt.description ? el("p", { className: "muted prompt-list-description", text: prompt.description }) : null,
      ),
    ),
  );
  one(root, "[data-prompt-empty]").hidden = data.prompts.length > 0;
  const form = one(root, "[data-new-prompt]");
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = one(form, "[data-new-error]");
    const fields = new FormData(form);
    try {
      const made = await apiFetch(data.urls.prompts, {
        method: "POST",
        body: { name: String(fields.get("name")).trim(), definition: { system: String(fields.get("system")) }, message: "Created" },
      });
      location.assign(made.urls.page);
    } catch (failure) {
      showError(error, failure);
    }
  });
  const importForm = one(root, "[data-import-prompt]");
  importForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = one(importForm, "[data-import-error]");
    const fields = new FormData(importForm);
    const file = fields.get("file");
    const name = String(fields.get("name") ?? "").trim();
    try {
      let answer;
      if (file instanceof File && file.size > 0) {
        const upload = new FormData();
        upload.append("file", file);
        if (name) upload.append("name", name);
        answer = await apiUpload(data.urls.import, upload);
      } else {
        answer = await apiFetch(data.urls.import, { method: "POST", body: { text: String(fields.get("text") ?? ""), name: name || null } });
      }
      showError(error, "");
      one(importForm, "[data-import-done]").replaceChildren(
        document.createTextNode(`${importedWords(answer)} `),
        el("a", { text: `Open ${answer.prompt.name}`, attrs: { href: answer.prompt.urls.page } }),
      );
      importForm.reset();
    } catch (failure) {
      showError(error, failure);
    }
  });
  root.dataset.state = "ready";
}

// --- A prompt -----------------------------------------------------------------------------

class PromptView {
  constructor() {
    this.prompt = data.prompt;
    this.urls = data.urls;
    this.owner = data.mode === "owner";
    /** @type {[number, number] | null} the versions compared */
    this.pair = defaultPair(this.prompt.versions);
    this.diffToken = 0;
  }

  /** The version shown on the right (the "To" side): what the actions act on. */
  get current() {
    return this.pair ? this.pair[1] : null;
  }

  draw() {
    one(root, "[data-description]").textContent = this.prompt.description;
    this.drawVersions();
    this.drawSelects();
    this.drawLabels();
    this.drawExports();
    if (this.owner) {
      root.querySelector("[data-action='unshare']").hidden = !this.prompt.shared;
    }
    root.dataset.state = "ready";
  }

  drawVersions() {
    const list = one(root, "[data-version-list]");
    const [a, b] = this.pair ?? [null, null];
    list.replaceChildren(
      ...this.prompt.versions.map((version) => {
        const item = el("li", { className: "version-item", dataset: { number: String(version.number) } });
        if (version.number === b) item.dataset.side = "b";
        else if (version.number === a) item.dataset.side = "a";
        const button = el("button", { className: "version-pick", attrs: { type: "button", "aria-pressed": String(version.number === b) }, dataset: { pick: String(version.number) } });
        button.append(el("span", { className: "version-number", text: `v${version.number}` }));
        button.append(el("span", { className: "version-message", text: version.message || version.origin || "(no message)" }));
        const meta = [version.author, whenText(version.created_at)].filter(Boolean).join(" · ");
        button.append(el("span", { className: "muted version-meta", text: meta }));
        item.append(button);
        if (version.labels.length) {
          const chips = el("span", { className: "version-labels" });
          for (const label of version.labels) chips.append(el("span", { className: "badge label-chip", text: label }));
          item.append(chips);
        }
        return item;
      }),
    );
  }

  drawSelects() {
    const options = () => this.prompt.versions.map((version) => el("option", { text: `v${version.number}${version.labels.length ? ` (${version.labels.join(", ")})` : ""}`, attrs: { value: String(version.number) } }));
    for (const side of ["a", "b"]) {
      const select = one(root, `[data-compare="${side}"]`);
      select.replaceChildren(...options());
      if (this.pair) select.value = String(this.pair[side === "a" ? 0 : 1]);
    }
    const labelVersion = root.querySelector("[data-label-version]");
    if (labelVersion) {
      labelVersion.replaceChildren(...options());
      if (this.current !== null) labelVersion.value = String(this.current);
    }
  }

  drawLabels() {
    const list = one(root, "[data-label-list]");
    list.replaceChildren(
      ...this.prompt.labels.map((label) => {
        const item = el("li", { dataset: { label: label.name } });
        item.append(el("span", { className: "badge label-chip", text: label.name }), el("span", { text: ` → v${label.version}` }));
        item.append(el("span", { className: "muted", text: ` · ${whenText(label.moved_at)}` }));
        if (this.owner) item.append(el("button", { className: "btn btn-ghost btn-small", text: "Remove", attrs: { type: "button", "aria-label": `Remove the label ${label.name}` }, dataset: { removeLabel: label.name } }));
        return item;
      }),
    );
    if (!this.prompt.labels.length) list.append(el("li", { className: "muted", text: "No labels yet." }));
    const history = one(root, "[data-label-history]");
    history.replaceChildren(
      ...this.prompt.label_history.map((move) => {
        const where = move.version === null ? "removed" : `→ v${move.version}`;
        const from = move.previous === null ? "" : ` (was v${move.previous})`;
        const who = move.by ? ` by ${move.by}` : "";
        return el("li", { text: `${move.label} ${where}${from}${who}, ${whenText(move.at)}` });
      }),
    );
    if (!this.prompt.label_history.length) history.append(el("li", { className: "muted", text: "No label has moved yet." }));
  }

  drawExports() {
    for (const kind of ["yaml", "json"]) {
      const all = root.querySelector(`[data-export="${kind}"]`);
      if (all) all.href = this.urls[`export_${kind}`];
      const one_ = root.querySelector(`[data-export-one="${kind}"]`);
      if (one_) one_.href = `${this.urls[`export_${kind}`]}?version=${this.current ?? ""}`;
    }
  }

  async showDiff() {
    const box = one(root, "[data-diff]");
    if (!this.pair) {
      box.replaceChildren(el("p", { className: "muted", text: "This prompt has no version yet." }));
      return;
    }
    const token = ++this.diffToken;
    box.dataset.state = "loading";
    const [a, b] = this.pair;
    try {
      const diff = await apiFetch(`${this.urls.diff}?a=${a}&b=${b}`);
      if (token !== this.diffToken) return; // a later choice overtook this one
      this.drawDiff(box, diff);
      box.dataset.state = "ready";
    } catch (error) {
      if (token !== this.diffToken) return;
      box.replaceChildren(el("p", { className: "form-error", text: error.message }));
      box.dataset.state = "error";
    }
  }

  drawDiff(box, diff) {
    const { a, b } = diff;
    this.latestDefinition = b.definition; // what Improve and Use in code start from
    const same = a.number === b.number;
    const meta = same ? `v${b.number} alone` : `v${a.number} → v${b.number}`;
    one(root, "[data-compare-meta]").textContent = `${meta} · ${b.message || b.origin || ""}`;
    const blocks = [
      textDiffBlock("System prompt", same ? { changed: false, rows: [] } : diff.text.system, b.definition.system),
      textDiffBlock("Template messages", same ? { changed: false, rows: [] } : diff.text.messages, messagesText(b.definition.messages) || "(no turns)"),
    ];
    const structured = el("section", { className: "card structured-diff" }, el("h3", { className: "section-title", text: "Tools, schema and settings" }));
    for (const [key, title] of STRUCTURED) {
      const changes = jsonDiff(a.definition[key], b.definition[key]);
      if (same || changes.length === 0) continue;
      const list = el("ul", { className: "diff-list", dataset: { key } });
      drawChanges(list, changes.map((change) => ({ ...change, path: change.path === "(the whole value)" ? key : `${key}.${change.path}`.replace(".[", "[") })));
      structured.append(el("h4", { className: "structured-title", text: title }), list);
    }
    if (structured.childElementCount === 1) {
      const summary = same ? "Showing one version: choose another under From to compare." : "No difference in tools, output schema, settings, variables or mocks.";
      structured.append(el("p", { className: "muted", text: summary, dataset: { noStructuredChange: "" } }));
      if (same) structured.append(el("pre", { className: "tdiff-whole", text: JSON.stringify(Object.fromEntries(STRUCTURED.map(([key]) => [key, b.definition[key]])), null, 2) }));
    }
    box.replaceChildren(...blocks, structured);
  }

  /** @param {number} a @param {number} b */
  choose(a, b) {
    this.pair = [a, b];
    this.drawVersions();
    this.drawSelects();
    this.drawExports();
    this.showDiff();
  }

  async reload({ newest = false } = {}) {
    this.prompt = await apiFetch(this.owner ? this.urls.prompt : this.urls.prompt);
    if (newest || !this.pair) this.pair = defaultPair(this.prompt.versions);
    this.draw();
    await this.showDiff();
  }

  listen() {
    root.addEventListener("click", (event) => {
      const target = event.target.closest("button");
      if (!target) return;
      if (target.dataset.pick !== undefined) {
        const picked = Number(target.dataset.pick);
        // Picking a version shows it against the one before it (or what From already holds).
        const before = this.prompt.versions.find((version) => version.number < picked);
        this.choose(before ? before.number : picked, picked);
      } else if (target.dataset.removeLabel !== undefined) this.removeLabel(target.dataset.removeLabel);
    });
    for (const side of ["a", "b"]) {
      one(root, `[data-compare="${side}"]`).addEventListener("change", () => {
        const a = Number(one(root, "[data-compare='a']").value);
        const b = Number(one(root, "[data-compare='b']").value);
        this.choose(a, b);
      });
    }
    if (!this.owner) return;
    const act = (name, handler) => one(root, `[data-action='${name}']`).addEventListener("click", handler);
    act("open-conversation", () => this.openConversation());
    act("rollback", () => this.rollback());
    act("share", () => this.share());
    act("unshare", () => this.unshare());
    act("describe", (event) => this.describe(event.currentTarget));
    act("describe-cancel", () => this.describe(one(root, "[data-action='describe']"), false));
    one(root, "[data-describe-form]").addEventListener("submit", (event) => {
      event.preventDefault();
      this.saveDescription(event.currentTarget);
    });
    // Deleting asks once more in the page (no window.confirm): a second, red button.
    act("delete-prompt", () => {
      const confirm = one(root, "[data-action='delete-confirm']");
      confirm.hidden = !confirm.hidden;
      if (!confirm.hidden) confirm.focus();
    });
    act("delete-confirm", () => this.remove());
    one(root, "[data-label-form]").addEventListener("submit", (event) => {
      event.preventDefault();
      this.moveLabel(event.currentTarget);
    });
  }

  async openConversation() {
    try {
      const made = await apiFetch(fillUrl(this.urls.conversation, { n: this.current }), { method: "POST", body: {} });
      location.assign(made.url);
    } catch (error) {
      say(error.message);
    }
  }

  async rollback() {
    const to = this.current;
    const newest = this.prompt.versions[0]?.number;
    if (to === newest) {
      say(`v${to} is the newest version already.`);
      return;
    }
    try {
      const made = await apiFetch(fillUrl(this.urls.rollback, { n: to }), { method: "POST", body: {} });
      await this.reload({ newest: true });
      say(`Saved v${made.number}, equal to v${to}.`);
    } catch (error) {
      say(error.message);
    }
  }

  async moveLabel(form) {
    const error = one(form, "[data-label-error]");
    const fields = new FormData(form);
    const label = String(fields.get("label") ?? "").trim();
    try {
      this.prompt = await apiFetch(fillUrl(this.urls.label, { label }), { method: "PUT", body: { version: Number(fields.get("version")) } });
      showError(error, "");
      this.draw();
      say(`${label} now points at v${fields.get("version")}.`);
    } catch (failure) {
      showError(error, failure);
    }
  }

  async removeLabel(label) {
    try {
      await apiFetch(fillUrl(this.urls.label, { label }), { method: "DELETE" });
      await this.reload();
      say(`Removed the label ${label}.`);
    } catch (error) {
      say(error.message);
    }
  }

  describe(button, open = button.getAttribute("aria-expanded") !== "true") {
    const form = one(root, "[data-describe-form]");
    form.hidden = !open;
    button.setAttribute("aria-expanded", String(open));
    if (open) {
      const box = form.elements.namedItem("description");
      box.value = this.prompt.description;
      box.focus();
    }
  }

  async saveDescription(form) {
    const error = one(form, "[data-describe-error]");
    try {
      const description = String(new FormData(form).get("description") ?? "");
      this.prompt = await apiFetch(this.urls.prompt, { method: "PATCH", body: { description } });
      showError(error, "");
      this.describe(one(root, "[data-action='describe']"), false);
      this.draw();
      say("Description saved.");
    } catch (failure) {
      showError(error, failure);
    }
  }

  async remove() {
    try {
      await apiFetch(this.urls.prompt, { method: "DELETE" });
      location.assign(this.urls.list);
    } catch (error) {
      say(error.message);
    }
  }

  async share() {
    try {
      const answer = await apiFetch(this.urls.share, { method: "POST", body: {} });
      const link = one(root, "[data-share-link]");
      link.hidden = false;
      link.value = answer.url;
      link.select();
      one(root, "[data-action='unshare']").hidden = false;
      say("Anyone with the link can read this prompt's versions. Copy it now: it is shown only once.");
    } catch (error) {
      say(error.message);
    }
  }

  async unshare() {
    try {
      await apiFetch(this.urls.share, { method: "DELETE" });
      one(root, "[data-share-link]").hidden = true;
      one(root, "[data-action='unshare']").hidden = true;
      say("The read-only link no longer works.");
    } catch (error) {
      say(error.message);
    }
  }
}

// --- Improve ------------------------------------------------------------------------------

class Improve {
  constructor(view) {
    this.view = view;
    this.dialog = one(document, "[data-improve-dialog]");
    this.modal = new Modal(this.dialog);
    this.proposal = null;
    const profiles = one(this.dialog, "[data-improve-profile]");
    profiles.replaceChildren(...data.profiles.map((profile) => el("option", { text: profile.label, attrs: { value: profile.name } })));
    profiles.addEventListener("change", () => this.fillModels());
    one(this.dialog, "[data-improve-meta]").value = data.meta_prompt;
    one(root, "[data-action='open-improve']").addEventListener("click", (event) => this.open(event.currentTarget));
    one(this.dialog, "[data-improve-form]").addEventListener("submit", (event) => {
      event.preventDefault();
      this.run();
    });
    one(this.dialog, "[data-action='accept-proposal']").addEventListener("click", () => this.accept());
    one(this.dialog, "[data-action='try-proposal']").addEventListener("click", () => this.tryInGrid());
  }

  fillModels() {
    const name = one(this.dialog, "[data-improve-profile]").value;
    const profile = data.profiles.find((item) => item.name === name);
    const models = profile?.models ?? [];
    one(this.dialog, "[data-improve-models]").replaceChildren(...models.map((model) => el("option", { attrs: { value: model } })));
    one(this.dialog, "[data-improve-model]").value = models[0] ?? "";
  }

  open(opener) {
    this.proposal = null;
    this.base = this.view.current;
    one(this.dialog, "[data-improve-base]").textContent = `v${this.base}`;
    one(this.dialog, "[data-improve-result]").hidden = true;
    showError(one(this.dialog, "[data-improve-error]"), "");
    this.dialog.dataset.proposal = "none";
    const definition = this.view.latestDefinition;
    const profiles = one(this.dialog, "[data-improve-profile]");
    if (definition && data.profiles.some((item) => item.name === definition.profile)) profiles.value = definition.profile;
    this.fillModels();
    this.modal.open(opener);
  }

  async run() {
    const form = one(this.dialog, "[data-improve-form]");
    const fields = new FormData(form);
    const state = one(this.dialog, "[data-improve-state]");
    const button = one(this.dialog, "[data-improve-run]");
    button.disabled = true;
    state.textContent = "Asking the model…";
    this.dialog.dataset.proposal = "asking";
    try {
      const answer = await apiFetch(this.view.urls.improve, {
        method: "POST",
        body: { version: this.base, profile: String(fields.get("profile")), model: String(fields.get("model")), meta_prompt: String(fields.get("meta_prompt")) },
      });
      this.proposal = answer;
      showError(one(this.dialog, "[data-improve-error]"), "");
      one(this.dialog, "[data-improve-notes]").textContent = answer.notes || "(no notes)";
      one(this.dialog, "[data-improve-diff]").replaceChildren(textDiffBlock("Proposed system prompt", answer.text.system, answer.proposal.system));
      one(this.dialog, "[data-improve-message]").value = `Improved by ${answer.model} from v${answer.base}`;
      one(this.dialog, "[data-improve-result]").hidden = false;
      one(this.dialog, "[data-action='accept-proposal']").disabled = !answer.changed;
      this.dialog.dataset.proposal = answer.changed ? "ready" : "unchanged";
      state.textContent = answer.changed ? "" : "No change proposed.";
    } catch (error) {
      showError(one(this.dialog, "[data-improve-error]"), error);
      state.textContent = "";
      this.dialog.dataset.proposal = "error";
    } finally {
      button.disabled = false;
    }
  }

  /**
   * A grid of the version (the baseline, first) and the proposal, run, then opened with the
   * experiment's first column as the baseline of the second: a conversation started from the
   * version, a grid of two columns over it, each naming the version (the proposal's system
   * prompt the second's one change), the variables' defaults as its test case.
   */
  async tryInGrid() {
    if (!this.proposal) return;
    const error = one(this.dialog, "[data-improve-error]");
    const base = this.proposal.base;
    const definition = await apiFetch(fillUrl(this.view.urls.version, { n: base })).then((version) => version.definition).catch((failure) => failure);
    if (definition instanceof Error) return showError(error, definition);
    if (!definition.messages.some((message) => message.role === "user")) {
      return showError(error, `v${base} has no user turn to run: open it in a conversation, write one, and save the drift first.`);
    }
    try {
      const started = await apiFetch(fillUrl(this.view.urls.conversation, { n: base }), { method: "POST", body: {} });
      const grid = await apiFetch(fillUrl(this.view.urls.conversation_grids, { conversation_id: started.id }), {
        method: "POST",
        body: {
          title: `${this.view.prompt.name}: v${base} against the proposal`,
          // Each column names the version, so the experiment records it; the proposal is
          // the version with its system prompt changed.
          columns: [
            { label: `v${base}`, changes: { prompt: `${this.view.prompt.name}@v${base}` } },
            { label: "proposal", changes: { prompt: `${this.view.prompt.name}@v${base}`, system: this.proposal.proposal.system } },
          ],
          rows: [definition.variables],
        },
      });
      await apiFetch(fillUrl(this.view.urls.grid_run, { grid_id: grid.id }), { method: "POST", body: {} });
      // Opened with the version's column as the baseline of the proposal's.
      location.assign(`${fillUrl(this.view.urls.grid_page, { grid_id: grid.id })}#baseline=column:0`);
    } catch (failure) {
      showError(error, failure);
    }
  }

  async accept() {
    if (!this.proposal) return;
    try {
      const saved = await apiFetch(this.view.urls.versions, {
        method: "POST",
        body: {
          definition: this.proposal.proposal,
          message: one(this.dialog, "[data-improve-message]").value,
          origin: `improved by ${this.proposal.model} from v${this.proposal.base}`,
        },
      });
      this.modal.close();
      await this.view.reload({ newest: true });
      say(`Saved v${saved.number}.`);
    } catch (error) {
      showError(one(this.dialog, "[data-improve-error]"), error);
    }
  }
}

// --- Use in code --------------------------------------------------------------------------

class Serve {
  constructor(view) {
    this.view = view;
    this.dialog = one(document, "[data-serve-dialog]");
    this.modal = new Modal(this.dialog);
    this.texts = { curl: "", python: "" };
    this.lang = "curl";
    one(root, "[data-action='open-serve']").addEventListener("click", (event) => this.open(event.currentTarget));
    one(this.dialog, "[data-serve-choice]").addEventListener("change", () => this.draw());
    this.dialog.querySelectorAll("[data-serve-tab]").forEach((tab) =>
      tab.addEventListener("click", () => {
        this.lang = tab.dataset.serveTab;
        this.dialog.querySelectorAll("[data-serve-tab]").forEach((other) => other.setAttribute("aria-selected", String(other === tab)));
        this.dialog.querySelectorAll("[data-serve-panel]").forEach((panel) => (panel.hidden = panel.dataset.servePanel !== this.lang));
      }),
    );
    one(this.dialog, "[data-action='copy-serve']").addEventListener("click", (event) => copyText(event.currentTarget, this.texts[this.lang]));
  }

  open(opener) {
    const choices = [
      ...this.view.prompt.labels.map((label) => el("option", { text: `label ${label.name} (now v${label.version})`, attrs: { value: `label:${label.name}` } })),
      el("option", { text: "label latest (the newest version)", attrs: { value: "label:latest" } }),
      el("option", { text: `version ${this.view.current} exactly`, attrs: { value: `version:${this.view.current}` } }),
    ];
    one(this.dialog, "[data-serve-choice]").replaceChildren(...choices);
    this.draw();
    this.modal.open(opener);
  }

  draw() {
    const [kind, value] = one(this.dialog, "[data-serve-choice]").value.split(/:(.*)/s);
    const variables = this.view.latestDefinition?.variables ?? {};
    const choice = kind === "version" ? { version: Number(value), variables } : { label: value, variables };
    this.texts = serveSnippets(this.view.urls.serve_absolute, choice, { token: data.login_required });
    for (const lang of ["curl", "python"]) one(this.dialog, `[data-serve-code="${lang}"]`).textContent = this.texts[lang];
  }
}

// --- Start --------------------------------------------------------------------------------

if (data.mode === "list") {
  drawList();
} else {
  const view = new PromptView();
  view.latestDefinition = data.latest?.definition ?? null;
  view.draw();
  view.listen();
  if (view.owner) {
    new Improve(view);
    new Serve(view);
  }
  view.showDiff();
}
