// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

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

export {
  pretty,
  usageText,
  formatMs,
  sizeText,
  abbreviateBase64,
  costText,
  addCost,
  totalCostText
};
