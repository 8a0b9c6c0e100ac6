// @ts-check
/**
 * The debugger's saved tool mocks: the dialog that lists, adds and deletes them, and on each
 * pending call's result card "Use mock" / "Save as mock" (an auto mock fills its card itself).
 *
 * Rule: the server keeps the list (PUT …/mocks/ with the whole list; it checks each mock as a
 * typed result is checked); which mock answers a call is mock-match.js's (pure). A card is
 * filled the way typing fills it (its textarea's input event, its is_error switch's change),
 * so drafts and "Send results" follow as for typed text. Nothing is sent from here.
 * State for tests: [data-mock-list][data-count]; a card's data-mock="none|available|used|auto".
 */

import { apiFetch } from "./api.js";
import { el, one, parts } from "./dom.js";
import { Modal, showError } from "./modal.js";
import { answerCalls, describeMatch, mockFor, mockFromCall, resultText } from "./mock-match.js";
import { parseResultContent } from "./tool-results.js";

function setField(node, property, value, eventName) {
  node[property] = value;
  node.dispatchEvent(new Event(eventName, { bubbles: true }));
}

export class ToolMocks {
  #modal;
  #url;
  #mocks;
  #parts;
  #cardsRoot;
  #toolNames;
  #calls = [];
  #version = 0;
  #autoFilled = new Set(); // call ids an auto mock filled once (a person may clear it after)

  constructor(dialog, { url, mocks, toolNames, toolResults, openers }) {
    this.#modal = new Modal(dialog);
    this.#url = url;
    this.#mocks = [...(mocks ?? [])];
    this.#toolNames = toolNames;
    this.#cardsRoot = toolResults;
    this.#parts = parts(dialog, {
      list: "[data-mock-list]",
      form: "[data-mock-form]",
      tool: "[data-mock-tool]",
      names: "[data-mock-tool-names]",
      match: "[data-mock-match]",
      content: "[data-mock-content]",
      isError: "[data-mock-is-error]",
      auto: "[data-mock-auto]",
      error: "[data-mock-error]",
    });
    this.#parts.form.addEventListener("submit", (event) => {
      event.preventDefault();
      this.#addFromForm();
    });
    for (const opener of openers) opener.addEventListener("click", () => this.open(opener));
    one(toolResults, "[data-action='answer-from-mocks']").addEventListener("click", () => this.answerAll());
    this.#drawList();
  }

  get mocks() {
    return this.#mocks;
  }

  open(opener) {
    this.#parts.names.replaceChildren(...this.#toolNames().map((name) => el("option", { attrs: { value: name } })));
    showError(this.#parts.error, "");
    this.#modal.open(opener);
  }

  /** Replace the list on the server; true when it was stored. */
  async save(mocks) {
    try {
      const answer = await apiFetch(this.#url, { method: "PUT", body: { tool_mocks: mocks } });
      this.#mocks = answer.tool_mocks;
      this.#version += 1;
      this.#drawList();
      this.decorate(this.#calls);
      return true;
    } catch (error) {
      showError(this.#parts.error, { message: `${error.message}${error.field ? ` (${error.field})` : ""}`, field: error.field });
      return false;
    }
  }

  async #addFromForm() {
    const { tool, match, content, isError, auto } = this.#parts;
    let matchValue = null;
    if (match.value.trim()) {
      try {
        matchValue = JSON.parse(match.value);
      } catch (error) {
        showError(this.#parts.error, { message: `match is not JSON: ${error.message}`, field: "match" });
        return;
      }
    }
    const mock = { tool: tool.value.trim(), match: matchValue, content: parseResultContent(content.value).content, is_error: isError.checked, auto: auto.checked };
    if (await this.save([...this.#mocks, mock])) {
      this.#parts.form.reset();
      showError(this.#parts.error, "");
    }
  }

  #drawList() {
    const list = this.#parts.list;
    list.dataset.count = String(this.#mocks.length);
    if (this.#mocks.length === 0) {
      list.replaceChildren(el("li", { className: "muted", text: "No mocks yet. Add one below, or “Save as mock” on a result card." }));
      return;
    }
    list.replaceChildren(
      ...this.#mocks.map((mock, index) => {
        const remove = el("button", { className: "btn btn-ghost btn-small", text: "Delete", attrs: { type: "button", "aria-label": `Delete mock ${index + 1}` }, dataset: { action: "delete-mock" } });
        remove.addEventListener("click", () => this.save(this.#mocks.filter((_, i) => i !== index)));
        const flags = [mock.is_error ? "is_error" : "", mock.auto ? "auto" : ""].filter(Boolean).join(" · ");
        return el(
          "li",
          { className: "mock-row", dataset: { tool: mock.tool, auto: String(mock.auto), isError: String(mock.is_error) } },
          el("code", { className: "mock-tool", text: mock.tool }),
          el("span", { className: "mock-match muted", text: describeMatch(mock.match) }),
          el("code", { className: "mock-content", text: resultText(mock.content).slice(0, 200) }),
          el("span", { className: "mock-flags", text: flags }),
          remove,
        );
      }),
    );
  }

  #card(callId) {
    return this.#cardsRoot.querySelector(`.tool-card[data-tool-use-id="${CSS.escape(String(callId))}"]`);
  }

  /** Fill `call`'s card with `mock`'s result; `how` is mirrored on the card. */
  fill(call, mock, how = "used") {
    const card = this.#card(call.id);
    if (!card) return false;
    setField(one(card, "[data-tool-result-input]"), "value", resultText(mock.content), "input");
    setField(one(card, "[data-tool-result-error]"), "checked", Boolean(mock.is_error), "change");
    card.dataset.mock = how;
    return true;
  }

  /** Fill every card that has a mock; {answered, missing} as mock-match.answerCalls. */
  answerAll(calls = this.#calls) {
    const outcome = answerCalls(calls, this.#mocks);
    for (const { call, mock } of outcome.answered) this.fill(call, mock);
    this.#cardsRoot.dataset.mocksMissing = String(outcome.missing.length);
    return outcome;
  }

  /** The pending calls' cards are drawn: add the mock bar to each; auto mocks fill empty cards. */
  decorate(calls) {
    this.#calls = calls;
    for (const call of calls) {
      const card = this.#card(call.id);
      if (!card) continue;
      const mock = mockFor(call, this.#mocks);
      const old = card.querySelector(":scope > .tool-card-mock");
      if (!old || old.dataset.version !== String(this.#version)) {
        const bar = this.#bar(call, card, mock);
        if (old) old.replaceWith(bar);
        else card.append(bar);
        if (!card.dataset.mock || card.dataset.mock === "none" || card.dataset.mock === "available") card.dataset.mock = mock ? "available" : "none";
      }
      const input = one(card, "[data-tool-result-input]");
      if (mock?.auto && !input.value.trim() && !this.#autoFilled.has(call.id)) {
        this.#autoFilled.add(call.id);
        this.fill(call, mock, "auto");
      }
    }
  }

  #bar(call, card, mock) {
    const bar = el("div", { className: "tool-card-mock", dataset: { version: String(this.#version) } });
    if (mock) {
      const use = el("button", { className: "btn btn-small", text: "Use mock", attrs: { type: "button", title: `Mock for ${describeMatch(mock.match)}` }, dataset: { action: "use-mock" } });
      use.addEventListener("click", () => this.fill(call, mock));
      bar.append(use, el("span", { className: "muted", text: `${describeMatch(mock.match)}${mock.is_error ? " · is_error" : ""}${mock.auto ? " · auto" : ""}` }));
    } else {
      bar.append(el("span", { className: "muted", text: "No mock for this call." }));
    }
    const keep = el("button", { className: "btn btn-ghost btn-small", text: "Save as mock", attrs: { type: "button" }, dataset: { action: "save-mock" } });
    keep.addEventListener("click", () => {
      const text = one(card, "[data-tool-result-input]").value;
      if (!text.trim()) return;
      const isError = one(card, "[data-tool-result-error]").checked;
      this.save([...this.#mocks, mockFromCall(call, { content: parseResultContent(text).content, isError })]);
    });
    bar.append(keep);
    return bar;
  }
}
