// Made by `python -m playground.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  IncrementalJsonParser,
  LiveTurn,
  ProtocolError,
  accumulate,
  parsePartialJson,
  renderMarkdownSafe,
  renderMessage,
  serverToolNames,
  warmUp
} from "../../chunk-Y6D4IEUT.js";
import "../../chunk-K7EHAA66.js";
import {
  validateAgainstSchema
} from "../../chunk-7EXYQ2MK.js";
import "../../chunk-5XS7IJ2V.js";
import {
  setFileUrl
} from "../../chunk-BFXPBHDQ.js";
import "../../chunk-L3AC76WF.js";
export {
  IncrementalJsonParser,
  LiveTurn,
  ProtocolError,
  accumulate,
  parsePartialJson,
  renderMarkdownSafe,
  renderMessage,
  serverToolNames,
  setFileUrl,
  validateAgainstSchema,
  warmUp
};
