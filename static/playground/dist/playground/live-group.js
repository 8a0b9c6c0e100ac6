// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  columnOf,
  deltaChars,
  foldEvents,
  liveStats,
  newColumn,
  placeOf,
  resumesOnHello,
  withColumn
} from "../chunk-6XGUQ5CV.js";
import "../chunk-PODVIVX6.js";
export {
  columnOf,
  deltaChars,
  foldEvents,
  liveStats,
  newColumn,
  placeOf,
  resumesOnHello,
  withColumn
};
