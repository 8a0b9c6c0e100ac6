// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  drawChanges
} from "../chunk-53BXYIXD.js";
import "../chunk-EDSQLX5D.js";
import "../chunk-ACANGUXN.js";
export {
  drawChanges
};
