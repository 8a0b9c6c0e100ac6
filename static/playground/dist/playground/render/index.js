// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
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
} from "../../chunk-ELFJ37YP.js";
import "../../chunk-BEEXAAQ7.js";
import "../../chunk-RM3OCOIM.js";
import {
  setFileUrl
} from "../../chunk-EMOQE56V.js";
import "../../chunk-PODVIVX6.js";
import {
  validateAgainstSchema
} from "../../chunk-ZZFHTOI2.js";
import "../../chunk-ACANGUXN.js";
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
