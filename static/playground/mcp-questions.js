// @ts-check
/**
 * What a call's MCP server asks the person, on the call's card: a sampling request (its
 * messages, system prompt, model preferences and max tokens; the profile and model to answer
 * with, editable; Approve or Refuse; the answer streamed in, and the run it is) and an
 * elicitation (a form from its requested schema: Accept, Decline, Cancel; URL mode opens its
 * link only after the person agrees).
 *
 * Rule: the server's words go in as text only; the answer goes back through `reply(question,
 * answer)` (the socket, or POST /api/mcp/answers/: mcp-tools.js chooses). A sampling answer is a
 * run of its own (runs/aside.py): its card links it, and the inspector lists it (`runs.addRun`).
 * State for tests: the box's data-question-kind and data-state="asked|answered|done", the
 * card's data-mcp-question while one is open.
 */

import { el, one } from "./dom.js";
import { schemaForm } from "./mcp-form.js";
import { elicitationLink, samplingText } from "./mcp-plan.js";
import { schemaFields } from "./mcp-schema.js";

const SAMPLING_PREFIX = "pg:mcp-sampling"; // the profile and model last chosen per server

/** The notices that are a server's question to the person, or its progress. */
export const QUESTION_KINDS = new Set(["sampling", "sampling_run", "sampling_text", "sampling_done", "elicitation", "elicitation_done"]);

/**
 * One question notice drawn on the call's card (`bar` is its MCP bar).
 * @param {{ bar: HTMLElement, card: HTMLElement, server: string, notice: any, reply: (question: string, answer: any) => any, profiles: Array<{ name: string, label?: string, models?: string[] }>, runs: { addRun: (run: { id: string, label: string }) => void, show: (runId: string) => void } }} options
 */
export function showQuestion({ bar, card, server, notice, reply, profiles, runs }) {
  const id = notice.question;
  const box = /** @type {HTMLElement | null} */ (bar.querySelector(`.mcp-question[data-question="${CSS.escape(String(id))}"]`));
  if (notice.kind === "sampling" || notice.kind === "elicitation") {
    if (box) return;
    card.dataset.mcpQuestion = notice.kind;
    bar.append(notice.kind === "sampling" ? samplingBox(server, notice, reply, profiles) : elicitationBox(server, notice, reply));
    return;
  }
  if (!box) return;
  if (notice.kind === "sampling_run") return showRun(box, server, notice.run, runs);
  if (notice.kind === "sampling_text") return void one(box, "[data-sampling-answer]").append(notice.text);
  box.dataset.state = "done";
  delete card.dataset.mcpQuestion;
  let said = `answered: ${notice.action}`;
  if (notice.refused) said = "refused; the server was told";
  else if (notice.failed) said = `not answered (${notice.failed}); the server was told`;
  else if (notice.result) said = `answered by ${notice.profile} · ${notice.result.model}`;
  one(box, "[data-question-status]").textContent = said;
}

/** The sampling answer's run: named on the card, listed in the inspector, opened from here. */
function showRun(box, server, run, runs) {
  if (!run?.id) return;
  const label = `Sampling for ${server} · ${run.model} on ${run.profile}`;
  runs.addRun({ id: run.id, label });
  const open = el("button", { className: "btn btn-ghost btn-small", text: "Inspect its run", attrs: { type: "button" }, dataset: { action: "mcp-sampling-inspect", runId: run.id } });
  open.addEventListener("click", () => runs.show(run.id));
  one(box, "[data-sampling-run]").replaceChildren(el("span", { className: "muted", text: `A run of its own: ${run.model} on ${run.profile} ` }), open);
}

function samplingBox(server, notice, reply, profiles) {
  const request = notice.request ?? {};
  const key = `${SAMPLING_PREFIX}:${server}`;
  let chosen = {};
  try {
    chosen = JSON.parse(localStorage.getItem(key) ?? "{}") ?? {};
  } catch {
    // none kept: the first profile
  }
  const profile = el("select", { className: "input input-small", attrs: { "aria-label": "Profile to answer with" }, dataset: { samplingProfile: "" } });
  for (const option of profiles) profile.append(el("option", { text: option.label ?? option.name, attrs: { value: option.name } }));
  if (profiles.some((option) => option.name === chosen.profile)) profile.value = chosen.profile;
  const model = el("input", { className: "input input-small", attrs: { "aria-label": "Model", list: `mcp-models-${notice.question}` }, dataset: { samplingModel: "" } });
  const models = el("datalist", { attrs: { id: `mcp-models-${notice.question}` } });
  const fillModels = () => {
    const found = profiles.find((option) => option.name === profile.value);
    models.replaceChildren(...(found?.models ?? []).map((name) => el("option", { attrs: { value: name } })));
    if (!model.value || !(found?.models ?? []).includes(model.value)) model.value = found?.models?.[0] ?? "";
  };
  profile.addEventListener("change", fillModels);
  fillModels();
  if (chosen.model) model.value = chosen.model;
  const system = el("textarea", { className: "input", attrs: { rows: "2", "aria-label": "System prompt" }, dataset: { samplingSystem: "" } });
  system.value = request.system ?? "";
  const messages = el("textarea", { className: "input mono", attrs: { rows: "4", "aria-label": "Messages (JSON)" }, dataset: { samplingMessages: "" } });
  messages.value = JSON.stringify(request.messages ?? [], null, 2);
  const maxTokens = el("input", { className: "input input-small", attrs: { type: "number", min: "1", "aria-label": "Max tokens" }, dataset: { samplingMaxTokens: "" } });
  maxTokens.value = String(request.max_tokens ?? 1024);
  const status = el("span", { className: "muted", dataset: { questionStatus: "" }, attrs: { "aria-live": "polite" } });
  const approve = el("button", { className: "btn btn-small", text: "Approve", attrs: { type: "button" }, dataset: { action: "mcp-sampling-approve" } });
  const refuse = el("button", { className: "btn btn-ghost btn-small", text: "Refuse", attrs: { type: "button" }, dataset: { action: "mcp-sampling-refuse" } });
  const hints = [request.model_hints?.length ? `model hints: ${request.model_hints.join(", ")}` : "", Object.entries(request.priorities ?? {}).map(([name, value]) => `${name} ${value}`).join(", "), request.include_context ? `context: ${request.include_context}` : ""].filter(Boolean).join(" · ");
  const box = el(
    "div",
    { className: "mcp-question", dataset: { question: notice.question, questionKind: "sampling", state: "asked" } },
    el("strong", { text: `${server} asks for a model's answer (sampling)` }),
    el("pre", { className: "mcp-question-request", text: samplingText(request) }),
    el("p", { className: "muted", text: hints || "no model preferences" }),
    el("label", { className: "field" }, el("span", { text: "System prompt" }), system),
    el("label", { className: "field" }, el("span", { text: "Messages" }), messages),
    el("div", { className: "field-row" }, profile, model, models, maxTokens),
    el("div", { className: "field-row" }, approve, refuse, status),
    el("p", { className: "field-row", dataset: { samplingRun: "" } }),
    el("pre", { className: "mcp-question-answer", dataset: { samplingAnswer: "" } }),
  );
  const settle = (answer, words) => {
    approve.disabled = refuse.disabled = true;
    status.textContent = words;
    box.dataset.state = "answered";
    reply(notice.question, answer);
  };
  approve.addEventListener("click", () => {
    let edited;
    try {
      edited = JSON.parse(messages.value);
    } catch {
      status.textContent = "the messages are not JSON";
      return;
    }
    try {
      localStorage.setItem(key, JSON.stringify({ profile: profile.value, model: model.value }));
    } catch {
      // no storage: chosen again next time
    }
    settle({ action: "approve", profile: profile.value, model: model.value, request: { messages: edited, system: system.value, max_tokens: Number(maxTokens.value) } }, `running on ${profile.value} · ${model.value}…`);
  });
  refuse.addEventListener("click", () => settle({ action: "refuse" }, "refusing…"));
  return box;
}

function elicitationBox(server, notice, reply) {
  const params = notice.params ?? {};
  const status = el("span", { className: "muted", dataset: { questionStatus: "" }, attrs: { "aria-live": "polite" } });
  const button = (text, action, ghost = true) => el("button", { className: `btn btn-small${ghost ? " btn-ghost" : ""}`, text, attrs: { type: "button" }, dataset: { action } });
  const box = el("div", { className: "mcp-question", dataset: { question: notice.question, questionKind: "elicitation", state: "asked" } }, el("strong", { text: `${server} asks you` }), el("p", { text: params.message ?? "" }));
  const settle = (answer) => {
    for (const control of box.querySelectorAll("button, input, select, textarea")) /** @type {HTMLInputElement} */ (control).disabled = true;
    box.dataset.state = "answered";
    reply(notice.question, answer);
  };
  const decline = button("Decline", "mcp-elicit-decline");
  const cancel = button("Cancel", "mcp-elicit-cancel");
  decline.addEventListener("click", () => settle({ action: "decline" }));
  cancel.addEventListener("click", () => settle({ action: "cancel" }));
  if (params.mode === "url") {
    const link = elicitationLink(params.url);
    const open = button(link ? `Open ${link.origin}…` : "The link is not http(s): not opened", "mcp-elicit-open", false);
    open.disabled = !link;
    const confirm = el("div", { className: "field-row", attrs: { hidden: "" } }, el("span", { text: `Open ${link?.href ?? ""} in a new tab?` }));
    const yes = button("Yes, open it", "mcp-elicit-open-confirm", false);
    confirm.append(yes);
    open.addEventListener("click", () => {
      confirm.hidden = false; // nothing opens before the person agrees
    });
    yes.addEventListener("click", () => {
      if (!link) return;
      window.open(link.href, "_blank", "noopener,noreferrer");
      settle({ action: "accept" });
    });
    box.append(el("div", { className: "field-row" }, open, decline, cancel), confirm, status);
    return box;
  }
  const form = schemaForm(schemaFields(params.requestedSchema), { prefix: "elicit" });
  const accept = button("Accept", "mcp-elicit-accept", false);
  accept.addEventListener("click", () => {
    const read = form.read();
    if (read.error) {
      status.textContent = read.error;
      return;
    }
    settle({ action: "accept", content: read.content });
  });
  box.append(form.element, el("div", { className: "field-row" }, accept, decline, cancel, status));
  return box;
}

/** The call ended: a question still open on its card is withdrawn (the server was told). */
export function endQuestions(bar, card) {
  for (const box of bar.querySelectorAll(".mcp-question:not([data-state='done'])")) {
    const question = /** @type {HTMLElement} */ (box);
    question.dataset.state = "done";
    for (const control of question.querySelectorAll("button:not([data-action='mcp-sampling-inspect']), input, select, textarea")) /** @type {HTMLInputElement} */ (control).disabled = true;
    one(question, "[data-question-status]").textContent = "the call ended before this was answered; the server was told";
  }
  delete card.dataset.mcpQuestion;
}
