// @ts-check
/**
 * A listed tool run by hand from the MCP panel (docs/mcp.md, "A tool run by hand"): a form
 * built from its input schema (mcp-schema.js), the input checked against the whole schema by
 * the vendored validator before anything is sent (render/schema.js), the call made as
 * POST /api/mcp/call/ (no conversation: it is not stored, nor is it a turn), its notices and
 * its result shown, and the result kept as a mock for the conversation if the person likes.
 *
 * Rule: the server's words (its description, the result) go in as text; an image of the
 * result is shown only once the app stored it (mcp-images.js). State for tests: the box's
 * data-state="idle|invalid|running|done|failed".
 */

import { apiFetch, csrfHeaders } from "./api.js";
import { el } from "./dom.js";
import { schemaForm } from "./mcp-form.js";
import { imagePreviews } from "./mcp-images.js";
import { noticeText, readLines } from "./mcp-plan.js";
import { QUESTION_KINDS, endQuestions, showQuestion } from "./mcp-questions.js";
import { schemaFields } from "./mcp-schema.js";
import { mockFromCall, resultText } from "./mock-match.js";
import { validateAgainstSchema } from "./render/schema.js";

/**
 * The by-hand box of one listed tool.
 * @param {{ name: string, server: string, mcpName: string, schema: any }} tool
 * @param {{ urls: Record<string, string>, addMock: ((mock: any) => Promise<boolean>) | null, profiles: any[] }} options
 */
export function byHandBox(tool, { urls, addMock, profiles }) {
  const fields = schemaFields(tool.schema ?? { type: "object" });
  const form = schemaForm(fields, { prefix: "byHand" });
  const run = el("button", { className: "btn btn-small", text: `Run on ${tool.server}`, attrs: { type: "button" }, dataset: { action: "mcp-by-hand-run" } });
  const status = el("p", { className: "muted", attrs: { "aria-live": "polite" }, dataset: { byHandStatus: "" } });
  const notices = el("ol", { className: "mcp-notices" });
  const output = el("pre", { className: "mcp-preview", attrs: { hidden: "" }, dataset: { byHandResult: "" } });
  const pictures = el("div", { className: "mcp-images" });
  const keep = el("button", { className: "btn btn-ghost btn-small", text: "Keep as a mock", attrs: { type: "button", hidden: "" }, dataset: { action: "mcp-by-hand-mock" } });
  const box = el("div", { className: "mcp-by-hand", dataset: { state: "idle" } }, form.element, el("div", { className: "field-row" }, run, keep), status, notices, output, pictures);
  /** @type {{ input: any, content: any, isError: boolean } | null} */
  let last = null;

  run.addEventListener("click", async () => {
    const read = form.read();
    const input = read.content ?? {};
    const problems = read.error ? [{ message: read.error }] : validateAgainstSchema(input, tool.schema ?? {});
    if (problems.length) {
      box.dataset.state = "invalid";
      status.textContent = `Not sent: ${problems.map((p) => ("path" in p && p.path !== "$" ? `${p.path}: ${p.message}` : p.message)).join("; ")}`;
      return;
    }
    box.dataset.state = "running";
    run.disabled = true;
    keep.hidden = true;
    status.textContent = "running…";
    notices.replaceChildren();
    pictures.replaceChildren();
    const reply = (question, answer) => apiFetch(urls.mcp_answers, { method: "POST", body: { question, answer } }).catch((error) => void (status.textContent = `the answer was not taken: ${error.message}`));
    const onNotice = (notice) => {
      if (QUESTION_KINDS.has(notice.kind)) return showQuestion({ bar: box, card: box, server: tool.server, notice, reply, profiles, runs: { addRun: () => {}, show: () => {} } });
      notices.append(el("li", { text: `+${notice.at_ms} ms ${noticeText(notice)}` }));
    };
    const final = await callOnce(urls.mcp_call, { server: tool.server, tool: tool.mcpName, input, approval: "once" }, onNotice);
    endQuestions(box, box);
    run.disabled = false;
    if (final.type !== "result") {
      box.dataset.state = "failed";
      status.textContent = final.error?.message ?? "the call failed";
      return;
    }
    last = { input, content: final.content, isError: Boolean(final.is_error) };
    output.textContent = resultText(final.content);
    output.hidden = false;
    pictures.replaceChildren(...imagePreviews(final.content, { server: tool.server, urls }));
    box.dataset.state = "done";
    status.textContent = `result in ${final.elapsed_ms} ms${final.is_error ? " (is_error)" : ""}`;
    keep.hidden = addMock === null;
  });

  keep.addEventListener("click", async () => {
    if (!last || !addMock) return;
    const mock = mockFromCall({ name: tool.name, input: last.input }, { content: last.content, isError: last.isError });
    status.textContent = (await addMock(mock)) ? `kept as a mock of ${tool.name} for this input` : "the mock was not saved (see the mocks dialog)";
  });
  return box;
}

/** One call over HTTP: its last line (result or error); notices as they come. */
async function callOnce(url, body, onNotice) {
  try {
    const response = await fetch(url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/x-ndjson", ...csrfHeaders() },
      body: JSON.stringify(body),
    });
    if (!response.ok || !response.body) {
      const answer = await response.json().catch(() => null);
      return { type: "error", error: answer?.error ?? { message: `the server answered ${response.status}` } };
    }
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
    let rest = "";
    let final = null;
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const read = readLines(rest + value);
      rest = read.rest;
      for (const line of read.values) {
        if (line.type === "notice") onNotice(line);
        else if (line.type === "result" || line.type === "error") final = line;
      }
    }
    return final ?? { type: "error", error: { message: "the answer ended before its result" } };
  } catch {
    return { type: "error", error: { message: "the server could not be reached" } };
  }
}
