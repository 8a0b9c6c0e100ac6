/**
 * Drafts that survive a reload: tool results typed but not sent yet.
 *
 * Rule: keyed by conversation and tool_use id in localStorage; a storage failure (private
 * mode, quota) only loses the draft, never breaks the page.
 */

const PREFIX = "pg:tool-result";

function key(conversationId, toolUseId) {
  return `${PREFIX}:${conversationId}:${toolUseId}`;
}

export function loadDraft(conversationId, toolUseId) {
  try {
    const raw = localStorage.getItem(key(conversationId, toolUseId));
    const value = raw ? JSON.parse(raw) : null;
    if (value && typeof value.content === "string") {
      return { content: value.content, isError: value.isError === true };
    }
  } catch {
    // unreadable draft: start empty
  }
  return { content: "", isError: false };
}

export function saveDraft(conversationId, toolUseId, draft) {
  try {
    localStorage.setItem(key(conversationId, toolUseId), JSON.stringify(draft));
  } catch {
    // storage full or off: the draft lives only in the page
  }
}

export function clearDrafts(conversationId, toolUseIds) {
  try {
    for (const id of toolUseIds) localStorage.removeItem(key(conversationId, id));
  } catch {
    // nothing to clean
  }
}
