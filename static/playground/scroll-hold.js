// @ts-check
/**
 * What a mouse aims at inside the transcript's tool cards stays under it: while the pointer is
 * in a region marked `data-hold-scroll` (the tool results: their cards and Send results), a
 * change of layout (a result or a picture landing in a card, a turn drawn above) is undone by
 * scrolling the transcript by as much as the element under the pointer moved, before the
 * frame is painted (a ResizeObserver's turn), and the transcript does not follow its bottom.
 *
 * Rule: only a mouse or a pen holds (a finger's touch has no aim to keep); the scroll this
 * module makes is told to the transcript (`onScrolled`), so it is not taken for the reader's.
 * When the transcript cannot scroll far enough (scrolled to its end, and something below the
 * aim shrank: a hint emptied, Send results' label unwrapped, the bottom margin narrowed for
 * "Jump to latest"), the missing room is added under the turns as bottom padding and kept
 * until the transcript follows its end again (`letGo`): CI once saw Send results slide 42 px
 * from under the mouse so.
 * State for tests: the scroller's data-holding="true|false".
 */

export class ScrollHold {
  #scroller;
  #onScrolled;
  /** @type {Element | null} */
  #anchor = null; // the element under the pointer
  #top = 0; // its top when last seen where the pointer aims
  #point = { x: 0, y: 0 };
  #scrolledTo = 0; // the transcript's scrollTop as this module last saw or set it

  /** @param {HTMLElement} scroller @param {{ onScrolled: (top: number) => void }} options */
  constructor(scroller, { onScrolled }) {
    this.#scroller = scroller;
    this.#onScrolled = onScrolled;
    scroller.dataset.holding = "false";
    scroller.addEventListener("pointermove", (event) => this.#aim(event), { passive: true });
    scroller.addEventListener("pointerleave", () => this.#release(), { passive: true });
    scroller.addEventListener("scroll", () => this.#seen(), { passive: true });
    if (typeof ResizeObserver === "function") {
      const watch = new ResizeObserver(() => this.settle());
      for (const part of scroller.querySelectorAll("[data-turns], [data-hold-scroll]")) watch.observe(part);
    }
  }

  /** Whether the pointer is in a held region now (the transcript then keeps still). */
  get holding() {
    return this.#anchor !== null;
  }

  /** The element under the pointer moved: scroll it back under the pointer. */
  settle() {
    const anchor = this.#anchor;
    if (!anchor?.isConnected) return;
    const moved = anchor.getBoundingClientRect().top - this.#top;
    if (Math.abs(moved) < 0.5) return;
    const scroller = this.#scroller;
    const room = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop;
    if (moved > room) {
      const padding = parseFloat(getComputedStyle(scroller).paddingBottom) || 0;
      scroller.style.paddingBottom = `${padding + moved - room}px`;
    }
    scroller.scrollTop += moved;
    this.#scrolledTo = scroller.scrollTop;
    this.#onScrolled(this.#scroller.scrollTop);
    this.#top = anchor.getBoundingClientRect().top;
  }

  /** The transcript follows its end again (Send, Jump to latest): the room kept is let go. */
  letGo() {
    this.#scroller.style.paddingBottom = "";
  }

  #aim(event) {
    const target = /** @type {Element | null} */ (event.target instanceof Element ? event.target : null);
    if (event.pointerType === "touch" || !target?.closest("[data-hold-scroll]")) return this.#release();
    this.#point = { x: event.clientX, y: event.clientY };
    this.#anchor = target;
    this.#top = target.getBoundingClientRect().top;
    this.#scrolledTo = this.#scroller.scrollTop;
    this.#scroller.dataset.holding = "true";
  }

  /** The reader scrolled (a wheel): what is under the pointer now is what to keep. A scroll
   * event of this module's own scroll, or of the browser pulling an end-scrolled transcript up
   * as what is below shrank, is no reader's: it may come before the frame's ResizeObserver
   * turn with a layout change not yet undone, so it settles rather than aim anew (aiming then
   * kept the aim where the change had moved it: 20 px off, in one run of six). */
  #seen() {
    if (!this.#anchor) return;
    const scroller = this.#scroller;
    const ours = Math.abs(scroller.scrollTop - this.#scrolledTo) < 1;
    const atEnd = scroller.scrollHeight - scroller.clientHeight - scroller.scrollTop < 1;
    if (ours || (atEnd && scroller.scrollTop < this.#scrolledTo)) return this.settle();
    this.#scrolledTo = scroller.scrollTop;
    const under = document.elementFromPoint(this.#point.x, this.#point.y);
    if (!under?.closest("[data-hold-scroll]")) return this.#release();
    this.#anchor = under;
    this.#top = under.getBoundingClientRect().top;
  }

  #release() {
    this.#anchor = null;
    this.#scroller.dataset.holding = "false";
  }
}
