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
 * State for tests: the scroller's data-holding="true|false".
 */

export class ScrollHold {
  #scroller;
  #onScrolled;
  /** @type {Element | null} */
  #anchor = null; // the element under the pointer
  #top = 0; // its top when last seen where the pointer aims
  #point = { x: 0, y: 0 };

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
    this.#scroller.scrollTop += moved;
    this.#onScrolled(this.#scroller.scrollTop);
    this.#top = anchor.getBoundingClientRect().top;
  }

  #aim(event) {
    const target = /** @type {Element | null} */ (event.target instanceof Element ? event.target : null);
    if (event.pointerType === "touch" || !target?.closest("[data-hold-scroll]")) return this.#release();
    this.#point = { x: event.clientX, y: event.clientY };
    this.#anchor = target;
    this.#top = target.getBoundingClientRect().top;
    this.#scroller.dataset.holding = "true";
  }

  /** The reader scrolled (a wheel): what is under the pointer now is what to keep. */
  #seen() {
    if (!this.#anchor) return;
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
