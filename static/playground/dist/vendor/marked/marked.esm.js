// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  A,
  Bn,
  Dn,
  En,
  G,
  I,
  Mn,
  P,
  S,
  _,
  jt,
  ne,
  qn,
  vn,
  w,
  x,
  z,
  zn
} from "../../chunk-BEEXAAQ7.js";
export {
  A as Hooks,
  w as Lexer,
  ne as Marked,
  P as Parser,
  I as Renderer,
  z as TextRenderer,
  _ as Tokenizer,
  S as defaults,
  G as getDefaults,
  vn as lexer,
  x as marked,
  En as options,
  Dn as parse,
  Bn as parseInline,
  qn as parser,
  zn as setOptions,
  jt as use,
  Mn as walkTokens
};
