// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  isStoredSource
} from "./chunk-EMOQE56V.js";
import {
  columnOf,
  foldEvents,
  newColumn,
  placeOf,
  resumesOnHello,
  withColumn
} from "./chunk-6XGUQ5CV.js";
import {
  pretty,
  sizeText
} from "./chunk-PODVIVX6.js";
import {
  apiFetch,
  apiUpload
} from "./chunk-22CQPU6I.js";
import {
  el,
  parts
} from "./chunk-ACANGUXN.js";

// static/playground/held-send.js
var SENDS = /* @__PURE__ */ new Set(["send", "send_request", "compare"]);
var HOLDABLE = /* @__PURE__ */ new Set([...SENDS, "regenerate", "continue", "tool_results"]);
var HELD_TEXT = "Connecting to the server: your message is sent once the connection opens.";
var NOT_SENT = "Not sent: the connection to the server did not open. Your text is kept; Send it again once it says Connected.";
var ONE_HELD = "Not sent: another message is already waiting for the connection.";
var WAITING_TEXT = "Waiting for the connection\u2026";
var REFUSED_TEXT = "Not allowed to open this conversation.";
function cannotActReason(state) {
  if (state.held !== null) return WAITING_TEXT;
  return state.connection === "refused" ? REFUSED_TEXT : "";
}
function canAct(state) {
  return cannotActReason(state) === "";
}
function act(state, action, fields = {}) {
  const held = state.connection !== "open" && state.connection !== "refused" && HOLDABLE.has(action.action);
  if (!held) return { state: { ...state, ...fields }, effects: [{ do: "socket", action }] };
  if (state.held) return { state, effects: [{ do: "showError", text: ONE_HELD }] };
  const effects = [{ do: "showError", text: "" }, { do: "controls" }, { do: "announce", text: HELD_TEXT }];
  if (state.connection === "closed") effects.unshift({ do: "reconnect" });
  return { state: { ...state, ...fields, held: action }, effects };
}
function onConnection(state) {
  const { held } = state;
  if (!held || state.connection === "connecting" || state.connection === "open") return { state, effects: [{ do: "controls" }] };
  return {
    state: { ...refuse(state, held.action), held: null, lastError: "not_connected" },
    effects: [{ do: "showError", text: NOT_SENT }, { do: "controls" }]
  };
}
function forgetRefusedSend(state, action) {
  return SENDS.has(action) ? { ...state, pendingSend: null } : state;
}
function refuse(state, action) {
  return { ...forgetRefusedSend(state, action), refused: { action, count: (state.refused?.count ?? 0) + 1 } };
}
function sendHeld(state) {
  if (!state.held) return { state, effects: [] };
  return { state: { ...state, held: null }, effects: [{ do: "socket", action: state.held }, { do: "controls" }] };
}

// static/playground/state.js
var STATUS_WORDS = {
  complete: "Answer complete",
  stopped: "Stopped; the partial answer is kept",
  failed: "The run failed",
  truncated: "The answer was cut off",
  interrupted: "The run was interrupted"
};
var NOT_CONNECTED = "Not connected to the server; try again once it says Connected.";
function findOrphan(run, messages) {
  if (!run || run.status === "running") return null;
  if (messages.some((message) => message.run?.id === run.id)) return null;
  if (run.kept_content) return run;
  return messages.at(-1)?.role === "user" ? run : null;
}
function initialState(conversation) {
  const { messages: stored, ...rest } = conversation;
  const messages = [...stored];
  return {
    conversation: rest,
    messages,
    orphanRun: findOrphan(conversation.last_run, messages),
    live: (
      /** @type {import("./live-group.js").Group | null} */
      null
    ),
    // the live group (live-group.js)
    resuming: null,
    // {[runId]: afterSeq}: the resumes the page asked for, until their group ends
    pendingSend: null,
    // the composer's text, until run.started shows it stored
    held: null,
    // an action made before the socket opened, sent at the server's hello (held-send.js)
    refused: (
      /** @type {{action: string, count: number} | null} */
      null
    ),
    // the last refusal, counted (held-send.js refuse)
    connection: "connecting",
    connectionDetail: {},
    // the socket's {attempt} or {retryInMs}, for the connection line
    liveUpdates: "live",
    // "paused": the server cannot reach Redis (runs elsewhere not followed)
    stopping: false,
    saving: false,
    // run.saving seen: the end is not saved yet
    retrying: (
      /** @type {{attempt: number, attempts: number, retryInMs: number, reason: string} | null} */
      null
    ),
    // the upstream is being retried
    waiting: null,
    // {profile}: every slot of the run's profile is taken (run.waiting)
    lastSeq: null,
    lastStatus: null,
    lastError: null,
    finishedRuns: 0,
    // a counter, so a test can wait for "the next run ended"
    compareSent: []
    // a compare's columns' settings as last sent, for their headers
  };
}
function pendingCalls(state) {
  const last = state.messages.at(-1);
  if (!last || last.role !== "assistant" || !Array.isArray(last.content)) return [];
  return last.content.filter((block) => block.type === "tool_use");
}
function blockedReason(state) {
  if (state.live !== null) return "";
  if (state.held !== null) return HELD_TEXT;
  if (state.connection === "refused") return REFUSED_TEXT;
  if (pendingCalls(state).length > 0) return "The model is waiting for tool results: answer each call above, then Send results.";
  return "";
}
function canRun(state) {
  return state.live === null && state.messages.at(-1)?.role === "user";
}
function unansweredResults(state) {
  const content = canRun(state) ? state.messages.at(-1).content : null;
  return Array.isArray(content) && content.some((block) => block?.type === "tool_result");
}
var CONTINUABLE = /* @__PURE__ */ new Set(["pause_turn", "max_tokens"]);
function canContinue(state) {
  const last = state.messages.at(-1);
  if (state.live !== null || last?.role !== "assistant") return false;
  if (Array.isArray(last.content) && last.content.some((block) => block?.type === "tool_use")) return false;
  return Boolean(last.prefill) || CONTINUABLE.has(last.run?.stop_reason);
}
function continueHint(state) {
  if (!canContinue(state) || state.connection === "refused") return "";
  const last = state.messages.at(-1);
  if (last.prefill) return "Your prefill has no answer yet: Continue sends it for the model to go on.";
  if (last.run?.stop_reason === "pause_turn") return "The upstream paused this turn (pause_turn): Continue sends it back for the model to go on.";
  return "The answer reached max_tokens: Continue asks the model to go on from where it stopped.";
}
function runHint(state) {
  if (!canRun(state) || state.connection === "refused") return "";
  if (unansweredResults(state)) {
    return "The tool results have no answer yet: Run it again, or type and Send (your text goes with them).";
  }
  return "The last message has no answer yet: Run it as it is, edit it (\u270E), or type: Send sends your new text alone (the unanswered one stays behind \u2039 \u203A), Add to it joins them.";
}
function retryText(retrying, remainingMs = retrying?.retryInMs ?? 0) {
  if (!retrying) return "";
  const why = retrying.reason ? ` (${retrying.reason})` : "";
  const seconds = Math.max(0, Math.ceil(remainingMs / 1e3));
  return `The upstream refused${why}: retrying in ${seconds} s, attempt ${retrying.attempt} of ${retrying.attempts}`;
}
function waitText(waiting) {
  return waiting ? `Waiting for a free slot on ${waiting.profile}` : "";
}
var STALL_AFTER_MS = 5e3;
function stallText(silentMs) {
  if (!(silentMs >= STALL_AFTER_MS)) return "";
  return `No data from the upstream for ${Math.floor(silentMs / 1e3)} s (the connection to this server is alive)`;
}
function runChoices(state) {
  const runs = [];
  const seen = /* @__PURE__ */ new Set();
  const add = (run, label) => {
    if (!run?.id || seen.has(run.id)) return;
    seen.add(run.id);
    runs.push({ id: run.id, label });
  };
  const stored = state.messages.map((message) => message.run).filter((run) => run?.id);
  for (const column of state.live?.columns ?? []) {
    if (!column.done) add(column, `Run ${stored.length + 1} \xB7 live \xB7 ${column.model ?? ""}`);
  }
  if (state.orphanRun) add(state.orphanRun, `${state.orphanRun.status} \xB7 ${state.orphanRun.model}`);
  [...stored].reverse().forEach((run, index) => {
    add(run, `Run ${stored.length - index} \xB7 ${run.status} \xB7 ${run.model} \xB7 ${run.stop_reason ?? "\u2014"}`);
  });
  return runs;
}
function connectionText(connection, detail = {}, liveUpdates = "live") {
  if (connection === "open" && liveUpdates === "paused") {
    return "Connected; live updates paused (the server cannot reach Redis): runs on other servers show when it is back";
  }
  if (connection === "open") return "Connected";
  if (connection === "connecting") return detail.attempt ? "Reconnecting\u2026" : "Connecting\u2026";
  const retry = `retrying in ${Math.ceil((detail.retryInMs ?? 0) / 1e3)} s`;
  if (connection === "closed" && detail.reason === "heartbeat") return `Connection lost (the server stopped answering); ${retry}`;
  if (connection === "closed") return `Disconnected; ${retry}`;
  return "Not allowed to open this conversation";
}
function rootData(state) {
  return {
    runState: state.live ? "running" : "idle",
    retrying: state.retrying ? String(state.retrying.attempt) : null,
    waiting: state.waiting ? state.waiting.profile : null,
    connection: state.connection,
    liveUpdates: state.liveUpdates === "paused" ? "paused" : null,
    lastSeq: state.lastSeq === null ? null : String(state.lastSeq),
    saveState: state.saving ? "pending" : null,
    stopping: state.stopping ? "true" : null,
    sendHeld: state.held ? state.held.action : null,
    lastStatus: state.lastStatus,
    lastError: state.lastError,
    finishedRuns: state.finishedRuns > 0 ? String(state.finishedRuns) : null
  };
}
var withMessage = (messages, message) => [
  ...messages.filter((m) => m.id !== message.id && !(m.position >= message.position)),
  message
];
var done = (state, ...effects) => ({ state, effects });
function onHello(helloState, frame) {
  const welcomed = { ...helloState, liveUpdates: frame.live_updates === "paused" ? "paused" : "live" };
  const { state, effects: sendNow } = sendHeld(welcomed);
  const resumes = resumesOnHello(state, frame.live_group);
  if (resumes.length === 0) {
    const effects = sendNow.length ? sendNow : [{ do: "controls" }];
    return done(state, ...effects, ...pathMoved(state, frame) ? [{ do: "reread" }] : []);
  }
  const resuming = Object.fromEntries(resumes.map(({ runId, afterSeq }) => [runId, afterSeq]));
  return done(
    { ...state, resuming },
    ...resumes.map(({ runId, afterSeq }) => ({ do: "socket", action: { action: "resume", run_id: runId, after_seq: afterSeq } })),
    ...sendNow
  );
}
var pathMoved = (state, frame) => Object.hasOwn(frame, "last_message_id") && frame.last_message_id !== (state.messages.at(-1)?.id ?? null);
var textOf = (content) => typeof content === "string" ? content : Array.isArray(content) ? content.map((block) => block?.type === "text" ? block.text : "").join("") : "";
function onReread(state, { conversation }) {
  const { messages: stored, ...rest } = conversation;
  const live = new Set((state.live?.columns ?? []).map((column) => column.id));
  let messages = stored.filter((message) => !live.has(message.run?.id));
  const end = messages.at(-1)?.position ?? -1;
  for (const message of state.messages) if (message.position > end) messages = withMessage(messages, message);
  const seen = new Set(state.messages.map((message) => message.id));
  const wanted = state.pendingSend === null ? null : textOf(state.pendingSend);
  const answered = wanted !== null && messages.some((m) => m.role === "user" && !seen.has(m.id) && textOf(m.content).includes(wanted));
  const orphanRun = state.live ? null : findOrphan(rest.last_run, messages);
  const effects = [{ do: "draw" }, { do: "title" }];
  if (answered) effects.unshift({ do: "composerSent", content: state.pendingSend });
  return done({ ...state, conversation: rest, messages, orphanRun, pendingSend: answered ? null : state.pendingSend }, ...effects);
}
function startedTurns(state, frame, effects) {
  let { messages, pendingSend } = state;
  if (frame.user_message) {
    messages = withMessage(messages, frame.user_message);
    const content = frame.user_message.content;
    const isToolResults = Array.isArray(content) && content.some((b) => b.type === "tool_result");
    if (isToolResults) effects.push({ do: "toolResultsDone" });
    if (pendingSend !== null && !isToolResults) {
      pendingSend = null;
      effects.push({ do: "composerSent" });
    }
  }
  if (frame.continued_message) {
    messages = withMessage(messages, frame.continued_message);
  } else if (!frame.user_message && messages.at(-1)?.role === "assistant") {
    messages = messages.slice(0, -1);
  }
  return { messages, pendingSend };
}
var answersPendingSend = (state, frame, known) => state.pendingSend !== null && !known && frame.user_message != null && !state.messages.some((message) => message.id === frame.user_message.id);
function onRunStarted(state, frame) {
  const { run } = frame;
  const { group, index, count } = placeOf(run);
  const resumed = state.resuming !== null && Object.hasOwn(state.resuming, run.id);
  const known = columnOf(state, run.id);
  const effects = [];
  let { messages, pendingSend } = state;
  if (!resumed && !known || answersPendingSend(state, frame, known)) ({ messages, pendingSend } = startedTurns(state, frame, effects));
  messages = messages.filter((m) => m.run?.id !== run.id);
  const joins = state.live !== null && group !== null && state.live.group === group;
  let live = state.live;
  if (!known) {
    const column = newColumn(run, index);
    live = joins ? { ...state.live, columns: [...state.live.columns, column] } : { group, count, columns: [column] };
    const sent = count > 1 ? state.compareSent[index] ?? null : null;
    effects.push({ do: "startLive", run, index, count, fresh: !joins, sent });
    if (!resumed && !joins) effects.push({ do: "follow" });
  }
  if (!joins || resumed) effects.push({ do: "announce", text: resumed ? "Resuming the live answer" : "Waiting for the answer" });
  return done({ ...state, messages, pendingSend, live, orphanRun: null, lastStatus: null, retrying: null, waiting: null }, ...effects);
}
var beforeFirstEvent = (state, runId) => {
  const column = columnOf(state, runId);
  return column !== null && column.lastSeq === 0 && !column.done ? column : null;
};
function onRunRetrying(state, frame) {
  if (!beforeFirstEvent(state, frame.run_id)) return done(state);
  const retrying = { attempt: frame.attempt, attempts: frame.attempts, retryInMs: frame.retry_in_ms, reason: frame.reason ?? "" };
  return done(
    { ...state, retrying, waiting: null },
    { do: "liveNote", runId: frame.run_id, count: state.live.count },
    { do: "announce", text: retryText(retrying) }
  );
}
function onRunWaiting(state, frame) {
  if (!beforeFirstEvent(state, frame.run_id)) return done(state);
  const profile = frame.waiting ? String(frame.profile ?? "") : null;
  const waiting = profile === null ? null : { profile };
  const live = withColumn(state.live, frame.run_id, { waiting: profile });
  const effects = [{ do: "liveNote", runId: frame.run_id, count: live.count }];
  if (waiting) effects.push({ do: "announce", text: waitText(waiting) });
  return done({ ...state, live, waiting }, ...effects);
}
function onRunEvents(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || frame.events.length === 0) return done(state);
  const folded = foldEvents(column, frame.events);
  const live = withColumn(state.live, column.id, folded);
  const effects = [{ do: "events", runId: column.id, count: live.count, events: frame.events }];
  if (state.live.columns.every((other) => other.lastSeq === 0)) effects.push({ do: "announce", text: "Streaming the answer" });
  if (state.retrying || state.waiting) effects.push({ do: "liveNote", runId: column.id, count: live.count });
  effects.push({ do: "scroll" });
  return done({ ...state, live, lastSeq: folded.lastSeq, retrying: null, waiting: null }, ...effects);
}
function onRunSaving(state, frame) {
  if (!columnOf(state, frame.run_id)) return done(state);
  return done(
    { ...state, saving: true },
    { do: "saving", frame },
    { do: "announce", text: "The answer is not saved yet; the server keeps it and retries" }
  );
}
function onRunFinished(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || column.done) return done(state);
  const group = withColumn(state.live, column.id, { done: true, status: frame.status, messageId: frame.message?.id ?? null });
  const over = group.columns.length >= group.count && group.columns.every((one) => one.done);
  let { messages, orphanRun } = state;
  if (group.count === 1 && frame.message) {
    messages = withMessage(messages, frame.message);
  } else if (group.count === 1) {
    const { status, stop_reason, usage, timings, error } = frame;
    const kept = frame.kept_content ?? null;
    orphanRun = { id: frame.run_id, status, stop_reason, usage, timings, error, kept_content: kept, profile: column.profile, model: column.model };
  }
  const words = STATUS_WORDS[frame.status] ?? frame.status;
  const ended = over ? { live: null, resuming: null, saving: false, retrying: null, waiting: null, stopping: false } : { live: group };
  const effects = [{ do: "finishLive", frame, count: group.count }];
  if (over) effects.push({ do: "draw" });
  effects.push(
    { do: "runEnded", runId: frame.run_id },
    { do: "announce", text: frame.stop_reason === "tool_use" ? "The model called tools: results are due" : words },
    { do: "scroll" }
  );
  if (over) effects.push({ do: "groupEnded", count: group.count });
  return done({ ...state, messages, orphanRun, ...ended, lastStatus: frame.status, finishedRuns: state.finishedRuns + 1 }, ...effects);
}
function onError(state, frame) {
  const error = frame.error ?? {};
  if (frame.action === "resume") return done({ ...state, live: null, resuming: null }, { do: "reload" });
  const field = error.field ? ` (${error.field})` : "";
  return done(
    {
      ...refuse(state, frame.action),
      stopping: frame.action === "stop" ? false : state.stopping,
      lastError: error.code ?? "error"
    },
    { do: "showError", text: `${error.message ?? "refused"}${field}` }
  );
}
var STEPS = {
  hello: onHello,
  "run.started": onRunStarted,
  "run.retrying": onRunRetrying,
  "run.waiting": onRunWaiting,
  "run.events": onRunEvents,
  "run.saving": onRunSaving,
  "run.finished": onRunFinished,
  error: onError,
  // The server lost Redis, or has it back (it then follows every run elsewhere again itself).
  live_updates: (state, { state: updates }) => done({ ...state, liveUpdates: updates === "paused" ? "paused" : "live" }, { do: "controls" }),
  connection: (state, { connection, detail = {} }) => onConnection({ ...state, connection, connectionDetail: detail }),
  // unanswered: "join" adds the text to an unanswered last turn; without it the server sends
  // the text alone (shapes.Unanswered).
  // prefill: the start of the answer, for the model to continue (protocol.continuation).
  send: (state, { text, unanswered = null, prefill = null }) => act(state, { action: "send", content: text, ...unanswered ? { unanswered } : {}, ...prefill ? { prefill } : {} }, { pendingSend: text }),
  continue: (state) => canContinue(state) ? act(state, { action: "continue" }) : done(state),
  tool_results: (state, { results, text }) => act(state, { action: "tool_results", results, text }),
  // The request editor's body, sent with the turn it was drafted for (debugger: request-editor.js).
  send_request: (state, { turn, request }) => act(state, { action: "send_request", ...turn, request }, { pendingSend: turn.content ?? state.pendingSend }),
  regenerate: (state) => act(state, { action: "regenerate" }),
  run: (state) => canRun(state) ? act(state, { action: "regenerate" }) : done(state),
  // Every column of the live group stops.
  stop: (state) => state.live ? act(state, { action: "stop" }, { stopping: true }) : done(state),
  // The composer's text sent to a compare's columns (compare.js's setup: their settings).
  compare: (state, { content, columns }) => act(state, { action: "compare", content, columns }, { compareSent: columns, pendingSend: content ?? state.pendingSend }),
  "compare.dismissed": (state) => done(state, { do: "controls" }),
  refused: (state, { action }) => done(
    { ...refuse(state, action), stopping: action === "stop" ? false : state.stopping },
    { do: "showError", text: NOT_CONNECTED }
  ),
  edited: (state, { conversation }) => {
    const regenerate = act({ ...state, messages: [...conversation.messages], orphanRun: null }, { action: "regenerate" });
    return done(regenerate.state, { do: "draw" }, ...regenerate.effects);
  },
  reloaded: (state, { conversation }) => {
    const { messages: stored, ...rest } = conversation;
    const messages = [...stored];
    return done({ ...state, conversation: rest, messages, orphanRun: findOrphan(rest.last_run, messages) }, { do: "draw" });
  },
  reread: onReread,
  // Another alternative of a turn is on screen (the server's conversation, as a reload).
  switched: (state, { conversation, position }) => {
    const { state: next, effects } = STEPS.reloaded(state, { conversation });
    const branch = next.messages.find((m) => m.position === position)?.branch;
    const text = branch ? `Showing ${branch.index + 1} of ${branch.count}` : "Switched";
    return done(next, ...effects, { do: "title" }, { do: "announce", text });
  },
  "reload.failed": (state, { message }) => done(state, { do: "showError", text: `Could not reload the conversation: ${message}` }, { do: "draw" }),
  renamed: (state, { title }) => done({ ...state, conversation: { ...state.conversation, title } }, { do: "title" }),
  "settings.saved": (state, { conversation: { settings, profile, model } }) => done({ ...state, conversation: { ...state.conversation, settings, profile, model } }, { do: "model" })
};
function step(state, input) {
  const handler = Object.hasOwn(STEPS, input.type) ? STEPS[input.type] : null;
  return handler === null ? done(state) : handler(state, input);
}

// static/playground/attach-tray.js
var COMPOSER_PARTS = {
  list: "[data-attachments]",
  input: "[data-attach-input]",
  box: "[data-composer-input]",
  button: "[data-action='attach']"
};
var ACCEPTED = "image/png,image/jpeg,image/gif,image/webp,application/pdf";
var AttachTray = class {
  #list;
  #url;
  #fileUrl;
  #onChange;
  #onError;
  #items = [];
  /** `form` holds the tray's parts: the composer's (by default), or those a tool-result card
   * names in `selectors` ({list, input, box, button}; `box` is where a paste lands). */
  constructor(form, { url, fileUrl, onChange, onError: onError2, selectors = {} }) {
    this.#url = url;
    this.#fileUrl = fileUrl;
    this.#onChange = onChange;
    this.#onError = onError2;
    const found = parts(form, { ...COMPOSER_PARTS, ...selectors });
    this.#list = found.list;
    found.button.addEventListener("click", () => found.input.click());
    found.input.addEventListener("change", () => {
      this.add([...found.input.files]);
      found.input.value = "";
    });
    found.box.addEventListener("paste", (event) => {
      const files = [...event.clipboardData?.files ?? []];
      if (!files.length) return;
      event.preventDefault();
      this.add(files);
    });
    form.addEventListener("dragover", (event) => {
      if (![...event.dataTransfer?.types ?? []].includes("Files")) return;
      event.preventDefault();
      form.dataset.dropping = "true";
    });
    form.addEventListener("dragleave", () => delete form.dataset.dropping);
    form.addEventListener("drop", (event) => {
      delete form.dataset.dropping;
      const files = [...event.dataTransfer?.files ?? []];
      if (!files.length) return;
      event.preventDefault();
      this.add(files);
    });
    this.#list.hidden = true;
    this.#list.dataset.state = "empty";
  }
  /** The ready files' content blocks, in the order they were added. */
  get blocks() {
    return this.#items.filter((item) => item.block).map((item) => item.block);
  }
  get uploading() {
    return this.#items.some((item) => !item.block);
  }
  clear() {
    this.#items = [];
    this.#draw();
  }
  /** Put back files kept earlier (a draft's blocks, already uploaded). */
  restore(blocks) {
    this.#items = blocks.map((block) => ({
      name: String(block?.source?.name ?? block?.title ?? "file"),
      size: Number(block?.source?.size ?? 0),
      block
    }));
    this.#draw();
  }
  /** Blocks made elsewhere (an MCP server's resource or prompt), kept as they are:
   * [{name, block}]. */
  addBlocks(items) {
    for (const { name, block } of items) this.#items.push({ name, size: blockSize(block), block });
    this.#draw();
  }
  add(files) {
    for (const file of files) {
      const item = { name: file.name || "pasted file", size: file.size, block: null };
      this.#items.push(item);
      this.#upload(item, file);
    }
    this.#draw();
  }
  async #upload(item, file) {
    const form = new FormData();
    form.append("file", file, item.name);
    try {
      const answer = await apiUpload(this.#url, form);
      item.block = answer.block;
    } catch (failure) {
      this.#items = this.#items.filter((other) => other !== item);
      const prefix = failure.field ? `${failure.field}: ` : "";
      const reason = prefix && failure.message.startsWith(prefix) ? failure.message.slice(prefix.length) : failure.message;
      this.#onError(`Not attached: ${reason.includes(item.name) ? reason : `${item.name}: ${reason}`}`);
    }
    this.#draw();
  }
  #remove(item) {
    this.#items = this.#items.filter((other) => other !== item);
    this.#draw();
  }
  #draw() {
    this.#list.replaceChildren(...this.#items.map((item) => this.#chip(item)));
    this.#list.hidden = this.#items.length === 0;
    this.#list.dataset.state = this.#items.length === 0 ? "empty" : this.uploading ? "uploading" : "ready";
    this.#onChange();
  }
  #chip(item) {
    const chip = el("li", { className: "attach-chip" });
    chip.dataset.state = item.block ? "ready" : "uploading";
    const source = item.block?.source;
    if (item.block?.type === "image" && source?.sha256) {
      const img = el("img", { className: "attach-thumb" });
      img.alt = "";
      img.src = this.#fileUrl.replace("{sha256}", source.sha256);
      chip.append(img);
    } else if (item.block) {
      chip.append(el("span", { className: "attach-kind", text: kindLabel(item.block) }));
    }
    const label = item.block ? `${item.name} \xB7 ${sizeText(source?.size ?? item.size)}` : `${item.name} \xB7 uploading\u2026`;
    chip.append(el("span", { className: "attach-name", text: label }));
    const remove = el("button", { className: "btn btn-ghost btn-icon", text: "\xD7" });
    remove.type = "button";
    remove.setAttribute("aria-label", `Remove ${item.name}`);
    remove.addEventListener("click", () => this.#remove(item));
    chip.append(remove);
    return chip;
  }
};
function kindLabel(block) {
  if (block.type === "document") return block.source?.type === "text" ? "TEXT" : "PDF";
  return block.type === "image" ? "IMAGE" : "TEXT";
}
function blockSize(block) {
  const source = block?.source ?? {};
  if (typeof source.size === "number") return source.size;
  if (source.type === "base64") return Math.floor(String(source.data ?? "").length * 3 / 4);
  return new TextEncoder().encode(String(source.data ?? block?.text ?? "")).length;
}

// static/playground/drafts.js
var PREFIX = "pg:tool-result";
function key(conversationId, toolUseId) {
  return `${PREFIX}:${conversationId}:${toolUseId}`;
}
function loadDraft(conversationId, toolUseId) {
  try {
    const raw = localStorage.getItem(key(conversationId, toolUseId));
    const value = raw ? JSON.parse(raw) : null;
    if (value && typeof value.content === "string") {
      return { content: value.content, isError: value.isError === true, empty: value.empty === true, files: keptFiles(value.files) };
    }
  } catch {
  }
  return { content: "", isError: false, empty: false, files: [] };
}
function keptFiles(files) {
  if (!Array.isArray(files)) return [];
  return files.filter((block) => (block?.type === "image" || block?.type === "document") && isStoredSource(block.source));
}
function saveDraft(conversationId, toolUseId, draft) {
  try {
    localStorage.setItem(key(conversationId, toolUseId), JSON.stringify(draft));
  } catch {
  }
}
function clearDrafts(conversationId, toolUseIds) {
  try {
    for (const id of toolUseIds) localStorage.removeItem(key(conversationId, id));
  } catch {
  }
}
var COMPOSER = "pg:composer";
function loadComposerDraft(conversationId) {
  try {
    const value = JSON.parse(localStorage.getItem(`${COMPOSER}:${conversationId}`) ?? "null");
    if (value && typeof value.text === "string") return { text: value.text, files: keptFiles(value.files) };
  } catch {
  }
  return { text: "", files: [] };
}
function saveComposerDraft(conversationId, { text, files }) {
  try {
    const key2 = `${COMPOSER}:${conversationId}`;
    if (!text && !files.length) localStorage.removeItem(key2);
    else localStorage.setItem(key2, JSON.stringify({ text, files }));
  } catch {
  }
}

// static/playground/tool-results.js
var CARD_PARTS = {
  list: "[data-result-attachments]",
  input: "[data-result-attach-input]",
  box: "[data-tool-result-input]",
  button: "[data-action='attach-result']"
};
function parseResultContent(text) {
  const trimmed = text.trim();
  if (trimmed.startsWith("[")) {
    try {
      const value = JSON.parse(trimmed);
      if (Array.isArray(value) && value.every((b) => b && typeof b === "object" && typeof b.type === "string")) {
        return { content: value, kind: "blocks" };
      }
      return { content: text, kind: "text", warning: "not a list of content blocks: sent as text" };
    } catch {
      return { content: text, kind: "text", warning: "not valid JSON: sent as text" };
    }
  }
  return { content: text, kind: "text" };
}
function resultContent(text, files = []) {
  const typed = parseResultContent(text);
  if (!files.length) return typed.content;
  if (typed.kind === "blocks") return [...files, ...typed.content];
  return text.trim() ? [...files, { type: "text", text }] : [...files];
}
var ToolResults = class {
  #root;
  #cards;
  #send;
  #hint;
  #text;
  #conversationId;
  #calls = [];
  #entries = [];
  #enabled = true;
  #onSend;
  #urls;
  constructor(root, { conversationId, onSend, urls = (
    /** @type {Record<string, string>} */
    {}
  ) }) {
    this.#root = root;
    this.#conversationId = conversationId;
    this.#onSend = onSend;
    this.#urls = urls;
    const found = parts(root, {
      cards: "[data-tool-result-cards]",
      send: "[data-action='send-tool-results']",
      hint: "[data-tool-results-hint]",
      text: "[data-tool-results-text]"
    });
    ({ cards: this.#cards, send: this.#send, hint: this.#hint, text: this.#text } = found);
    this.#send.addEventListener("click", () => this.submit());
    this.#text.addEventListener("input", () => {
      const key2 = this.#afterKey();
      if (key2) saveDraft(this.#conversationId, key2, { content: this.#text.value, isError: false });
    });
  }
  #afterKey() {
    return this.#calls.length ? `after:${this.#calls[0].id}` : null;
  }
  get pending() {
    return this.#calls.length > 0;
  }
  /** Show cards for these tool_use blocks (none: hide the section). */
  show(calls) {
    const same = calls.length === this.#calls.length && calls.every((call, i) => call.id === this.#calls[i].id);
    if (same) return;
    this.#calls = calls;
    this.#entries = calls.map((call, index) => this.#card(call, index));
    this.#cards.replaceChildren(...this.#entries.map((entry) => entry.card));
    this.#root.hidden = calls.length === 0;
    this.#root.dataset.pending = String(calls.length);
    const key2 = this.#afterKey();
    this.#text.value = key2 ? loadDraft(this.#conversationId, key2).content : "";
    this.#refresh();
  }
  /** Nothing can be sent while a run is live or the socket is down. */
  setEnabled(enabled) {
    this.#enabled = enabled;
    this.#refresh();
  }
  #card(call, index) {
    const draft = loadDraft(this.#conversationId, call.id);
    const textareaId = `tool-result-${index}`;
    const textarea = el("textarea", {
      className: "input code-input",
      attrs: { id: textareaId, rows: "3", spellcheck: "false", placeholder: "What the tool returned (text, or a JSON array of content blocks)" },
      dataset: { toolResultInput: call.id }
    });
    textarea.value = draft.content;
    const toggle = el("input", {
      attrs: { type: "checkbox", role: "switch" },
      dataset: { toolResultError: call.id }
    });
    toggle.checked = draft.isError;
    const empty = el("input", { attrs: { type: "checkbox" }, dataset: { resultEmpty: call.id } });
    empty.checked = draft.empty;
    const note = el("span", { className: "tool-card-note muted" });
    const files = el("ul", {
      className: "attach-tray",
      dataset: { resultAttachments: call.id },
      attrs: { "aria-label": `Files in the result of ${call.name}` }
    });
    const attach = el("button", {
      className: "btn btn-ghost tool-card-attach",
      text: "Attach\u2026",
      dataset: { action: "attach-result" },
      attrs: { type: "button", title: "Attach images (PNG, JPEG, GIF, WebP) or PDFs to this result" }
    });
    const picker = el("input", {
      dataset: { resultAttachInput: call.id },
      attrs: { type: "file", accept: ACCEPTED, multiple: "", hidden: "", "aria-label": `Files for the result of ${call.name}` }
    });
    const card = el(
      "div",
      { className: "tool-card", dataset: { toolUseId: call.id, isError: String(draft.isError) } },
      el(
        "div",
        { className: "tool-card-head" },
        el("code", { className: "tool-card-name", text: String(call.name ?? "") }),
        el("span", { className: "tool-card-id muted", text: String(call.id ?? "") })
      ),
      el("pre", { className: "tool-card-input", text: pretty(call.input ?? {}) }),
      el("label", { className: "sr-only", text: `Result of ${call.name} (${call.id})`, attrs: { for: textareaId } }),
      files,
      textarea,
      el(
        "div",
        { className: "tool-card-foot" },
        el("label", { className: "switch" }, toggle, el("span", { className: "switch-track", attrs: { "aria-hidden": "true" } }), el("span", { text: "is_error" })),
        el("label", { className: "check", attrs: { title: "Send this result with no content" } }, empty, el("span", { text: "Empty result" })),
        attach,
        picker,
        note
      )
    );
    const save = () => {
      card.dataset.isError = String(toggle.checked);
      const kept = tray.blocks;
      textarea.disabled = empty.checked;
      saveDraft(this.#conversationId, call.id, { content: textarea.value, isError: toggle.checked, empty: empty.checked, files: kept });
      this.#refresh();
    };
    const tray = new AttachTray(card, {
      url: this.#urls.attachments,
      fileUrl: this.#urls.attachment ?? "",
      selectors: CARD_PARTS,
      onChange: () => save(),
      onError: (text) => {
        note.textContent = text;
        note.dataset.error = "true";
      }
    });
    if (draft.files.length) tray.restore(draft.files);
    textarea.addEventListener("input", () => {
      delete note.dataset.error;
      save();
    });
    toggle.addEventListener("change", save);
    empty.addEventListener("change", save);
    textarea.disabled = empty.checked;
    textarea.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) {
        event.preventDefault();
        event.stopPropagation();
        this.submit();
      }
    });
    return { call, card, textarea, toggle, empty, note, tray };
  }
  #refresh() {
    let missing = 0;
    let uploading = false;
    for (const entry of this.#entries) {
      const typed = !entry.empty.checked && entry.textarea.value.trim() !== "";
      const filled = entry.empty.checked || typed || entry.tray.blocks.length > 0;
      uploading ||= entry.tray.uploading;
      if (!filled) missing += 1;
      entry.card.dataset.filled = String(filled);
      if (entry.note.dataset.error === "true") continue;
      entry.note.textContent = typed ? parseResultContent(entry.textarea.value).warning ?? "" : "";
    }
    const ready = this.#entries.length > 0 && missing === 0 && !uploading;
    this.#send.disabled = !(ready && this.#enabled);
    this.#hint.textContent = uploading ? "a file is still uploading" : missing === 0 ? "" : `${missing} of ${this.#entries.length} result${this.#entries.length > 1 ? "s" : ""} missing (type one, or tick Empty result)`;
  }
  submit() {
    if (this.#send.disabled) return;
    this.#onSend(this.collect());
  }
  /** The results as typed so far ({results, text}), complete or not: the request editor's
   * draft turn. */
  collect() {
    const results = this.#entries.map((entry) => {
      const result = {
        tool_use_id: entry.call.id,
        content: entry.empty.checked ? "" : resultContent(entry.textarea.value, entry.tray.blocks)
      };
      if (entry.toggle.checked) result.is_error = true;
      return result;
    });
    const text = this.#text.value.trim() ? this.#text.value : null;
    return { results, text };
  }
  /** The results were stored (run.started carried them): forget the drafts. */
  done() {
    clearDrafts(this.#conversationId, [...this.#calls.map((call) => call.id), this.#afterKey()].filter(Boolean));
    this.#text.value = "";
    this.show([]);
  }
};

// static/playground/token-schedule.js
var COUNT_DELAY_MS = 400;
var REAL_TIMERS = { set: (fn, ms) => setTimeout(fn, ms), clear: (id) => clearTimeout(id) };
var TokenSchedule = class {
  #count;
  #onState;
  #delay;
  #timers;
  /** @type {unknown} the pending timer's handle, from `timers.set` */
  #timer = null;
  #seq = 0;
  #key = null;
  /** count(input) -> Promise<answer>; onState({state, answer?, error?}) with state
   * "waiting" (a change, not asked yet), "counting", "ready", "error", "idle". */
  constructor({ count, onState, delay = COUNT_DELAY_MS, timers = REAL_TIMERS }) {
    this.#count = count;
    this.#onState = onState;
    this.#delay = delay;
    this.#timers = timers;
  }
  /** What would be counted now: `key` names it (the same key again asks nothing). */
  want(key2, input) {
    if (key2 === this.#key) return;
    this.#key = key2;
    this.#stopWaiting();
    const seq = ++this.#seq;
    this.#onState({ state: "waiting" });
    this.#timer = this.#timers.set(() => {
      this.#timer = null;
      this.#ask(seq, input);
    }, this.#delay);
  }
  /** Nothing to count (an empty composer, a live run): forget the last key and any answer due. */
  clear() {
    if (this.#key === null && this.#timer === null) return;
    this.#stopWaiting();
    this.#seq += 1;
    this.#key = null;
    this.#onState({ state: "idle" });
  }
  #stopWaiting() {
    if (this.#timer !== null) this.#timers.clear(this.#timer);
    this.#timer = null;
  }
  async #ask(seq, input) {
    this.#onState({ state: "counting" });
    let outcome;
    try {
      outcome = { state: "ready", answer: await this.#count(input) };
    } catch (error) {
      outcome = { state: "error", error };
    }
    if (seq === this.#seq) this.#onState(outcome);
  }
};
function countText(answer) {
  const n = Number(answer.input_tokens).toLocaleString("en-US");
  const unit = answer.input_tokens === 1 ? "input token" : "input tokens";
  return answer.estimated ? `\u2248 ${n} ${unit}, estimated` : `${n} ${unit}`;
}

// static/playground/token-count.js
function nextTurn({ toolResults, composer, state }) {
  if (toolResults.pending) return toolResults.collect();
  if (composer.content.length) {
    return composer.prefill ? { content: composer.content, prefill: composer.prefill } : { content: composer.content };
  }
  return canContinue(state) ? { continuing: true } : {};
}
var TokenCount = class {
  #el;
  #schedule;
  #last = null;
  #maxBytes;
  /** `el` is the composer's [data-token-count] (its data-url the endpoint); `maxBytes` the
   * server's frame limit: a turn over it is not sent to be counted (Send names the limit). */
  constructor(el2, { maxBytes = Infinity } = {}) {
    this.#el = el2;
    this.#maxBytes = maxBytes ?? Infinity;
    const url = el2.dataset.url;
    this.#schedule = new TokenSchedule({
      count: (turn) => apiFetch(url, { method: "POST", body: turn }),
      onState: (update) => this.#show(update)
    });
  }
  /** What the page would send now; `running`: a run is live (nothing is counted then). */
  consider({ turn, running, state }) {
    if (running || state.pendingSend !== null || !Object.keys(turn).length || tooLarge(turn, this.#maxBytes)) {
      this.#schedule.clear();
      return;
    }
    const { conversation, messages } = state;
    const key2 = JSON.stringify([
      turn,
      conversation.profile,
      conversation.model,
      conversation.settings,
      conversation.variables,
      messages.length,
      messages.at(-1)?.id ?? null
    ]);
    this.#schedule.want(key2, turn);
  }
  #show({ state, answer, error }) {
    this.#el.dataset.tokenState = state;
    if (state === "idle") {
      this.#last = null;
      this.#el.hidden = true;
      this.#el.textContent = "";
      return;
    }
    this.#el.hidden = false;
    if (state === "ready" && answer.input_tokens === null) {
      this.#el.textContent = "tokens: not counted";
      this.#el.title = answer.note ?? "";
    } else if (state === "ready") {
      this.#last = answer;
      this.#el.textContent = countText(answer);
      this.#el.title = answer.note || (answer.estimated ? "A quarter of the characters: this upstream counts no tokens" : "Counted by the upstream");
    } else if (state === "error") {
      this.#el.textContent = this.#last ? `${countText(this.#last)} (not recounted)` : "tokens: not counted";
      this.#el.title = error?.message ?? "";
    } else if (!this.#last) {
      this.#el.textContent = "counting tokens\u2026";
    }
  }
};
function tooLarge(turn, maxBytes) {
  if (!Number.isFinite(maxBytes)) return false;
  return new TextEncoder().encode(JSON.stringify(turn)).length > maxBytes;
}

// static/playground/modal.js
var Modal = class {
  #dialog;
  /** @type {HTMLElement | null} */
  #opener = null;
  #onClose;
  constructor(dialog, { onClose = () => {
  } } = {}) {
    this.#dialog = dialog;
    this.#onClose = onClose;
    dialog.dataset.state = "closed";
    dialog.addEventListener("keydown", (event) => event.stopPropagation());
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) this.close();
    });
    dialog.querySelectorAll("[data-close]").forEach(
      (button) => button.addEventListener("click", () => this.close())
    );
    dialog.addEventListener("close", () => {
      dialog.dataset.state = "closed";
      this.#onClose();
      const opener = this.#opener;
      this.#opener = null;
      if (opener?.isConnected) opener.focus();
    });
  }
  get element() {
    return this.#dialog;
  }
  get isOpen() {
    return this.#dialog.open;
  }
  /** Open, remembering `opener` (default: the focused element) to give focus back to. */
  open(opener = document.activeElement) {
    if (this.#dialog.open) return;
    this.#opener = opener instanceof HTMLElement ? opener : null;
    this.#dialog.showModal();
    this.#dialog.dataset.state = "open";
    const first = this.#dialog.querySelector("[autofocus], [data-initial-focus]");
    if (first) first.focus();
  }
  close() {
    if (this.#dialog.open) this.#dialog.close();
  }
};
function showError(node, error) {
  const text = typeof error === "string" ? error : error?.message ?? "";
  node.textContent = text;
  node.hidden = !text;
  if (error && typeof error === "object" && error.field) node.dataset.field = error.field;
  else delete node.dataset.field;
}

// static/playground/thinking-integrity.js
var THINKING = /* @__PURE__ */ new Set(["thinking", "redacted_thinking"]);
var blocksOf = (content) => Array.isArray(content) ? content : [];
var plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;
function thinkingIsOn(thinking) {
  return thinking?.type === "enabled" || thinking?.type === "adaptive";
}
function sentBack(content) {
  return blocksOf(content).flatMap((block, index) => {
    if (!THINKING.has(block?.type)) return [];
    const redacted = block.type === "redacted_thinking";
    const text = redacted ? block.data : block.thinking;
    const signature = redacted ? null : typeof block.signature === "string" && block.signature !== "" ? block.signature : null;
    return [{ index, type: block.type, chars: typeof text === "string" ? text.length : 0, signature }];
  });
}
function lacksThinkingBeforeToolUse(content) {
  for (const block of blocksOf(content)) {
    if (THINKING.has(block?.type)) return false;
    if (block?.type === "tool_use") return true;
  }
  return false;
}
var lastAssistantIndex = (messages) => messages.findLastIndex((message) => message?.role === "assistant");
function historyWarnings(messages, { thinking }) {
  if (!thinkingIsOn(thinking)) return [];
  const latest = lastAssistantIndex(messages);
  const warnings = [];
  messages.forEach((message, index) => {
    if (message?.role !== "assistant") return;
    const isLatest = index === latest;
    if (lacksThinkingBeforeToolUse(message.content)) {
      warnings.push({
        code: "no_thinking_before_tool_use",
        index,
        latest: isLatest,
        text: isLatest ? "Thinking is on, but the latest assistant turn calls a tool with no thinking before it: the API refuses the next request (it expects a thinking block before tool_use). Turn thinking off for this step, or regenerate the turn with thinking on." : `Thinking is on, but assistant turn #${index + 1} calls a tool with no thinking before it (made with thinking off); only the latest turn is checked, so this one is sent as it is.`
      });
    }
    const unsigned = sentBack(message.content).filter((block) => block.type === "thinking" && block.signature === null);
    if (isLatest && unsigned.length > 0) {
      warnings.push({
        code: "unsigned_thinking",
        index,
        latest: true,
        text: `The latest assistant turn has ${plural(unsigned.length, "thinking block")} without a signature: a profile of the anthropic dialect refuses it before sending (Anthropic checks signatures); the friendli and compatible dialects (FriendliAI; vLLM, llama.cpp, Ollama, LiteLLM) send it as it is.`
      });
    }
  });
  return warnings;
}
var thinkingJson = (message) => JSON.stringify(blocksOf(message?.content).filter((block) => THINKING.has(block?.type)));
function requestWarnings(draft, edit) {
  const warnings = [];
  const messages = Array.isArray(edit?.messages) ? edit.messages : [];
  const latest = lastAssistantIndex(messages);
  const before = Array.isArray(draft?.messages) ? draft.messages : [];
  if (latest >= 0 && before[latest]?.role === "assistant" && thinkingJson(before[latest]) !== thinkingJson(messages[latest])) {
    warnings.push({
      code: "changed_latest_thinking",
      index: latest,
      latest: true,
      text: `This edit changes the thinking of the latest assistant turn (message #${latest + 1}): with thinking on, the API refuses a thinking or redacted_thinking block that is not exactly as received, signature and all.`
    });
  }
  return [...warnings, ...historyWarnings(messages, { thinking: edit?.thinking }).filter((w) => w.latest)];
}
function droppedThinking(messages, fromIndex, { action }) {
  const latest = lastAssistantIndex(messages);
  if (latest < 0 || latest < fromIndex) return null;
  const blocks = sentBack(messages[latest].content);
  if (blocks.length === 0) return null;
  const signed = blocks.filter((block) => block.signature !== null).length;
  const what = action === "regenerate" ? "Regenerating replaces" : "Editing this message drops the turns after it, and with them";
  const redacted = blocks.filter((block) => block.type === "redacted_thinking").length;
  const parts2 = [plural(blocks.length - redacted, "thinking block")];
  if (redacted) parts2.push(plural(redacted, "redacted block"));
  return {
    index: latest,
    blocks: blocks.length,
    signed,
    text: `${what} the latest assistant turn's thinking (${parts2.join(", ")}, ${signed} signed). That thinking is not sent while the new answer is on screen: the new answer thinks afresh, and the old turn stays as an alternative (\u2039 \u203A on the turn) and in its run's record (Inspector). It cannot be edited instead: the API refuses a changed thinking block in the latest turn.`
  };
}

export {
  AttachTray,
  loadComposerDraft,
  saveComposerDraft,
  cannotActReason,
  canAct,
  initialState,
  pendingCalls,
  blockedReason,
  canRun,
  unansweredResults,
  canContinue,
  continueHint,
  runHint,
  retryText,
  waitText,
  stallText,
  runChoices,
  connectionText,
  rootData,
  step,
  Modal,
  showError,
  sentBack,
  historyWarnings,
  requestWarnings,
  droppedThinking,
  parseResultContent,
  ToolResults,
  nextTurn,
  TokenCount
};
