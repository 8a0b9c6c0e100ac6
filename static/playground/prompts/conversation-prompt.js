// @ts-check
/**
 * The prompt library on a conversation page: "Save as a prompt version" (the Export menu's
 * item opens it), and, for a conversation started from a version, where it came from and
 * whether it has drifted, with "Save the drift as vN".
 *
 * Rule: a module of its own beside the page's bundle; it talks to the server only through
 * the conversation's /prompt/ endpoints and watches the page only through attributes the
 * page keeps (the run state, the settings form's saved line), so the page's modules know
 * nothing of it. Text enters the DOM through textContent. State for tests:
 * [data-prompt-origin][data-drifted], the dialog's [data-state].
 */

import { apiFetch, setCsrfToken } from "../api.js";
import { el, one, readPageData } from "../dom.js";
import { Modal, showError } from "../modal.js";

const RECHECK_MS = 300;

const data = readPageData();
setCsrfToken(data.csrf_token);
const banner = one(document, "[data-prompt-origin]");
const dialog = one(document, "[data-save-prompt-dialog]");
const modal = new Modal(dialog);
/** @type {{ origin: { prompt: string, version: number, newest?: number, url: string, drifted: boolean, changed: string[] } | null, prompts: string[], references?: string[] }} */
let known = { origin: null, prompts: [], references: [] };

/** What a compare column may name: each prompt's newest, and its labels. */
function drawReferences() {
  const list = document.querySelector("[data-prompt-references]");
  if (!list) return;
  const references = known.references ?? known.prompts;
  list.replaceChildren(...references.map((reference) => el("option", { attrs: { value: reference } })));
}

function drawOrigin() {
  const origin = known.origin;
  banner.hidden = origin === null;
  if (origin === null) return;
  banner.dataset.drifted = String(origin.drifted);
  const text = one(banner, "[data-prompt-origin-text]");
  text.replaceChildren(
    document.createTextNode("Started from the prompt "),
    el("a", { text: `${origin.prompt} v${origin.version}`, attrs: { href: origin.url } }),
    document.createTextNode(origin.drifted ? ` · changed since: ${origin.changed.join(", ")}` : " · unchanged"),
  );
  const save = one(banner, "[data-action='save-drift']");
  save.hidden = !origin.drifted;
  save.textContent = `Save as v${(origin.newest ?? origin.version) + 1}`;
}

async function check() {
  try {
    known = await apiFetch(banner.dataset.url);
    drawOrigin();
    drawReferences();
  } catch {
    // The banner is a convenience: a failed check leaves the last one shown.
  }
}

let timer = 0;
function recheckSoon() {
  clearTimeout(timer);
  timer = setTimeout(check, RECHECK_MS);
}

one(banner, "[data-action='save-drift']").addEventListener("click", async (event) => {
  const button = event.currentTarget;
  button.disabled = true;
  try {
    const saved = await apiFetch(banner.dataset.driftUrl, { method: "POST", body: { message: "" } });
    await check();
    const live = document.querySelector("[data-live-status]");
    if (live) live.textContent = `Saved ${saved.prompt} v${saved.number}`;
  } catch (error) {
    one(banner, "[data-prompt-origin-text]").textContent = error.message;
  } finally {
    button.disabled = false;
  }
});

document.addEventListener("click", (event) => {
  const opener = event.target instanceof Element ? event.target.closest("[data-action='save-prompt']") : null;
  if (!opener) return;
  const form = one(dialog, "[data-save-prompt-form]");
  form.reset();
  showError(one(dialog, "[data-save-prompt-error]"), "");
  one(dialog, "[data-save-prompt-done]").hidden = true;
  one(dialog, "[data-save-prompt-names]").replaceChildren(...known.prompts.map((name) => el("option", { attrs: { value: name } })));
  if (known.origin) form.elements.namedItem("name").value = known.origin.prompt;
  modal.open(document.querySelector("[data-action='toggle-export']") ?? opener);
});

one(dialog, "[data-save-prompt-form]").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = event.currentTarget;
  const fields = new FormData(form);
  const error = one(dialog, "[data-save-prompt-error]");
  try {
    const saved = await apiFetch(banner.dataset.url, {
      method: "POST",
      body: { name: String(fields.get("name") ?? "").trim(), message: String(fields.get("message") ?? "") },
    });
    showError(error, "");
    const done = one(dialog, "[data-save-prompt-done]");
    done.replaceChildren(
      document.createTextNode(saved.created ? `Saved as ${saved.prompt} v${saved.number}. ` : `${saved.prompt} v${saved.number} already holds this. `),
      el("a", { text: "Open the prompt", attrs: { href: saved.url } }),
    );
    done.hidden = false;
    await check();
  } catch (failure) {
    showError(error, failure);
  }
});

// The page's own attributes say when the conversation may have changed: a run ended, the
// settings were saved, the variables or mocks were stored, or the person came back to the tab.
const app = document.getElementById("app");
if (app) new MutationObserver(recheckSoon).observe(app, { attributes: true, attributeFilter: ["data-run-state"] });
const settingsState = document.querySelector("[data-settings-state]");
if (settingsState) new MutationObserver(recheckSoon).observe(settingsState, { childList: true, characterData: true, subtree: true });
window.addEventListener("focus", recheckSoon);
check();
