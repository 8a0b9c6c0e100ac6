// @ts-check
/**
 * Model suggestions for the model field: a profile's configured models, then the ones its
 * upstream lists (GET /api/profiles/<name>/models/, which the server fetches with the
 * profile's key and caches).
 *
 * Rule: PURE but for the `fetchModels(profileName)` it is given (a promise of the endpoint's
 * `{models, source}`). Each profile is asked once per page; a failure is quiet: the configured
 * models stay, and the field is free text either way. `onLoaded(profileName)` says a list
 * arrived, so the panel can redraw its datalist. `source(name)` is "loading", "upstream" or
 * "configured" (for the datalist's data-source, which tests wait on); `note(name)` is the
 * server's words for why only the configured models are offered (a wire with no model list,
 * an upstream that refused), shown under the field; "" when there is nothing to say.
 */

export class ModelSuggestions {
  #fetchModels;
  #onLoaded;
  #lists = new Map(); // profile name -> {models, source}, or "loading"

  constructor({ fetchModels, onLoaded }) {
    this.#fetchModels = fetchModels;
    this.#onLoaded = onLoaded;
  }

  /** Configured models first, then the upstream's, each once. */
  names(profile) {
    const listed = this.#lists.get(profile?.name);
    const fetched = typeof listed === "object" ? listed.models : [];
    return [...new Set([...(profile?.models ?? []), ...fetched])];
  }

  /** @param {string} profileName */
  note(profileName) {
    const listed = this.#lists.get(profileName);
    return typeof listed === "object" ? listed.note : "";
  }

  source(profileName) {
    const listed = this.#lists.get(profileName);
    if (listed === undefined || listed === "loading") return "loading";
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
        note: typeof note === "string" ? note : "",
      };
    } catch {
      answer = { models: [], source: "configured", note: "the model list could not be asked for" };
    }
    this.#lists.set(profileName, answer);
    this.#onLoaded(profileName);
  }
}
