// @ts-check
/**
 * Markdown to safe DOM: marked (GitHub flavour) -> DOMPurify (strict allow-list) -> DOM.
 *
 * Rule: sanitize AFTER parsing, and nothing the model wrote reaches the DOM any other way.
 * - Raw HTML in the markdown is shown as text (escaped), not interpreted: a playground shows
 *   what the model wrote. The sanitizer still runs over everything as the second wall.
 * - Links keep only http:, https: and mailto: hrefs, decided by the URL parser (which sees the
 *   entity-decoded, whitespace-stripped, case-folded scheme); any other href is removed and
 *   the link text stays as inert text. Kept links open in a new tab, rel="noopener noreferrer".
 * - Images are never loaded from model output: `![alt](src)` becomes a link "[image: alt]"
 *   to src (under the same link rules), so nothing is fetched unless the person clicks.
 * - Task-list checkboxes become ☐/☑ characters (no form controls from model output).
 * - No style, no on* attributes, no iframe/svg/math/form/img: they are not on the allow-list.
 * Code fences get a Copy button and are highlighted by highlight.js when the fence names a
 * language it has (no auto-detection: too slow to run on every frame): drawn plain here, and
 * highlighted by code-highlight.js once highlight.js is in (it is loaded after the page opens).
 */

import DOMPurify from "../../vendor/dompurify/purify.es.mjs";
import { Marked } from "../../vendor/marked/marked.esm.js";
import { copyText, el, nextTask } from "../dom.js";
import { grammarOf, highlightCode } from "./code-highlight.js";

const SAFE_PROTOCOLS = new Set(["http:", "https:", "mailto:"]);
const LANGUAGE = /^[\w+#.-]{1,32}$/;

export function escapeHtml(text) {
  return String(text)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll('"', "&quot;")
    .replaceAll("'", "&#39;");
}

/** True when `href` is an absolute http, https or mailto URL (as the browser would read it). */
export function isSafeHref(href) {
  try {
    return SAFE_PROTOCOLS.has(new URL(href).protocol);
  } catch {
    return false; // relative or unparsable: nothing a model should point us at
  }
}

const marked = new Marked({
  gfm: true,
  breaks: false,
  async: false,
  renderer: {
    code({ text, lang }) {
      const language = (lang ?? "").trim().split(/\s+/)[0].toLowerCase();
      const known = LANGUAGE.test(language) && grammarOf(language) !== null;
      const cls = known ? ` class="hljs language-${language}"` : ' class="hljs"';
      return `<pre><code${cls}>${escapeHtml(text)}</code></pre>\n`;
    },
    html({ text, block }) {
      return block ? `<p>${escapeHtml(text.trim())}</p>\n` : escapeHtml(text);
    },
    image({ href, text }) {
      const label = escapeHtml(`[image: ${text || href}]`);
      return `<a href="${escapeHtml(href)}">${label}</a>`;
    },
    checkbox({ checked }) {
      return checked ? "☑ " : "☐ ";
    },
  },
});

const purifier = DOMPurify(window);
const PURIFY_CONFIG = {
  ALLOWED_TAGS: [
    "a", "blockquote", "br", "code", "del", "em", "h1", "h2", "h3", "h4", "h5", "h6", "hr",
    "li", "ol", "p", "pre", "s", "span", "strong", "table", "tbody", "td", "th", "thead", "tr",
    "ul",
  ],
  ALLOWED_ATTR: ["href", "title", "class", "start", "align"],
  ALLOW_DATA_ATTR: false,
  ALLOW_ARIA_ATTR: false,
  ALLOW_UNKNOWN_PROTOCOLS: false,
  ALLOWED_URI_REGEXP: /^(?:https?|mailto):/i,
  RETURN_DOM_FRAGMENT: true,
};
purifier.addHook("afterSanitizeAttributes", (node) => {
  if (node.nodeName !== "A") return;
  const href = node.getAttribute("href");
  if (href !== null && !isSafeHref(href)) node.removeAttribute("href");
  if (node.hasAttribute("href")) {
    node.setAttribute("target", "_blank");
    node.setAttribute("rel", "noopener noreferrer");
  }
});

const sanitize = (html) => purifier.sanitize(html, PURIFY_CONFIG);

/** Wrap each code block with a toolbar holding its language and a Copy button; highlight it. */
function addCodeToolbars(root) {
  for (const pre of root.querySelectorAll("pre")) {
    const code = pre.querySelector("code");
    if (code === null) continue;
    const language = [...code.classList].find((c) => c.startsWith("language-"));
    if (language) highlightCode(code, grammarOf(language.slice("language-".length)), sanitize);
    const label = el("span", { className: "pg-code-lang", text: language ? language.slice("language-".length) : "" });
    const button = el("button", { className: "pg-copy", text: "Copy", attrs: { type: "button", "aria-label": "Copy code" } });
    button.addEventListener("click", () => copyText(button, code.textContent));
    const wrapper = el("div", { className: "pg-code" }, el("div", { className: "pg-code-bar" }, label, button));
    pre.replaceWith(wrapper);
    wrapper.append(pre);
  }
}

/** Render markdown `text` to a sanitized DocumentFragment. */
export function renderMarkdownSafe(text) {
  const html = marked.parse(String(text ?? ""));
  const fragment = sanitize(html);
  addCodeToolbars(fragment);
  return fragment;
}

// Every block and inline rule of marked, a table and a fence: what a first answer makes marked
// and DOMPurify compile (their regular expressions, their first sanitize) on first use; in
// three parts, each a task of its own.
const WARM_UP = [
  "# a\n\n*b* **c** `d` [e](https://example.com) ~f~\n",
  "> g\n\n- h\n1. i\n",
  "| j |\n|---|\n| k |\n\n```\nl\n```\n",
];

/** The longest a slice of the rules' compiling runs before it lets the page have the thread. */
const COMPILE_SLICE_MS = 6;

/** Pay marked's and DOMPurify's first-use costs now, in tasks of their own (before a first
 * draw), so the draw that follows is not one long task. */
export async function warmUp() {
  await compileRules();
  for (const text of WARM_UP) {
    renderMarkdownSafe(text);
    await nextTask();
  }
}

/**
 * marked's rules are regular expressions, and V8 compiles each one the first time it runs: in
 * one first parse (even of "x") all the block and inline rules are tried, 15 to 40 ms of one
 * task on a slow 2-core machine (docs/benchmarks.md). Run each once here, a few per task.
 */
async function compileRules() {
  const { block, inline } = marked.Lexer.rules;
  const rules = [...Object.values(block.gfm), ...Object.values(inline.gfm)];
  let started = performance.now();
  for (const rule of rules) {
    if (!(rule instanceof RegExp)) continue;
    const at = rule.lastIndex; // a global rule's position is marked's: leave it as it was
    rule.exec(" ");
    rule.lastIndex = at;
    if (performance.now() - started > COMPILE_SLICE_MS) {
      await nextTask();
      started = performance.now();
    }
  }
}
