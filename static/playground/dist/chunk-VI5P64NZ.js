// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.
import {
  el
} from "./chunk-ACANGUXN.js";

// static/playground/format.js
function pretty(value) {
  if (value === void 0) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}
function usageText(usage) {
  if (!usage || typeof usage !== "object") return "";
  const parts = [];
  if (Number.isFinite(usage.input_tokens)) parts.push(`in ${usage.input_tokens}`);
  const thinking = usage.output_tokens_details?.thinking_tokens;
  const ofWhich = Number.isFinite(thinking) ? ` (thinking ${thinking})` : "";
  if (Number.isFinite(usage.output_tokens)) parts.push(`out ${usage.output_tokens}${ofWhich}`);
  if (usage.cache_read_input_tokens) parts.push(`cache read ${usage.cache_read_input_tokens}`);
  if (usage.cache_creation_input_tokens) parts.push(`cache write ${usage.cache_creation_input_tokens}`);
  return parts.join(" \xB7 ");
}
function formatMs(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return null;
  return ms < 1e3 ? `${ms} ms` : `${(ms / 1e3).toFixed(2)} s`;
}
function sizeText(bytes) {
  if (typeof bytes !== "number" || !Number.isFinite(bytes)) return "";
  if (bytes < 1024 * 1024) return `${bytes.toLocaleString("en-US")} bytes`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
var LONG_BASE64 = /"([A-Za-z0-9+/]{24})[A-Za-z0-9+/]{200,}={0,2}"/g;
function abbreviateBase64(text) {
  return String(text).replace(LONG_BASE64, (whole, head) => {
    const chars = whole.length - 2;
    return `"${head}\u2026 (${chars.toLocaleString("en-US")} base64 characters, shortened here; copy and download are exact)"`;
  });
}
var NANO_DIGITS = 9;
function amountNanos(amount) {
  if (typeof amount !== "string" || !/^\d+(\.\d+)?$/.test(amount)) return null;
  const [whole, fraction = ""] = amount.split(".");
  return BigInt(whole) * 10n ** BigInt(NANO_DIGITS) + BigInt(fraction.slice(0, NANO_DIGITS).padEnd(NANO_DIGITS, "0"));
}
function nanosAmount(nanos) {
  const text = nanos.toString().padStart(NANO_DIGITS + 1, "0");
  const whole = text.slice(0, -NANO_DIGITS);
  const fraction = text.slice(-NANO_DIGITS).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}
function moneyText(amount, currency) {
  const value = Number(amount);
  if (amount === null || amount === void 0 || !Number.isFinite(value)) return null;
  const digits = value !== 0 && Math.abs(value) < 1 ? { maximumSignificantDigits: 3 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: currency || "USD", ...digits }).format(value);
  } catch {
    return `${amount} ${currency ?? ""}`.trim();
  }
}
function costText(cost) {
  if (!cost || typeof cost !== "object") return null;
  if (cost.amount === null || cost.amount === void 0) return "no price set";
  return moneyText(cost.amount, cost.currency);
}
function addCost(total, cost) {
  const base = { amount: null, currency: null, unpriced_runs: 0, ...total ?? {} };
  if (!cost || typeof cost !== "object") return base;
  if (cost.amount === null || cost.amount === void 0) return { ...base, unpriced_runs: base.unpriced_runs + 1 };
  const sum = (amountNanos(base.amount) ?? 0n) + (amountNanos(cost.amount) ?? 0n);
  return { ...base, amount: nanosAmount(sum), currency: cost.currency ?? base.currency };
}
function totalCostText(total) {
  if (!total) return "";
  const money = total.amount === null || total.amount === void 0 ? null : moneyText(total.amount, total.currency);
  const unpriced = total.unpriced_runs ?? 0;
  if (money && unpriced) return `${money} + ${unpriced} run${unpriced === 1 ? "" : "s"} with no price set`;
  if (money) return money;
  return unpriced ? "no price set" : "";
}

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
  pretty,
  usageText,
  formatMs,
  sizeText,
  abbreviateBase64,
  costText,
  addCost,
  totalCostText,
  setFileUrl,
  isStoredSource,
  imageElement,
  documentElement
};
