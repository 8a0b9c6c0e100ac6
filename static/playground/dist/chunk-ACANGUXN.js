// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/dom.js
function el(tag, { className, text, dataset, attrs } = {}, ...children) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== void 0 && text !== null) node.textContent = String(text);
  if (dataset) for (const [key, value] of Object.entries(dataset)) node.dataset[key] = value;
  if (attrs) for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  for (const child of children) if (child) node.append(child);
  return node;
}
function one(root, selector) {
  const found = root.querySelector(selector);
  if (found === null) throw new Error(`missing element ${selector}`);
  return found;
}
function parts(root, selectors) {
  return Object.fromEntries(Object.entries(selectors).map(([name, selector]) => [name, one(root, selector)]));
}
function readPageData(id = "page-data") {
  const node = document.getElementById(id);
  return node ? JSON.parse(node.textContent) : {};
}
function fillUrl(template, values) {
  return template.replace(/\{(\w+)\}/g, (_, key) => encodeURIComponent(String(values[key])));
}
function announce(text) {
  const region = document.querySelector("[data-live-status]");
  if (region) region.textContent = text;
}
var COPY_RESET_MS = 2e3;
async function copyText(button, text) {
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
  button.dataset.resetTimer = String(setTimeout(() => button.textContent = label, COPY_RESET_MS));
}
function placeChildren(parent, nodes) {
  const kept = new Set(nodes);
  for (const child of [...parent.childNodes]) if (!kept.has(child)) child.remove();
  let at = parent.firstChild;
  for (const node of nodes) {
    if (node === at) at = at.nextSibling;
    else parent.insertBefore(node, at);
  }
}
var nextTask = () => new Promise((resolve) => setTimeout(resolve, 0));

export {
  el,
  one,
  parts,
  readPageData,
  fillUrl,
  announce,
  copyText,
  placeChildren,
  nextTask
};
