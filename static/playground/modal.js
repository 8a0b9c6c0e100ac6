// @ts-check
/**
 * In-page dialogs (a native <dialog> opened modal) and the Copy button they share.
 *
 * Rule: no window.alert/confirm/prompt anywhere on the page. A modal dialog keeps focus inside
 * itself (the rest of the page is inert), Esc or a click on the backdrop closes it, and focus
 * returns to the control that opened it. Keys typed in a dialog never reach the page-wide
 * shortcuts (Esc there would stop a live run, Ctrl+Enter would send the composer).
 * State for CSS and tests: dialog[data-state="open|closed"].
 */

export class Modal {
  #dialog;
  /** @type {HTMLElement | null} */
  #opener = null;
  #onClose;

  constructor(dialog, { onClose = () => {} } = {}) {
    this.#dialog = dialog;
    this.#onClose = onClose;
    dialog.dataset.state = "closed";
    dialog.addEventListener("keydown", (event) => event.stopPropagation());
    // Only the backdrop is the dialog itself: its content fills a padded inner box.
    dialog.addEventListener("click", (event) => {
      if (event.target === dialog) this.close();
    });
    dialog.querySelectorAll("[data-close]").forEach((button) =>
      button.addEventListener("click", () => this.close()),
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
}

/** Show `error` (an ApiError or text) in `node`, or hide it when empty. */
export function showError(node, error) {
  const text = typeof error === "string" ? error : (error?.message ?? "");
  node.textContent = text;
  node.hidden = !text;
  if (error && typeof error === "object" && error.field) node.dataset.field = error.field;
  else delete node.dataset.field;
}
