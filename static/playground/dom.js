// @ts-check
/**
 * Small DOM helpers shared by the page modules, the share page and the render core.
 *
 * Rule: text goes in through textContent only; there is no innerHTML anywhere in the page
 * modules (markdown goes through the render core's sanitizer).
 */

/**
 * Make an element: el("button", {className, text, dataset, attrs}, ...children).
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {{ className?: string, text?: unknown, dataset?: Record<string, string>, attrs?: Record<string, string> }} [options]
 * @param {...(Node | string | null | undefined | false)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, { className, text, dataset, attrs } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  if (dataset) for (const [key, value] of Object.entries(dataset)) node.dataset[key] = value;
  if (attrs) for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) if (child) node.append(child);
  return node;
}

/** The one element matching `selector` inside `root`; throws when the template lacks it. */
export function one(root, selector) {
  const found = root.querySelector(selector);
  if (found === null) throw new Error(`missing element ${selector}`);
  return found;
}

/** The named elements a component needs: parts(root, {list: "[data-list]"}) -> {list}; each
 * must be there (see `one`). */
export function parts(root, selectors) {
  return Object.fromEntries(Object.entries(selectors).map(([name, selector]) => [name, one(root, selector)]));
}

/** Read the page's json_script payload. */
export function readPageData(id = "page-data") {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : {};
}

/** Fill a URL template: "/api/runs/{run_id}/" with {run_id}. */
export function fillUrl(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(String(values[key])));
}

/** Say something to screen readers (and tests) through the page's aria-live region. */
export function announce(text) {
  const region = document.querySelector("[data-live-status]");
  if (region) region.textContent = text;
}

const COPY_RESET_MS = 2000;

/** Copy `text`; the button says how it went (label, and data-copied="true|false"). */
export async function copyText(button, text) {
  const label = button.dataset.label ?? button.textContent;
  button.dataset.label = label;
  try {
    if (!navigator.clipboard) throw new Error("no clipboard on this page");
    await navigator.clipboard.writeText(text);
    button.dataset.copied = "true";
    button.textContent = "Copied";
  } catch {
    button.dataset.copied = "false";
    button.textContent = "Copy failed";
  }
  clearTimeout(Number(button.dataset.resetTimer ?? 0));
  button.dataset.resetTimer = String(setTimeout(() => (button.textContent = label), COPY_RESET_MS));
}

/**
 * Make `parent`'s children exactly `nodes`, in order, moving only those out of place. A child
 * left where it was is not laid out again: `replaceChildren` takes every child out and puts it
 * back, so a transcript drawing older turns above laid all its turns out anew each time.
 */
export function placeChildren(parent, nodes) {
  const kept = new Set(nodes);
  for (const child of [...parent.childNodes]) if (!kept.has(child)) child.remove();
  let at = parent.firstChild; // everything before `at` is already `nodes`' start, in order
  for (const node of nodes) {
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
}

/** Resolves in a task of its own: what comes after runs once the browser has had the thread. */
export const nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));
