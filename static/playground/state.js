// @ts-check
/**
 * The conversation page's state: a pure reducer, `step(state, input) -> {state, effects}`.
 *
 * Rule: PURE (no DOM, no socket, no clock). An input is a server frame ({type: "hello" |
 * "run.started" | "run.retrying" | "run.waiting" | "run.events" | "run.saving" | "run.finished" | "pong" | "error",
 * ...}) or a page event
 * ({type: "connection" | "send" | "tool_results" | "send_request" | "regenerate" | "stop" | "refused" | "edited" |
 * "switched" | "reloaded" | "reread" | "renamed" | "settings.saved", ...}). The state is never mutated: a new one comes
 * back, with the effects page.js must carry out, in order, as plain values ({do: "draw"},
 * {do: "socket", action}, {do: "announce", text}, … see EFFECTS). A resume is known, not
 * guessed: the page asked for it (`state.resuming` holds the run and the seq it asked from), so
 * the run.started that answers it is the one for that run. Every run is a group of one to four
 * columns (a send's of one, a compare's of two to four: live-group.js), folded by the same steps
 * into `state.live` with the same effects; page.js draws a group of one in the transcript and a
 * compare's columns with compare.js, which only draws. An action made before the socket is open
 * waits for it in `state.held` (held-send.js). A hello whose path ends elsewhere than the
 * page's (`last_message_id`: runs came and went while the socket was away) has the turns read
 * again (`reread`), keeping what came on the new socket meanwhile.
 */

import { act, HELD_TEXT, onConnection, REFUSED_TEXT, refuse, sendHeld } from "./held-send.js";
import { columnOf, foldEvents, newColumn, placeOf, resumesOnHello, withColumn } from "./live-group.js";

export { columnOf };

/** @typedef {{do: string, [field: string]: unknown}} Effect {do: <one of EFFECTS>, ...its fields} */

/** What page.js knows how to do; each effect is {do: <one of these>, ...its fields}. */
export const EFFECTS = [
  "socket", // {action}: send it; a refusal comes back as a "refused" input (resume: ignored)
  "reconnect", // an action is held while the socket waits to try again: try now
  "controls", // the composer, the tool result cards, the connection line
  "draw", // redraw the stored turns (with the orphan run), the inspector's run list, the controls
  "startLive", // {run, index, count, fresh, sent}: draw the stored turns and start a column's live turn
  //   (count 1: the transcript's, then as "draw" does; more: a compare's column, fresh: a new compare)
  "events", // {runId, count, events}: feed the column's live turn (and the inspector's, or its live line)
  "saving", // {frame}: the run ended but is not saved yet
  "finishLive", // {frame, count}: the column's footer, before the redraw
  "runEnded", // {runId}: the inspector and sidebar hear of it
  "composerSent", // the composer's text was taken by the server: clear it ({content}: only if it
  //   still holds that content; what was typed since stays)
  "toolResultsDone", // the tool result cards were taken: clear their drafts
  "showError", // {text}: the composer's error line ("" clears it)
  "announce", // {text}: the aria-live region
  "scroll", // follow the transcript's bottom if the reader is there
  "follow", // a new turn of the person's: scroll to it and follow the stream from now on
  "liveNote", // {runId, count}: the column's status line (state.retrying, its waiting) changed
  "reload", // fetch the stored conversation; send back "reloaded" (or "reload.failed")
  "reread", // the same, sent back as "reread": the hello said the turns moved on while away
  "title", // the conversation's title changed
  "model", // the conversation's profile or model changed
  "groupEnded", // {count}: every column ended; with more than one, read the conversation again (its
  //   answers are alternatives of one turn) and offer Keep on each
];

const STATUS_WORDS = {
  complete: "Answer complete",
  stopped: "Stopped; the partial answer is kept",
  failed: "The run failed",
  truncated: "The answer was cut off",
  interrupted: "The run was interrupted",
};

export const NOT_CONNECTED = "Not connected to the server; try again once it says Connected.";

/** A run that saved no message (e.g. a 429 before the first event) still has an outcome. */
export function findOrphan(run, messages) {
  if (!run || run.status === "running") return null;
  if (messages.some((message) => message.run?.id === run.id)) return null;
  // An answer the conversation could not take is kept on its run: always shown.
  if (run.kept_content) return run;
  return messages.at(-1)?.role === "user" ? run : null;
}

/** The state of a page that has just read its conversation. */
export function initialState(conversation) {
  const { messages: stored, ...rest } = conversation;
  const messages = [...stored];
  return {
    conversation: rest,
    messages,
    orphanRun: findOrphan(conversation.last_run, messages),
    live: /** @type {import("./live-group.js").Group | null} */ (null), // the live group (live-group.js)
    resuming: null, // {[runId]: afterSeq}: the resumes the page asked for, until their group ends
    pendingSend: null, // the composer's text, until run.started shows it stored
    held: null, // an action made before the socket opened, sent at the server's hello (held-send.js)
    refused: /** @type {{action: string, count: number} | null} */ (null), // the last refusal, counted (held-send.js refuse)
    connection: "connecting",
    connectionDetail: {}, // the socket's {attempt} or {retryInMs}, for the connection line
    liveUpdates: "live", // "paused": the server cannot reach Redis (runs elsewhere not followed)
    stopping: false,
    saving: false, // run.saving seen: the end is not saved yet
    retrying: /** @type {{attempt: number, attempts: number, retryInMs: number, reason: string} | null} */ (null), // the upstream is being retried
    waiting: null, // {profile}: every slot of the run's profile is taken (run.waiting)
    lastSeq: null,
    lastStatus: null,
    lastError: null,
    finishedRuns: 0, // a counter, so a test can wait for "the next run ended"
    compareSent: [], // a compare's columns' settings as last sent, for their headers
  };
}

// -- what the page shows, derived --------------------------------------------------------------

/** The tool calls waiting for results (the last turn's tool_use blocks). */
export function pendingCalls(state) {
  const last = state.messages.at(-1);
  if (!last || last.role !== "assistant" || !Array.isArray(last.content)) return [];
  return last.content.filter((block) => block.type === "tool_use");
}

/** Why the composer cannot send now ("" when it can). */
export function blockedReason(state) {
  if (state.live !== null) return "";
  if (state.held !== null) return HELD_TEXT;
  // Connecting or reconnecting: a send waits for the socket (held-send.js); refused for good:
  if (state.connection === "refused") return REFUSED_TEXT;
  if (pendingCalls(state).length > 0) return "The model is waiting for tool results: answer each call above, then Send results.";
  return "";
}

/** The conversation ends with a user turn nobody answered (an import, a failed run): Run it. */
export function canRun(state) {
  return state.live === null && state.messages.at(-1)?.role === "user";
}

/** The unanswered last turn holds tool results: new text joins them (the calls need them). */
export function unansweredResults(state) {
  const content = canRun(state) ? state.messages.at(-1).content : null;
  return Array.isArray(content) && content.some((block) => block?.type === "tool_result");
}

/** Stop reasons after which an answer can go on (protocol.continuation). */
const CONTINUABLE = new Set(["pause_turn", "max_tokens"]);

/** The conversation ends with an answer a run can continue: a prefill, or a turn the API
 * paused or cut at max_tokens, that calls no tools (those want results, not more words). */
export function canContinue(state) {
  const last = state.messages.at(-1);
  if (state.live !== null || last?.role !== "assistant") return false;
  if (Array.isArray(last.content) && last.content.some((block) => block?.type === "tool_use")) return false;
  return Boolean(last.prefill) || CONTINUABLE.has(last.run?.stop_reason);
}

/** The composer's hint when the last answer can be continued ("" otherwise). */
export function continueHint(state) {
  if (!canContinue(state) || state.connection === "refused") return "";
  const last = state.messages.at(-1);
  if (last.prefill) return "Your prefill has no answer yet: Continue sends it for the model to go on.";
  if (last.run?.stop_reason === "pause_turn") return "The upstream paused this turn (pause_turn): Continue sends it back for the model to go on.";
  return "The answer reached max_tokens: Continue asks the model to go on from where it stopped.";
}

/** The composer's hint when the last turn is unanswered ("" otherwise): the ways on, plainly. */
export function runHint(state) {
  if (!canRun(state) || state.connection === "refused") return "";
  if (unansweredResults(state)) {
    return "The tool results have no answer yet: Run it again, or type and Send (your text goes with them).";
  }
  return "The last message has no answer yet: Run it as it is, edit it (✎), or type: Send sends your new text alone (the unanswered one stays behind ‹ ›), Add to it joins them.";
}

/** The live turn's status line before its first event: a retry of the upstream. */
export function retryText(retrying, remainingMs = retrying?.retryInMs ?? 0) {
  if (!retrying) return "";
  const why = retrying.reason ? ` (${retrying.reason})` : "";
  const seconds = Math.max(0, Math.ceil(remainingMs / 1000));
  return `The upstream refused${why}: retrying in ${seconds} s, attempt ${retrying.attempt} of ${retrying.attempts}`;
}

/** The live turn's status line while every slot of its profile is taken (run.waiting). */
export function waitText(waiting) {
  return waiting ? `Waiting for a free slot on ${waiting.profile}` : "";
}

/** "No data from the upstream for N s" once a live run has been silent for STALL_AFTER_MS. */
export const STALL_AFTER_MS = 5000;
export function stallText(silentMs) {
  if (!(silentMs >= STALL_AFTER_MS)) return "";
  return `No data from the upstream for ${Math.floor(silentMs / 1000)} s (the connection to this server is alive)`;
}

/** The inspector's run list: the live run, the orphan, then each message's run, newest first. */
export function runChoices(state) {
  const runs = [];
  const seen = new Set();
  const add = (run, label) => {
    if (!run?.id || seen.has(run.id)) return;
    seen.add(run.id);
    runs.push({ id: run.id, label });
  };
  // Numbered as runs, oldest first (message positions, #2 #4 #6, read as a gap).
  const stored = state.messages.map((message) => message.run).filter((run) => run?.id);
  for (const column of state.live?.columns ?? []) {
    if (!column.done) add(column, `Run ${stored.length + 1} · live · ${column.model ?? ""}`);
  }
  if (state.orphanRun) add(state.orphanRun, `${state.orphanRun.status} · ${state.orphanRun.model}`);
  [...stored].reverse().forEach((run, index) => {
    add(run, `Run ${stored.length - index} · ${run.status} · ${run.model} · ${run.stop_reason ?? "—"}`);
  });
  return runs;
}

/** The connection line's words. */
export function connectionText(connection, detail = {}, liveUpdates = "live") {
  if (connection === "open" && liveUpdates === "paused") {
    return "Connected; live updates paused (the server cannot reach Redis): runs on other servers show when it is back";
  }
  if (connection === "open") return "Connected";
  if (connection === "connecting") return detail.attempt ? "Reconnecting…" : "Connecting…";
  const retry = `retrying in ${Math.ceil((detail.retryInMs ?? 0) / 1000)} s`;
  if (connection === "closed" && detail.reason === "heartbeat") return `Connection lost (the server stopped answering); ${retry}`;
  if (connection === "closed") return `Disconnected; ${retry}`;
  return "Not allowed to open this conversation";
}

/** The root element's data-* mirror (a value of null means the attribute is absent). */
export function rootData(state) {
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
    finishedRuns: state.finishedRuns > 0 ? String(state.finishedRuns) : null,
  };
}

// -- the reducer -------------------------------------------------------------------------------

// A stored message takes its place on the path: it replaces the one at its position (the same
// message grown, or an alternative of it) and anything after it.
const withMessage = (messages, message) => [
  ...messages.filter((m) => m.id !== message.id && !(m.position >= message.position)),
  message,
];
/** @param {any} state @param {...Effect} effects */
const done = (state, ...effects) => ({ state, effects });

function onHello(helloState, frame) {
  const welcomed = { ...helloState, liveUpdates: frame.live_updates === "paused" ? "paused" : "live" };
  // What was sent before the socket opened goes now (after the resumes: a live run refuses it).
  const { state, effects: sendNow } = sendHeld(welcomed);
  // A reload (from 0), a reconnect (from the last seq drawn), or a group that ended while we
  // were away (the server replays its tail and run.finished): every column the same way.
  const resumes = resumesOnHello(state, frame.live_group);
  if (resumes.length === 0) {
    const effects = sendNow.length ? sendNow : [{ do: "controls" }];
    return done(state, ...effects, ...(pathMoved(state, frame) ? [{ do: "reread" }] : []));
  }
  const resuming = Object.fromEntries(resumes.map(({ runId, afterSeq }) => [runId, afterSeq]));
  return done(
    { ...state, resuming },
    ...resumes.map(({ runId, afterSeq }) => ({ do: "socket", action: { action: "resume", run_id: runId, after_seq: afterSeq } })),
    ...sendNow,
  );
}

/** The server's path ends with another message than the page's: a run (another tab's, the
 * API's, or a send whose socket dropped before its start came back) started and ended while
 * the socket was away, or another tab edited or switched a turn. A hello without the field
 * (an older server) says nothing. */
const pathMoved = (state, frame) =>
  Object.hasOwn(frame, "last_message_id") && frame.last_message_id !== (state.messages.at(-1)?.id ?? null);

/** The text of a turn's content (its text blocks together), to match a pending send. */
const textOf = (content) =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map((block) => (block?.type === "text" ? block.text : "")).join("") : "";

/** The turns read again after a hello said they moved on (`reread`). What came on the new
 * socket since the read was asked (a held send's start, its end) is the page's, newer than the
 * read: kept after the read's last turn; a checkpoint of a live run is its live turn's. A
 * pending send that a new user turn of the read holds was taken by the server (its start was
 * lost with the socket): the composer is cleared of it, unless it holds more since. */
function onReread(state, { conversation }) {
  const { messages: stored, ...rest } = conversation;
  const live = new Set((state.live?.columns ?? []).map((column) => column.id));
  let messages = stored.filter((message) => !live.has(message.run?.id));
  const end = messages.at(-1)?.position ?? -1;
  for (const message of state.messages) if (message.position > end) messages = withMessage(messages, message);
  const seen = new Set(state.messages.map((message) => message.id));
  const wanted = state.pendingSend === null ? null : textOf(state.pendingSend);
  const answered =
    wanted !== null && messages.some((m) => m.role === "user" && !seen.has(m.id) && textOf(m.content).includes(wanted));
  const orphanRun = state.live ? null : findOrphan(rest.last_run, messages);
  /** @type {Effect[]} */
  const effects = [{ do: "draw" }, { do: "title" }];
  if (answered) effects.unshift({ do: "composerSent", content: state.pendingSend });
  return done({ ...state, conversation: rest, messages, orphanRun, pendingSend: answered ? null : state.pendingSend }, ...effects);
}

/** The turns as a run's start leaves them, and what that asks of the page. */
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
    messages = withMessage(messages, frame.continued_message); // the turn the run goes on with
  } else if (!frame.user_message && messages.at(-1)?.role === "assistant") {
    messages = messages.slice(0, -1); // regenerate drops the last assistant turn
  }
  return { messages, pendingSend };
}

/** A resumed run.started that is the page's first word of its run, while a send is pending
 * and the run's user turn is new to the page: the send's run, whose first run.started was lost
 * with the socket (it dropped after the send went out, before the start came back). It answers
 * the send as that one would have: the turn stored, the composer cleared (sent twice by hand
 * otherwise). */
const answersPendingSend = (state, frame, known) =>
  state.pendingSend !== null &&
  !known &&
  frame.user_message != null &&
  !state.messages.some((message) => message.id === frame.user_message.id);

function onRunStarted(state, frame) {
  const { run } = frame;
  const { group, index, count } = placeOf(run);
  const resumed = state.resuming !== null && Object.hasOwn(state.resuming, run.id);
  const known = columnOf(state, run.id);
  /** @type {Effect[]} */
  const effects = [];
  let { messages, pendingSend } = state;
  if ((!resumed && !known) || answersPendingSend(state, frame, known)) ({ messages, pendingSend } = startedTurns(state, frame, effects));
  // A checkpoint of this run may be among the stored messages: the live turn replaces it.
  messages = messages.filter((m) => m.run?.id !== run.id);
  // A compare's next column joins its group; any other start is a new group.
  const joins = state.live !== null && group !== null && state.live.group === group;
  let live = state.live;
  if (!known) {
    const column = newColumn(run, index);
    live = joins ? { ...state.live, columns: [...state.live.columns, column] } : { group, count, columns: [column] };
    const sent = count > 1 ? (state.compareSent[index] ?? null) : null;
    effects.push({ do: "startLive", run, index, count, fresh: !joins, sent });
    if (!resumed && !joins) effects.push({ do: "follow" }); // the person's new turn: show it, follow it
  }
  if (!joins || resumed) effects.push({ do: "announce", text: resumed ? "Resuming the live answer" : "Waiting for the answer" });
  return done({ ...state, messages, pendingSend, live, orphanRun: null, lastStatus: null, retrying: null, waiting: null }, ...effects);
}

/** A column with no event yet: a note on its live line (a retry, a wait for a slot). */
const beforeFirstEvent = (state, runId) => {
  const column = columnOf(state, runId);
  return column !== null && column.lastSeq === 0 && !column.done ? column : null;
};

function onRunRetrying(state, frame) {
  if (!beforeFirstEvent(state, frame.run_id)) return done(state);
  const retrying = { attempt: frame.attempt, attempts: frame.attempts, retryInMs: frame.retry_in_ms, reason: frame.reason ?? "" };
  return done(
    { ...state, retrying, waiting: null },
    { do: "liveNote", runId: frame.run_id, count: state.live.count },
    { do: "announce", text: retryText(retrying) },
  );
}

function onRunWaiting(state, frame) {
  if (!beforeFirstEvent(state, frame.run_id)) return done(state);
  const profile = frame.waiting ? String(frame.profile ?? "") : null;
  const waiting = profile === null ? null : { profile };
  const live = withColumn(state.live, frame.run_id, { waiting: profile });
  /** @type {Effect[]} */
  const effects = [{ do: "liveNote", runId: frame.run_id, count: live.count }];
  if (waiting) effects.push({ do: "announce", text: waitText(waiting) });
  return done({ ...state, live, waiting }, ...effects);
}

function onRunEvents(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || frame.events.length === 0) return done(state);
  const folded = foldEvents(column, frame.events);
  const live = withColumn(state.live, column.id, folded);
  /** @type {Effect[]} */
  const effects = [{ do: "events", runId: column.id, count: live.count, events: frame.events }];
  if (state.live.columns.every((other) => other.lastSeq === 0)) effects.push({ do: "announce", text: "Streaming the answer" });
  if (state.retrying || state.waiting) effects.push({ do: "liveNote", runId: column.id, count: live.count });
  effects.push({ do: "scroll" });
  return done({ ...state, live, lastSeq: folded.lastSeq, retrying: null, waiting: null }, ...effects);
}

function onRunSaving(state, frame) {
  // The stream is over but the database refused its end: never say it completed.
  if (!columnOf(state, frame.run_id)) return done(state);
  return done(
    { ...state, saving: true },
    { do: "saving", frame },
    { do: "announce", text: "The answer is not saved yet; the server keeps it and retries" },
  );
}

function onRunFinished(state, frame) {
  const column = columnOf(state, frame.run_id);
  if (!column || column.done) return done(state);
  const group = withColumn(state.live, column.id, { done: true, status: frame.status, messageId: frame.message?.id ?? null });
  const over = group.columns.length >= group.count && group.columns.every((one) => one.done);
  let { messages, orphanRun } = state;
  // A group of one's answer is the turn; a compare's are alternatives of one turn, read again
  // once every column has ended (groupEnded).
  if (group.count === 1 && frame.message) {
    messages = withMessage(messages, frame.message);
  } else if (group.count === 1) {
    const { status, stop_reason, usage, timings, error } = frame;
    const kept = frame.kept_content ?? null;
    orphanRun = { id: frame.run_id, status, stop_reason, usage, timings, error, kept_content: kept, profile: column.profile, model: column.model };
  }
  const words = STATUS_WORDS[frame.status] ?? frame.status;
  const ended = over ? { live: null, resuming: null, saving: false, retrying: null, waiting: null, stopping: false } : { live: group };
  /** @type {Effect[]} */
  const effects = [{ do: "finishLive", frame, count: group.count }];
  if (over) effects.push({ do: "draw" });
  effects.push(
    { do: "runEnded", runId: frame.run_id },
    { do: "announce", text: frame.stop_reason === "tool_use" ? "The model called tools: results are due" : words },
    { do: "scroll" },
  );
  if (over) effects.push({ do: "groupEnded", count: group.count });
  return done({ ...state, messages, orphanRun, ...ended, lastStatus: frame.status, finishedRuns: state.finishedRuns + 1 }, ...effects);
}

function onError(state, frame) {
  const error = frame.error ?? {};
  // The run is gone (another server, or past its end): show what is stored.
  if (frame.action === "resume") return done({ ...state, live: null, resuming: null }, { do: "reload" });
  const field = error.field ? ` (${error.field})` : "";
  return done(
    {
      ...refuse(state, frame.action),
      stopping: frame.action === "stop" ? false : state.stopping,
      lastError: error.code ?? "error",
    },
    { do: "showError", text: `${error.message ?? "refused"}${field}` },
  );
}

const STEPS = {
  hello: onHello,
  "run.started": onRunStarted,
  "run.retrying": onRunRetrying,
  "run.waiting": onRunWaiting,
  "run.events": onRunEvents,
  "run.saving": onRunSaving,
  "run.finished": onRunFinished,
  error: onError,
  // The server lost Redis, or has it back (it then follows every run elsewhere again itself).
  live_updates: (state, { state: updates }) =>
    done({ ...state, liveUpdates: updates === "paused" ? "paused" : "live" }, { do: "controls" }),
  connection: (state, { connection, detail = {} }) => onConnection({ ...state, connection, connectionDetail: detail }),
  // unanswered: "join" adds the text to an unanswered last turn; without it the server sends
  // the text alone (shapes.Unanswered).
  // prefill: the start of the answer, for the model to continue (protocol.continuation).
  send: (state, { text, unanswered = null, prefill = null }) =>
    act(state, { action: "send", content: text, ...(unanswered ? { unanswered } : {}), ...(prefill ? { prefill } : {}) }, { pendingSend: text }),
  continue: (state) => (canContinue(state) ? act(state, { action: "continue" }) : done(state)),
  tool_results: (state, { results, text }) => act(state, { action: "tool_results", results, text }),
  // The request editor's body, sent with the turn it was drafted for (debugger: request-editor.js).
  send_request: (state, { turn, request }) =>
    act(state, { action: "send_request", ...turn, request }, { pendingSend: turn.content ?? state.pendingSend }),
  regenerate: (state) => act(state, { action: "regenerate" }),
  run: (state) => (canRun(state) ? act(state, { action: "regenerate" }) : done(state)),
  // Every column of the live group stops.
  stop: (state) => (state.live ? act(state, { action: "stop" }, { stopping: true }) : done(state)),
  // The composer's text sent to a compare's columns (compare.js's setup: their settings).
  compare: (state, { content, columns }) =>
    act(state, { action: "compare", content, columns }, { compareSent: columns, pendingSend: content ?? state.pendingSend }),
  "compare.dismissed": (state) => done(state, { do: "controls" }),
  refused: (state, { action }) =>
    done(
      { ...refuse(state, action), stopping: action === "stop" ? false : state.stopping },
      { do: "showError", text: NOT_CONNECTED },
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
  "reload.failed": (state, { message }) =>
    done(state, { do: "showError", text: `Could not reload the conversation: ${message}` }, { do: "draw" }),
  renamed: (state, { title }) => done({ ...state, conversation: { ...state.conversation, title } }, { do: "title" }),
  "settings.saved": (state, { conversation: { settings, profile, model } }) =>
    done({ ...state, conversation: { ...state.conversation, settings, profile, model } }, { do: "model" }),
};

/** The next state and what to do about it; an input this page does not know changes nothing. */
export function step(state, input) {
  const handler = Object.hasOwn(STEPS, input.type) ? STEPS[input.type] : null;
  return handler === null ? done(state) : handler(state, input);
}
