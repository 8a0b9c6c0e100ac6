/**
 * Small DOM helpers shared by the page modules.
 *
 * Rule: text goes in through textContent only; there is no innerHTML anywhere in the page
 * modules (markdown goes through the render core's sanitizer).
 */

/** Make an element: el("button", {className, text, dataset, attrs}, ...children). */
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

/** Read the page's json_script payload. */
export function readPageData(id = "page-data") {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : {};
}

/** Fill a URL template: "/api/runs/{run_id}/" with {run_id}. */
export function fillUrl(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(String(values[key])));
}

/** Pretty JSON, never throwing. */
export function pretty(value) {
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** Say something to screen readers (and tests) through the page's aria-live region. */
export function announce(text) {
  const region = document.querySelector("[data-live-status]");
  if (region) region.textContent = text;
}
