// @ts-check
/**
 * The conversation's WebSocket: connect, reconnect with backoff, report the connection state.
 *
 * Rule: this module knows frames, not runs. It hands every parsed frame to `onFrame`, reports
 * "connecting" | "open" | "closed" | "refused" through `onState` (the app mirrors it on the root
 * as data-connection), and reconnects with exponential backoff (0.5 s doubling to 10 s, with
 * jitter) unless the server refused the socket for good (close codes 4403 and 4404).
 *
 * A socket can die without a close event (a laptop put to sleep, Wi-Fi gone, a proxy that
 * drops the connection silently), so the page never trusts "open" alone: every HEARTBEAT_MS it
 * sends {action: "ping", id} and expects the server's {type: "pong", id} (or any frame) within
 * PONG_TIMEOUT_MS; silence counts as a dead socket, reported as "closed" with
 * {reason: "heartbeat"} and reconnected. Pongs are this module's business: never handed on.
 */

const FINAL_CODES = new Set([4403, 4404]);
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;
export const HEARTBEAT_MS = 3000;
export const PONG_TIMEOUT_MS = 3000;

export class ConversationSocket {
  #url;
  #onFrame;
  #onState;
  /** @type {WebSocket | null} */
  #ws = null;
  #attempt = 0;
  #timer = 0;
  #closedByUs = false;
  #heartbeat = 0;
  #deadline = 0;
  #pingId = 0;
  #maxBytes;

  constructor(path, { onFrame, onState, maxBytes = Infinity }) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.#url = `${scheme}//${location.host}${path}`;
    this.#onFrame = onFrame;
    this.#onState = onState;
    this.#maxBytes = maxBytes;
  }

  get isOpen() {
    return this.#ws !== null && this.#ws.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.#timer);
    this.#onState("connecting", { attempt: this.#attempt });
    const ws = new WebSocket(this.#url);
    this.#ws = ws;
    ws.addEventListener("open", () => {
      this.#attempt = 0;
      this.#onState("open", {});
      this.#startHeartbeat(ws);
    });
    ws.addEventListener("message", (event) => {
      if (this.#ws === ws) this.#alive(); // any frame proves the socket alive
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; anything else is not ours to act on
      }
      if (frame?.type === "pong") return;
      this.#onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      this.#stopHeartbeat();
      if (this.#closedByUs) return;
      if (FINAL_CODES.has(event.code)) {
        this.#onState("refused", { code: event.code });
        return;
      }
      this.#scheduleReconnect();
    });
  }

  #startHeartbeat(ws) {
    this.#stopHeartbeat();
    this.#heartbeat = setInterval(() => {
      if (this.#ws !== ws || ws.readyState !== WebSocket.OPEN) return;
      this.#pingId += 1;
      ws.send(JSON.stringify({ action: "ping", id: this.#pingId }));
      // The oldest unanswered ping sets the deadline: a later ping never moves it.
      if (this.#deadline === 0) this.#deadline = setTimeout(() => this.#dead(ws), PONG_TIMEOUT_MS);
    }, HEARTBEAT_MS);
  }

  #alive() {
    clearTimeout(this.#deadline);
    this.#deadline = 0;
  }

  #stopHeartbeat() {
    clearInterval(this.#heartbeat);
    this.#alive();
  }

  /** No answer to a ping: drop this socket (its close event may never come) and reconnect. */
  #dead(ws) {
    if (this.#ws !== ws) return;
    this.#ws = null;
    this.#stopHeartbeat();
    ws.close();
    this.#scheduleReconnect({ reason: "heartbeat" });
  }

  #scheduleReconnect(extra = {}) {
    const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.#attempt);
    const jittered = Math.round(delay * (0.75 + Math.random() * 0.5));
    this.#attempt += 1;
    this.#onState("closed", { retryInMs: jittered, attempt: this.#attempt, ...extra });
    this.#timer = setTimeout(() => this.connect(), jittered);
  }

  /** Reconnect now (the "retry" button), skipping the wait. */
  retryNow() {
    if (this.#ws === null) this.connect();
  }

  /** Send one action; false when the socket is not open (the caller says so). */
  send(action) {
    const ws = this.#ws;
    if (ws === null || ws.readyState !== WebSocket.OPEN) return false;
    const text = JSON.stringify(action);
    const size = new TextEncoder().encode(text).length;
    if (size > this.#maxBytes) {
      // Refused here, in the server's own error shape: a frame past the server's limit would
      // only close the socket, and the person would never hear why.
      const message = `this is ${size} bytes, over the limit of ${this.#maxBytes} bytes; nothing was sent`;
      // Answered after this send returns, as the server's answer would be (never re-entrantly).
      const frame = { type: "error", action: action.action, error: { code: "too_large", message } };
      setTimeout(() => this.#onFrame(frame), 0);
      return true;
    }
    ws.send(text);
    return true;
  }

  close() {
    this.#closedByUs = true;
    this.#stopHeartbeat();
    clearTimeout(this.#timer);
    this.#ws?.close();
  }
}
