// @ts-check
/**
 * The public share page: draw the snapshot's turns with the playground's render modules, and
 * "Continue in my playground".
 *
 * Rule: every stored turn goes through renderMessage (the same safe rendering as the
 * playground); everything else enters the DOM through textContent. No globals, no inline
 * script: the payload comes from the json_script element #page-data. State for tests:
 * main#share[data-state=loading|ready], form#fork-form[data-state=idle|busy|error].
 */

import { el, one, readPageData } from "./dom.js";
import { formatMs } from "./format.js";
import { renderMessage, serverToolNames, setFileUrl } from "./render/index.js";
import { answerText, checkOutput, outputSchemaOf, showOutputCheck } from "./output-check.js";
import { usageWords } from "./turn-meta.js";

/** One line under an assistant turn: model, status, stop reason, usage, time, error. A run cut
 * short before the upstream's count shows the playground's estimate, never "out 0" under text. */
function runLine(run, content) {
  const line = el("p", { className: "share-run turn-meta" });
  line.dataset.status = String(run.status ?? "");
  if (run.stop_reason) line.dataset.stopReason = String(run.stop_reason);
  const parts = [String(run.model ?? ""), String(run.status ?? "")];
  if (run.stop_reason) parts.push(`stop: ${run.stop_reason}`);
  const usage = usageWords(run, content).text;
  if (usage) parts.push(usage);
  const duration = formatMs(run.duration_ms);
  if (duration) parts.push(duration);
  line.textContent = parts.filter(Boolean).join(" · ");
  if (run.error) {
    const error = el("span", { className: "share-run-error", text: ` — ${run.error.code}: ${run.error.message}` });
    line.append(error);
  }
  return line;
}

function renderTurns(container, share) {
  const toolSchemas =
    share.tool_schemas && Object.keys(share.tool_schemas).length ? share.tool_schemas : undefined;
  // Server tool calls are judged as the conversation's page judges them: by the server tools
  // the snapshot declares, none included (a share that hides tools shows no call to judge).
  const serverTools = Array.isArray(share.server_tools) ? serverToolNames(share.server_tools) : undefined;
  const outputSchema = outputSchemaOf(share);
  share.messages.forEach((message, index) => {
    // The playground's turn card (app.css .msg), so a share reads like the page it came from.
    const wrapper = el("article", { className: `share-turn msg msg-${message.role === "user" ? "user" : "assistant"}` });
    wrapper.dataset.role = message.role;
    const head = el("header", { className: "msg-head" });
    head.append(el("span", { className: "msg-role", text: message.role === "user" ? "User" : "Assistant" }));
    wrapper.append(head);
    wrapper.append(
      renderMessage(
        { id: `share-${index}`, role: message.role, content: message.content, run: message.run },
        { toolSchemas, serverTools },
      ),
    );
    // A structured answer is checked against its schema, as on the conversation's page.
    if (outputSchema && message.role === "assistant") showOutputCheck(wrapper, checkOutput(answerText(message.content), outputSchema));
    if (message.hidden > 0) {
      const note = el("p", {
        className: "share-hidden",
        text: `${message.hidden} block${message.hidden === 1 ? "" : "s"} hidden by the sharer`,
      });
      wrapper.append(note);
    }
    if (message.run) wrapper.append(runLine(message.run, message.content));
    container.append(wrapper);
  });
}

function setupFork(form, csrfToken) {
  const status = form.querySelector("#fork-status");
  form.dataset.state = "idle";
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    form.dataset.state = "busy";
    status.textContent = "Copying…";
    try {
      // The page's policy is no-referrer; by the Fetch spec a POST under it may carry
      // "Origin: null", which fails Django's CSRF origin check. Only this same-origin
      // request is allowed to say where it comes from.
      const response = await fetch(form.action, {
        method: "POST",
        credentials: "same-origin",
        referrerPolicy: "same-origin",
        headers: { Accept: "application/json", "X-CSRFToken": csrfToken },
      });
      const payload = await response.json();
      if (response.ok && typeof payload.url === "string") {
        window.location.assign(payload.url);
        return;
      }
      if (response.status === 403 && typeof payload.login_url === "string") {
        window.location.assign(payload.login_url);
        return;
      }
      form.dataset.state = "error";
      status.textContent = payload.error?.message ?? `Failed (HTTP ${response.status})`;
    } catch (error) {
      form.dataset.state = "error";
      status.textContent = `Failed: ${error.message}`;
    }
  });
}

function main() {
  const data = readPageData();
  const root = one(document, "#share");
  setFileUrl(data.urls?.file);
  renderTurns(document.getElementById("turns"), data.share);
  setupFork(document.getElementById("fork-form"), data.csrf_token);
  root.dataset.state = "ready";
}

main();
