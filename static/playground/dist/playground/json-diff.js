// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  clipPair,
  describeChange,
  jsonDiff
} from "../chunk-EDSQLX5D.js";
export {
  clipPair,
  describeChange,
  jsonDiff
};
