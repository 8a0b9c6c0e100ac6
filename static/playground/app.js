// @ts-check
/**
 * The pages' entry: evaluates their modules in parts, then page.js runs the page.
 *
 * Rule: a module graph imported statically is evaluated in one task, and the pages' (~50
 * modules, fetched at once by _modulepreload.html) made one long task of it. Each `import()`
 * here is evaluated in a task of its own: the two libraries that do the most at evaluation
 * (marked builds its rules, DOMPurify its allow-lists), the renderer, then the page's modules.
 * Nothing else goes here: tests/test_module_preload.py reads these imports as the entries of
 * what a page loads at open.
 */

await import("../vendor/marked/marked.esm.js");
await import("../vendor/dompurify/purify.es.mjs");
await import("./render/index.js");
await import("./page.js");
