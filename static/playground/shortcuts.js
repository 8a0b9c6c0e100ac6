// @ts-check
/**
 * Page-wide keyboard shortcuts: Ctrl/Cmd+Enter send, Esc stop, Alt+N new conversation.
 *
 * Rule: shortcuts call the app's handlers and nothing else; a field that handles a key itself
 * (an edit box's Esc) stops the event first. Documented in the page's help panel.
 */

/** @param {{ onSend?: () => void, onStop?: () => boolean, onNew?: () => void }} actions */
export function installShortcuts({ onSend, onStop, onNew }) {
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing) return;
    if (event.key === "Escape" && onStop) {
      if (onStop()) event.preventDefault();
      return;
    }
    if (event.key === "Enter" && (event.ctrlKey || event.metaKey) && onSend) {
      event.preventDefault();
      onSend();
      return;
    }
    // event.code, not key: on a Mac, Alt+N types a dead key.
    if (event.altKey && !event.ctrlKey && !event.metaKey && event.code === "KeyN" && onNew) {
      event.preventDefault();
      onNew();
    }
  });
}
