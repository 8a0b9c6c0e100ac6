// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/app.js
await import("../vendor/marked/marked.esm.js");
await import("../vendor/dompurify/purify.es.js");
await import("./render/index.js");
await import("./page.js");
