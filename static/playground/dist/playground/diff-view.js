// Made by `python -m playground.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  drawChanges
} from "../chunk-GEATMWHW.js";
import "../chunk-4Z5GZPAV.js";
import "../chunk-L3AC76WF.js";
export {
  drawChanges
};
