// @ts-check
/**
 * The home page's "Start a conversation" form: the model field suggests the chosen upstream's
 * models only (configured first, then what its upstream lists, each once), and says whether
 * it may stay empty, and why only the configured models are offered when the upstream gives
 * no list (the server's words: a wire with none, a refusal).
 *
 * Rule: an empty model means the profile's first configured model (the server's
 * `create_conversation`); a profile that configures none needs one typed, so the field is
 * required then and its placeholder says why, before a refused POST would.
 */

import { apiFetch } from "./api.js";
import { el, fillUrl, one } from "./dom.js";
import { ModelSuggestions } from "./model-suggestions.js";

export function installHomeForm(root, { profiles, urls }) {
  const form = root.querySelector("[data-new-conversation]");
  if (!form) return;
  const select = one(form, "[data-home-profile]");
  const model = form.elements.model;
  const list = one(form, "[data-home-models]");
  const chosen = () => profiles.find((profile) => profile.name === select.value);
  const suggestions = new ModelSuggestions({
    fetchModels: (profile) => apiFetch(fillUrl(urls.profile_models, { profile })),
    onLoaded: () => draw(),
  });
  const draw = () => {
    const profile = chosen();
    list.replaceChildren(...suggestions.names(profile).map((name) => el("option", { attrs: { value: name } })));
    list.dataset.source = suggestions.source(profile?.name);
    const note = form.querySelector("[data-home-model-note]");
    if (note instanceof HTMLElement) {
      note.textContent = profile ? suggestions.note(profile.name) : "";
      note.hidden = !note.textContent;
    }
    const fallback = profile?.models?.[0];
    model.required = !fallback;
    model.placeholder = fallback ? `the upstream's default (${fallback})` : "required: this upstream names no default model";
  };
  select.addEventListener("change", () => {
    draw();
    suggestions.load(chosen()?.name);
  });
  draw();
  suggestions.load(chosen()?.name);
}
