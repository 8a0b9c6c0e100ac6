// @ts-check
/**
 * A file in a turn: an image as an <img> from the server, a PDF as a named card with its size.
 *
 * Rule: a file is only ever loaded from our own origin, by the URL the page was given for
 * stored files (`setFileUrl`: the owner's /api/attachments/{sha256}/, or a share's
 * /s/<token>/files/{sha256}), which serves it with its sniffed type and nosniff (CSP:
 * img-src 'self'). Anything else (a base64 or url source) is named, never loaded. Names and
 * sizes enter the DOM through textContent.
 */

import { el } from "../dom.js";
import { sizeText } from "../format.js";

let fileUrl = "";

/** The page's URL template for a stored file ("…{sha256}…"); "" shows names only. */
export function setFileUrl(template) {
  fileUrl = String(template ?? "");
}

/** Whether `source` is a stored file's reference (its server URL can be made from it). */
export function isStoredSource(source) {
  return source?.type === "attachment" && /^[0-9a-f]{64}$/.test(String(source.sha256 ?? ""));
}

function urlOf(source) {
  return fileUrl && isStoredSource(source) ? fileUrl.replace("{sha256}", source.sha256) : "";
}

function caption(name, source) {
  const parts = [name, String(source?.media_type ?? source?.type ?? "")];
  const size = sizeText(Number(source?.size));
  if (size) parts.push(size);
  return parts.filter(Boolean).join(" · ");
}

/** An image block: the picture (stored files) or its name. */
export function imageElement(block) {
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

/** A document block: a card with its title, type and size (and Open for a stored PDF). */
export function documentElement(block) {
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
