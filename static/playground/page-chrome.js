// @ts-check
/**
 * The page's chrome: the sidebar, settings and inspector panels, the help section, the top
 * bar's menu, and the title's rename form.
 *
 * Rule: this module opens and closes things and edits the title field; what a rename means
 * (the PATCH, the new state) is the caller's `onRename(title)`, which resolves once done.
 * Panel state is mirrored on the root: data-conversations (the sidebar) / data-settings /
 * data-inspector = "open|closed", and on the top bar: data-menu. Where a panel is a drawer over the page (CSS
 * decides: it is `position: fixed` there), only one drawer is open at a time, a scrim covers
 * the page, focus moves into the drawer, and Esc, the scrim or the close button shut it and
 * give focus back to the button that opened it. Every toggle carries aria-expanded. Beside
 * the chat, settings and inspector share the width: below SIDE_BY_SIDE_MIN px one of them is
 * open at a time (two left the chat about 370 px wide), and whether the person left the
 * settings open or closed is kept for the next page (REMEMBERED).
 */

import { one } from "./dom.js";

const isDrawer = (node) => getComputedStyle(node).position === "fixed";

/** The window width from which settings and the inspector both fit beside the chat. */
export const SIDE_BY_SIDE_MIN = 1680;
/** Panels whose open or closed state the next page starts with (localStorage). */
const REMEMBERED = new Set(["settings"]);
const rememberedKey = (name) => `pg:panel:${name}`;

function remembered(name) {
  try {
    return localStorage.getItem(rememberedKey(name));
  } catch {
    return null; // storage refused (a private window): the page's default stands
  }
}

function remember(name, open) {
  try {
    localStorage.setItem(rememberedKey(name), open ? "open" : "closed");
  } catch {
    // storage refused: nothing to keep
  }
}

/** The drawers and panels of a page; each `{node, name, buttons, onOpen, hiddenAttr}`. */
class Panels {
  #root;
  #scrim;
  #panels = new Map();
  /** @type {HTMLElement | null} */
  #opener = null;

  constructor(root) {
    this.#root = root;
    this.#scrim = root.querySelector("[data-scrim]");
    this.#scrim?.addEventListener("click", () => this.closeDrawers());
  }

  add(name, node, { onOpen = null, hiddenAttr = true, key = name } = {}) {
    const selector = `[data-action='toggle-${name}']`;
    const panel = { name, key, node, selector, onOpen, hiddenAttr };
    this.#panels.set(name, panel);
    this.#root.querySelectorAll(selector).forEach((button) =>
      button.addEventListener("click", (event) => {
        this.toggle(name, { opener: event.currentTarget });
        if (REMEMBERED.has(name) && !isDrawer(node)) remember(name, this.isOpen(name));
      }),
    );
    return panel;
  }

  /** The state the person left a remembered panel in on an earlier page (beside the chat). */
  restore() {
    for (const panel of this.#panels.values()) {
      const state = REMEMBERED.has(panel.name) ? remembered(panel.name) : null;
      if (state && !isDrawer(panel.node)) this.#set(panel, state === "open");
    }
  }

  isOpen(name) {
    return this.#root.dataset[this.#panels.get(name).key] === "open";
  }

  toggle(name, options = {}) {
    if (this.isOpen(name)) this.close(name);
    else this.open(name, options);
  }

  /** @param {string} name @param {{ opener?: HTMLElement | null, focus?: boolean }} [options] */
  open(name, { opener = null, focus = true } = {}) {
    const panel = this.#panels.get(name);
    this.#set(panel, true);
    if (!isDrawer(panel.node) && panel.node.classList.contains("panel") && window.innerWidth < SIDE_BY_SIDE_MIN) {
      for (const other of this.#panels.values()) {
        if (other !== panel && other.node.classList.contains("panel") && this.isOpen(other.name)) this.#set(other, false);
      }
    }
    if (isDrawer(panel.node)) {
      for (const other of this.#panels.values()) if (other !== panel && this.isOpen(other.name) && isDrawer(other.node)) this.#set(other, false);
      // The button that opened it, or (from the top bar's menu) the menu's button.
      this.#opener = opener?.closest("[data-topbar-menu]") ? one(this.#root, "[data-action='toggle-menu']") : opener ?? null;
      if (this.#scrim) this.#scrim.hidden = false;
      if (focus) (panel.node.querySelector("[data-action^='toggle-']") ?? panel.node).focus();
    }
    panel.onOpen?.();
  }

  close(name) {
    const panel = this.#panels.get(name);
    const wasDrawer = isDrawer(panel.node);
    const hadFocus = panel.node.contains(document.activeElement);
    this.#set(panel, false);
    if (!this.#anyDrawerOpen() && this.#scrim) this.#scrim.hidden = true;
    if (wasDrawer || hadFocus) {
      const back = this.#opener && this.#opener.isConnected && this.#opener.offsetParent !== null ? this.#opener : null;
      (back ?? this.#visibleToggle(panel))?.focus();
      this.#opener = null;
    }
  }

  /** Close every drawer (Esc, the scrim); true when one was open. */
  closeDrawers() {
    let closed = false;
    for (const panel of this.#panels.values()) {
      if (this.isOpen(panel.name) && isDrawer(panel.node)) {
        this.close(panel.name);
        closed = true;
      }
    }
    return closed;
  }

  /** A window that narrows into drawer mode (a rotated tablet, a resized window, devtools)
   * shuts the panels it would now lay over the chat, as a page opened there starts; one that
   * widens back takes the remembered state again (never written here: the desktop's choice is
   * kept). `probe` is a panel whose CSS says which mode the width is in. */
  followWidth(probe) {
    let drawers = isDrawer(probe);
    window.addEventListener("resize", () => {
      if (isDrawer(probe) === drawers) return;
      drawers = !drawers;
      if (drawers) this.settle();
      else this.restore();
    });
  }

  /** Drawer mode starts with the drawers shut: on a phone the page opens on the chat (before
   * this runs, app.css keeps a drawer the page was served open from showing). */
  settle() {
    for (const panel of this.#panels.values()) if (this.isOpen(panel.name) && isDrawer(panel.node)) this.#set(panel, false);
    if (this.#scrim) this.#scrim.hidden = !this.#anyDrawerOpen();
  }

  /** The panel that holds the focus, if it is open. */
  focusedPanel() {
    for (const panel of this.#panels.values()) if (this.isOpen(panel.name) && panel.node.contains(document.activeElement)) return panel.name;
    return null;
  }

  #anyDrawerOpen() {
    return [...this.#panels.values()].some((panel) => this.isOpen(panel.name) && isDrawer(panel.node));
  }

  #visibleToggle(panel) {
    return [...this.#root.querySelectorAll(panel.selector)].find((b) => !panel.node.contains(b) && b.offsetParent !== null) ?? null;
  }

  #set(panel, open) {
    if (panel.hiddenAttr) panel.node.hidden = !open;
    this.#root.dataset[panel.key] = open ? "open" : "closed";
    this.#root.querySelectorAll(panel.selector).forEach((b) => b.setAttribute("aria-expanded", String(open)));
  }
}

/** The top bar's menu (where the bar is too narrow for its tools): a disclosure button. */
function installTopbarMenu(root) {
  const bar = one(root, "[data-topbar]");
  const button = one(bar, "[data-action='toggle-menu']");
  const menu = one(bar, "[data-topbar-menu]");
  const set = (open, { focus = false } = {}) => {
    bar.dataset.menu = open ? "open" : "closed";
    button.setAttribute("aria-expanded", String(open));
    if (open && focus) menu.querySelector("button, a")?.focus();
  };
  button.addEventListener("click", () => set(bar.dataset.menu !== "open", { focus: true }));
  // Choosing a tool closes the menu (the export list stays: it is a menu of its own).
  menu.addEventListener("click", (event) => {
    const chosen = event.target.closest("button, a");
    if (chosen && chosen.dataset.action !== "toggle-export" && bar.dataset.menu === "open") set(false);
  });
  document.addEventListener("pointerdown", (event) => {
    if (bar.dataset.menu === "open" && !bar.contains(event.target)) set(false);
  });
  return {
    isOpen: () => bar.dataset.menu === "open",
    close: () => {
      set(false);
      button.focus();
    },
  };
}

/** Esc closes the innermost open thing: the top bar's menu, then a drawer, then a panel that
 * holds the focus. Runs before the page's shortcuts (Esc = stop), which then see it handled. */
function installEscape(panels, menu) {
  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape" || event.defaultPrevented || event.isComposing) return;
    if (document.querySelector("dialog[open]")) return; // a dialog closes itself
    let handled = false;
    if (menu?.isOpen()) {
      menu.close();
      handled = true;
    } else if (panels.closeDrawers()) {
      handled = true;
    } else {
      const focused = panels.focusedPanel();
      if (focused) {
        panels.close(focused);
        handled = true;
      }
    }
    if (handled) event.preventDefault();
  });
}

/** The list page: only the sidebar, a drawer on narrow screens. */
export function installHomeChrome(root) {
  const panels = new Panels(root);
  panels.add("sidebar", one(root, "[data-sidebar]"), { hiddenAttr: false, key: "conversations" });
  installEscape(panels, null);
  return panels;
}

/** Wire the conversation page's panels and menu; returns {openInspector, openSettings}. */
export function installPanels(root, { onInspectorOpened }) {
  const panels = new Panels(root);
  panels.add("sidebar", one(root, "[data-sidebar]"), { hiddenAttr: false, key: "conversations" });
  const settings = panels.add("settings", one(root, "[data-settings-panel]"));
  panels.add("inspector", one(root, "[data-inspector-panel]"), { onOpen: onInspectorOpened });
  const menu = installTopbarMenu(root);
  installEscape(panels, menu);
  panels.restore();
  panels.settle();
  panels.followWidth(settings.node);
  const help = one(root, "[data-help]");
  one(root, "[data-action='toggle-help']").addEventListener("click", (event) => {
    help.hidden = !help.hidden;
    event.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
  });
  return {
    openInspector() {
      if (!panels.isOpen("inspector")) panels.open("inspector", { focus: false });
    },
    openSettings() {
      if (!panels.isOpen("settings")) panels.open("settings");
    },
  };
}

/** Wire the rename form: `currentTitle()` fills it, `onRename(title)` saves (and may throw). */
export function installRename(root, { currentTitle, onRename }) {
  const form = one(root, "[data-rename-form]");
  const input = form.elements.title;
  const title = one(root, "[data-conversation-title]");
  const renameButton = one(root, "[data-action='rename']");
  const close = () => {
    form.hidden = true;
    title.hidden = false;
    renameButton.hidden = false;
  };
  renameButton.addEventListener("click", () => {
    input.value = currentTitle();
    form.hidden = false;
    title.hidden = true;
    renameButton.hidden = true;
    input.focus();
    input.select();
  });
  one(form, "[data-action='rename-cancel']").addEventListener("click", close);
  input.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      close();
    }
  });
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (await onRename(input.value.trim())) close();
  });
}
