// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  McpCatalog,
  previewText
} from "../chunk-VPOJLUZU.js";
import "../chunk-22CQPU6I.js";
import "../chunk-ACANGUXN.js";
import "../chunk-FZMVVHNY.js";
export {
  McpCatalog,
  previewText
};
