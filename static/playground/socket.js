/**
 * The conversation's WebSocket: connect, reconnect with backoff, report the connection state.
 *
 * Rule: this module knows frames, not runs. It hands every parsed frame to `onFrame`, reports
 * "connecting" | "open" | "closed" | "refused" through `onState` (the app mirrors it on the root
 * as data-connection), and reconnects with exponential backoff (0.5 s doubling to 10 s, with
 * jitter) unless the server refused the socket for good (close codes 4403 and 4404).
 */

const FINAL_CODES = new Set([4403, 4404]);
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 10_000;

export class ConversationSocket {
  #url;
  #onFrame;
  #onState;
  #ws = null;
  #attempt = 0;
  #timer = 0;
  #closedByUs = false;

  constructor(path, { onFrame, onState }) {
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    this.#url = `${scheme}//${location.host}${path}`;
    this.#onFrame = onFrame;
    this.#onState = onState;
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
    });
    ws.addEventListener("message", (event) => {
      let frame;
      try {
        frame = JSON.parse(event.data);
      } catch {
        return; // the server only sends JSON; anything else is not ours to act on
      }
      this.#onFrame(frame);
    });
    ws.addEventListener("close", (event) => {
      if (this.#ws !== ws) return;
      this.#ws = null;
      if (this.#closedByUs) return;
      if (FINAL_CODES.has(event.code)) {
        this.#onState("refused", { code: event.code });
        return;
      }
      this.#scheduleReconnect();
    });
  }

  #scheduleReconnect() {
    const delay = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** this.#attempt);
    const jittered = Math.round(delay * (0.75 + Math.random() * 0.5));
    this.#attempt += 1;
    this.#onState("closed", { retryInMs: jittered, attempt: this.#attempt });
    this.#timer = setTimeout(() => this.connect(), jittered);
  }

  /** Reconnect now (the "retry" button), skipping the wait. */
  retryNow() {
    if (this.#ws === null) this.connect();
  }

  /** Send one action; false when the socket is not open (the caller says so). */
  send(action) {
    if (!this.isOpen) return false;
    this.#ws.send(JSON.stringify(action));
    return true;
  }

  close() {
    this.#closedByUs = true;
    clearTimeout(this.#timer);
    this.#ws?.close();
  }
}
