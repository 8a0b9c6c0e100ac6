/**
 * The conversation page's chrome: the settings, inspector and help panels, and the title's
 * rename form.
 *
 * Rule: this module opens and closes panels and edits the title field; what a rename means
 * (the PATCH, the new state) is the caller's `onRename(title)`, which resolves once done.
 * Panel state is mirrored on the root: data-settings / data-inspector="open|closed".
 */

import { one } from "./dom.js";

/** Wire the panel toggles; returns {openInspector}. */
export function installPanels(root, { onInspectorOpened }) {
  const settingsPanel = one(root, "[data-settings-panel]");
  const inspectorPanel = one(root, "[data-inspector-panel]");
  const help = one(root, "[data-help]");
  const toggle = (panel, name, buttonSelector, onOpen) => {
    const open = panel.hidden;
    panel.hidden = !open;
    root.dataset[name] = open ? "open" : "closed";
    root.querySelectorAll(buttonSelector).forEach((b) => b.setAttribute("aria-expanded", String(open)));
    if (open) onOpen?.();
  };
  const settingsButtons = "[data-action='toggle-settings']";
  const inspectorButtons = "[data-action='toggle-inspector']";
  root.querySelectorAll(settingsButtons).forEach((button) =>
    button.addEventListener("click", () => toggle(settingsPanel, "settings", settingsButtons)),
  );
  root.querySelectorAll(inspectorButtons).forEach((button) =>
    button.addEventListener("click", () => toggle(inspectorPanel, "inspector", inspectorButtons, onInspectorOpened)),
  );
  one(root, "[data-action='toggle-help']").addEventListener("click", (event) => {
    help.hidden = !help.hidden;
    event.currentTarget.setAttribute("aria-expanded", String(!help.hidden));
  });
  return {
    openInspector() {
      if (inspectorPanel.hidden) toggle(inspectorPanel, "inspector", inspectorButtons);
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
