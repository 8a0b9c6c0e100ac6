// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/model-suggestions.js
var ModelSuggestions = class {
  #fetchModels;
  #onLoaded;
  #lists = /* @__PURE__ */ new Map();
  // profile name -> {models, source}, or "loading"
  constructor({ fetchModels, onLoaded }) {
    this.#fetchModels = fetchModels;
    this.#onLoaded = onLoaded;
  }
  /** Configured models first, then the upstream's, each once. */
  names(profile) {
    const listed = this.#lists.get(profile?.name);
    const fetched = typeof listed === "object" ? listed.models : [];
    return [.../* @__PURE__ */ new Set([...profile?.models ?? [], ...fetched])];
  }
  /** @param {string} profileName */
  note(profileName) {
    const listed = this.#lists.get(profileName);
    return typeof listed === "object" ? listed.note : "";
  }
  source(profileName) {
    const listed = this.#lists.get(profileName);
    if (listed === void 0 || listed === "loading") return "loading";
    return listed.source;
  }
  /** Ask for `profileName`'s list unless it was asked for already; resolves when settled. */
  async load(profileName) {
    if (!profileName || this.#lists.has(profileName)) return;
    this.#lists.set(profileName, "loading");
    let answer;
    try {
      const { models, source, note } = await this.#fetchModels(profileName);
      answer = {
        models: Array.isArray(models) ? models.filter((name) => typeof name === "string") : [],
        source: String(source),
        note: typeof note === "string" ? note : ""
      };
    } catch {
      answer = { models: [], source: "configured", note: "the model list could not be asked for" };
    }
    this.#lists.set(profileName, answer);
    this.#onLoaded(profileName);
  }
};

export {
  ModelSuggestions
};
