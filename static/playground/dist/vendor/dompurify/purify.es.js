// Made by `python -m playground.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  purify_default
} from "../../chunk-5XS7IJ2V.js";
export {
  purify_default as default
};
