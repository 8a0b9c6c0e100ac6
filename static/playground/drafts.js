// @ts-check
/**
 * Drafts that survive a reload: tool results typed but not sent yet, and the composer's
 * message (its text and files) until the run that carries it has stored it.
 *
 * Rule: keyed by conversation and tool_use id in localStorage; a storage failure (private
 * mode, quota) only loses the draft, never breaks the page. A draft's files are the content
 * blocks their uploads answered with (references to files already kept on the server, never
 * their bytes); anything else found there is dropped.
 */

import { isStoredSource } from "./render/attachment.js";

const PREFIX = "pg:tool-result";

function key(conversationId, toolUseId) {
  return `${PREFIX}:${conversationId}:${toolUseId}`;
}

export function loadDraft(conversationId, toolUseId) {
  try {
    const raw = localStorage.getItem(key(conversationId, toolUseId));
    const value = raw ? JSON.parse(raw) : null;
    if (value && typeof value.content === "string") {
      return { content: value.content, isError: value.isError === true, empty: value.empty === true, files: keptFiles(value.files) };
    }
  } catch {
    // unreadable draft: start empty
  }
  return { content: "", isError: false, empty: false, files: [] };
}

function keptFiles(files) {
  if (!Array.isArray(files)) return [];
  return files.filter((block) => (block?.type === "image" || block?.type === "document") && isStoredSource(block.source));
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

const COMPOSER = "pg:composer";

/** The composer's unsent message in this conversation: {text, files}. */
export function loadComposerDraft(conversationId) {
  try {
    const value = JSON.parse(localStorage.getItem(`${COMPOSER}:${conversationId}`) ?? "null");
    if (value && typeof value.text === "string") return { text: value.text, files: keptFiles(value.files) };
  } catch {
    // unreadable draft: start empty
  }
  return { text: "", files: [] };
}

export function saveComposerDraft(conversationId, { text, files }) {
  try {
    const key = `${COMPOSER}:${conversationId}`;
    if (!text && !files.length) localStorage.removeItem(key);
    else localStorage.setItem(key, JSON.stringify({ text, files }));
  } catch {
    // storage full or off: the draft lives only in the page
  }
}
