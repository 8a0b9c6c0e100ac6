// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  sizeText
} from "./chunk-PODVIVX6.js";
import {
  el
} from "./chunk-ACANGUXN.js";

// static/playground/render/attachment.js
var fileUrl = "";
function setFileUrl(template) {
  fileUrl = String(template ?? "");
}
function isStoredSource(source) {
  return source?.type === "attachment" && /^[0-9a-f]{64}$/.test(String(source.sha256 ?? ""));
}
function urlOf(source) {
  return fileUrl && isStoredSource(source) ? fileUrl.replace("{sha256}", source.sha256) : "";
}
function caption(name, source) {
  const parts = [name, String(source?.media_type ?? source?.type ?? "")];
  const size = sizeText(Number(source?.size));
  if (size) parts.push(size);
  return parts.filter(Boolean).join(" \xB7 ");
}
function imageElement(block) {
  const source = block?.source ?? {};
  const name = String(source.name ?? "image");
  const root = el("figure", { className: "pg-block pg-attachment pg-image" });
  root.dataset.blockType = "image";
  const url = urlOf(source);
  if (url) {
    const img = el("img", { className: "pg-attachment-img" });
    img.alt = name;
    img.loading = "lazy";
    img.decoding = "async";
    img.src = url;
    root.append(img);
  }
  root.append(el("figcaption", { className: "pg-attachment-name", text: url ? caption(name, source) : `[image: ${caption(name, source)}]` }));
  return root;
}
function documentElement(block) {
  const source = block?.source ?? {};
  const name = String(block?.title ?? source.name ?? "document");
  const root = el("div", { className: "pg-block pg-attachment pg-document" });
  root.dataset.blockType = "document";
  root.append(el("span", { className: "pg-document-icon", text: source.media_type === "application/pdf" ? "PDF" : "DOC" }));
  root.append(el("span", { className: "pg-attachment-name", text: caption(name, source) }));
  const url = urlOf(source);
  if (url) {
    const link = el("a", { className: "pg-document-open", text: "Download" });
    link.href = url;
    link.setAttribute("download", name);
    root.append(link);
  }
  return root;
}

export {
  setFileUrl,
  isStoredSource,
  imageElement,
  documentElement
};
