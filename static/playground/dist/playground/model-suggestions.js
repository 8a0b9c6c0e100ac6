// Made by `python -m playground.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  ModelSuggestions
} from "../chunk-WJCJVGJ4.js";
export {
  ModelSuggestions
};
