// @ts-check
/**
 * An action the person makes while the socket is not open (the page has just loaded, or it
 * reconnects after a drop): held until the socket opens, not refused.
 *
 * Rule: PURE, a part of state.js's reducer (its steps return {state, effects} alike). At most
 * one action is held (the composer says "Connecting…" and sends nothing more while it is); it
 * is sent once, at the server's hello on the socket that opened (a server that refuses the
 * socket, or is stopping, closes it without one), or refused with its text kept when that
 * attempt ends without a hello ("closed", "refused"): never sent twice, never lost. A socket
 * waiting for its next attempt ("closed") is asked to try now. A stop is never held: it is
 * about the run on screen, which the server may have ended while the page was away.
 */

/** The actions that carry the composer's text (a refusal forgets it was pending). */
const SENDS = new Set(["send", "send_request", "compare"]);

/** What may wait for the socket: every action that starts a run. */
const HOLDABLE = new Set([...SENDS, "regenerate", "continue", "tool_results"]);

export const HELD_TEXT = "Connecting to the server: your message is sent once the connection opens.";
export const NOT_SENT = "Not sent: the connection to the server did not open. Your text is kept; Send it again once it says Connected.";
const ONE_HELD = "Not sent: another message is already waiting for the connection.";

/** Why a control that starts a run is off while an action waits for the socket. */
export const WAITING_TEXT = "Waiting for the connection…";
export const REFUSED_TEXT = "Not allowed to open this conversation.";

/**
 * Why the page may not make an action that starts a run now ("" when it may: sent, or held
 * until the socket opens). Not while another is held (one at a time), nor on a socket refused
 * for good. A control that follows canAct says this beside itself.
 * @param {{held: unknown, connection: string}} state
 */
export function cannotActReason(state) {
  if (state.held !== null) return WAITING_TEXT;
  return state.connection === "refused" ? REFUSED_TEXT : "";
}

/**
 * Whether the page may make an action that starts a run now (cannotActReason says why not).
 * @param {{held: unknown, connection: string}} state
 */
export function canAct(state) {
  return cannotActReason(state) === "";
}

/**
 * The page's action: sent now (a socket effect), or held while the socket is not open.
 * `fields` change the state only when the action goes or is held (e.g. pendingSend).
 * @param {any} state @param {{action: string, [field: string]: unknown}} action @param {object} [fields]
 */
export function act(state, action, fields = {}) {
  const held = state.connection !== "open" && state.connection !== "refused" && HOLDABLE.has(action.action);
  if (!held) return { state: { ...state, ...fields }, effects: [{ do: "socket", action }] };
  if (state.held) return { state, effects: [{ do: "showError", text: ONE_HELD }] };
  const effects = [{ do: "showError", text: "" }, { do: "controls" }, { do: "announce", text: HELD_TEXT }];
  if (state.connection === "closed") effects.unshift({ do: "reconnect" }); // no wait for the backoff
  return { state: { ...state, ...fields, held: action }, effects };
}

/**
 * The socket's state changed: the held action is refused (its text kept) when the attempt ended
 * without the server's hello ("closed", "refused"); opening or a new attempt keeps it held.
 * @param {any} state the state with the new connection in it
 */
export function onConnection(state) {
  const { held } = state;
  if (!held || state.connection === "connecting" || state.connection === "open") return { state, effects: [{ do: "controls" }] };
  return {
    state: { ...refuse(state, held.action), held: null, lastError: "not_connected" },
    effects: [{ do: "showError", text: NOT_SENT }, { do: "controls" }],
  };
}

/**
 * `action` was refused (by the server, by a closed socket, or held and its attempt failed):
 * if it carried the composer's text, that text is no longer on its way. It stays in the box
 * (no composerSent), for the person to send again; the run.started that would clear it will
 * not come.
 * @template {{pendingSend: unknown}} S
 * @param {S} state @param {string} action the refused action's name
 * @returns {S}
 */
export function forgetRefusedSend(state, action) {
  return SENDS.has(action) ? { ...state, pendingSend: null } : state;
}

/**
 * `action` was refused, however (the server's error frame, a closed socket, a held action
 * whose attempt failed): its text is forgotten as pending (forgetRefusedSend) and the refusal
 * counted in `state.refused` ({action, count}), so a module that made the action by itself
 * (step mode's results, replay's next turn) sees its action will start no run, and stops
 * waiting for one. Why is said once, the reducer's showError (the composer's error line).
 * @param {any} state @param {string} action the refused action's name
 */
export function refuse(state, action) {
  return { ...forgetRefusedSend(state, action), refused: { action, count: (state.refused?.count ?? 0) + 1 } };
}

/**
 * The server's hello: the socket is open and the server takes actions on it: the held action
 * goes, once.
 * @param {any} state
 */
export function sendHeld(state) {
  if (!state.held) return { state, effects: [] };
  return { state: { ...state, held: null }, effects: [{ do: "socket", action: state.held }, { do: "controls" }] };
}
