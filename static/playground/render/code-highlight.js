// @ts-check
/**
 * Code blocks are drawn plain and highlighted once highlight.js and the block's grammar are in.
 *
 * Rule: highlight.js is never on the path of a page's open. Its core and each grammar are
 * imported on first need, in an idle callback after the blocks are drawn (only the grammars
 * the page shows; code-languages.js names them), and the blocks queued meanwhile are
 * highlighted in slices of SLICE_MS, each its own task, so no task grows long. Once a block's
 * grammar is in, a new block (a streamed answer) is highlighted as it is drawn, as before.
 * highlight.js escapes the code it returns; the HTML still goes through the caller's sanitizer
 * (markdown.js's), the one wall every model-written markup passes.
 * A highlighted <code> gets data-highlighted="<grammar>" (for tests).
 */

import { ALIASES, GRAMMARS } from "./code-languages.js";

const SLICE_MS = 8;

let hljs = null; // highlight.js's core, once imported
let core = null; // the core's import (a promise), started once
const grammars = new Map(); // grammar name -> its import (a promise resolving when registered)
const queue = []; // {code, grammar, sanitize} waiting for their grammar or their slice
let scheduled = false;

/** The grammar a fence's language names (`py` -> "python"), or null when the page has none. */
export function grammarOf(language) {
  const name = Object.hasOwn(ALIASES, language) ? ALIASES[language] : language;
  return Object.hasOwn(GRAMMARS, name) ? name : null;
}

/** Highlight the <code> element `code` in `grammar`: now when it is loaded, else soon.
 * `sanitize(html)` returns the DocumentFragment the code's children become. */
export function highlightCode(code, grammar, sanitize) {
  const job = { code, grammar, sanitize };
  if (hljs !== null && hljs.getLanguage(grammar) !== undefined) paint(job);
  else {
    queue.push(job);
    schedule();
  }
}

function paint({ code, grammar, sanitize }) {
  const { value } = hljs.highlight(code.textContent, { language: grammar, ignoreIllegals: true });
  code.replaceChildren(sanitize(value));
  code.dataset.highlighted = grammar;
}

function schedule() {
  if (scheduled) return;
  scheduled = true;
  if (typeof requestIdleCallback === "function") requestIdleCallback(() => run(), { timeout: 1000 });
  else setTimeout(() => run(), 0);
}

function load(grammar) {
  core ??= import("../../vendor/highlightjs/core.min.js").then((module) => {
    hljs = module.default;
  });
  if (!grammars.has(grammar)) {
    // Each import is fetched and evaluated in a task of its own, after the core's.
    const registered = core.then(() => GRAMMARS[grammar]()).then((module) => hljs.registerLanguage(grammar, module.default));
    grammars.set(grammar, registered);
  }
  return grammars.get(grammar);
}

async function run() {
  scheduled = false;
  const wanted = new Set(queue.map((job) => job.grammar));
  try {
    for (const grammar of wanted) await load(grammar);
  } catch (error) {
    // Not fetched (offline, a failed deploy): the blocks stay plain, still readable and copyable.
    console.warn("code highlighting unavailable:", error);
    queue.length = 0;
    return;
  }
  const end = performance.now() + SLICE_MS;
  while (queue.length > 0 && performance.now() < end) paint(queue.shift());
  if (queue.length > 0) schedule();
}
