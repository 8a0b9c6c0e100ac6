// @ts-check
/**
 * How values read on the page: JSON, token counts, durations. Shared by the playground, the
 * share page and the render core.
 *
 * Rule: PURE (strings in, strings out; no DOM), so the node tier tests it. The server's
 * Markdown transcript (playground exporting) writes its own words for a text file.
 */

/** Pretty JSON, never throwing ("" for undefined: nothing to show). @param {unknown} value @returns {string} */
export function pretty(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** "in 12 · out 48 (thinking 30) · cache read 5 · cache write 3" ("" when there is nothing to
 * say); the thinking share of the output where the upstream gives it
 * (`output_tokens_details.thinking_tokens`).
 * @param {any} usage a run's usage object, or anything else ("")
 */
export function usageText(usage) {
  if (!usage || typeof usage !== "object") return "";
  const parts = [];
  if (Number.isFinite(usage.input_tokens)) parts.push(`in ${usage.input_tokens}`);
  const thinking = usage.output_tokens_details?.thinking_tokens;
  const ofWhich = Number.isFinite(thinking) ? ` (thinking ${thinking})` : "";
  if (Number.isFinite(usage.output_tokens)) parts.push(`out ${usage.output_tokens}${ofWhich}`);
  if (usage.cache_read_input_tokens) parts.push(`cache read ${usage.cache_read_input_tokens}`);
  if (usage.cache_creation_input_tokens) parts.push(`cache write ${usage.cache_creation_input_tokens}`);
  return parts.join(" · ");
}

/** "850 ms" or "1.25 s" (null for what is not a number of milliseconds). @param {unknown} ms */
export function formatMs(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** "12,345 bytes" / "1.2 MB": a file's size as a card shows it. @param {unknown} bytes */
export function sizeText(bytes) {
  if (typeof bytes !== "number" || !Number.isFinite(bytes)) return "";
  if (bytes < 1024 * 1024) return `${bytes.toLocaleString("en-US")} bytes`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// A JSON string of base64 long enough to be a file (a signature or a short token stays whole).
const LONG_BASE64 = /"([A-Za-z0-9+/]{24})[A-Za-z0-9+/]{200,}={0,2}"/g;

/** JSON or code text with each file's base64 shortened to its head and length, for reading
 * only: what is copied or downloaded is the exact text.
 * @param {unknown} text
 */
export function abbreviateBase64(text) {
  return String(text).replace(LONG_BASE64, (whole, head) => {
    const chars = whole.length - 2;
    return `"${head}… (${chars.toLocaleString("en-US")} base64 characters, shortened here; copy and download are exact)"`;
  });
}

const NANO_DIGITS = 9;

/** A decimal string of a currency ("0.004215") as whole billionths (BigInt); null if it is none.
 * @param {unknown} amount @returns {bigint | null} */
export function amountNanos(amount) {
  if (typeof amount !== "string" || !/^\d+(\.\d+)?$/.test(amount)) return null;
  const [whole, fraction = ""] = amount.split(".");
  return BigInt(whole) * 10n ** BigInt(NANO_DIGITS) + BigInt(fraction.slice(0, NANO_DIGITS).padEnd(NANO_DIGITS, "0"));
}

/** Billionths back to a decimal string, trailing zeros cut ("12", "0.004215"). @param {bigint} nanos */
export function nanosAmount(nanos) {
  const text = nanos.toString().padStart(NANO_DIGITS + 1, "0");
  const whole = text.slice(0, -NANO_DIGITS);
  const fraction = text.slice(-NANO_DIGITS).replace(/0+$/, "");
  return fraction ? `${whole}.${fraction}` : whole;
}

/** "$0.00421", "$12.35", "0.5 XYZ" for a code Intl does not know (null for no amount).
 * @param {unknown} amount @param {string | null | undefined} currency */
export function moneyText(amount, currency) {
  const value = Number(amount);
  if (amount === null || amount === undefined || !Number.isFinite(value)) return null;
  const digits = value !== 0 && Math.abs(value) < 1 ? { maximumSignificantDigits: 3 } : { minimumFractionDigits: 2, maximumFractionDigits: 2 };
  try {
    return new Intl.NumberFormat("en-US", { style: "currency", currency: currency || "USD", ...digits }).format(value);
  } catch {
    return `${amount} ${currency ?? ""}`.trim();
  }
}

/** A run's cost as its footer says it: "$0.00421", or "no price set" (null while it runs).
 * @param {any} cost a run's {amount, currency}, or nothing */
export function costText(cost) {
  if (!cost || typeof cost !== "object") return null;
  if (cost.amount === null || cost.amount === undefined) return "no price set";
  return moneyText(cost.amount, cost.currency);
}

/** A conversation's (or column's) total, {amount, currency, unpriced_runs}, with one more
 * run's cost added, exactly (in billionths: no float rounding however many runs).
 * @param {any} total @param {any} cost */
export function addCost(total, cost) {
  const base = { amount: null, currency: null, unpriced_runs: 0, ...(total ?? {}) };
  if (!cost || typeof cost !== "object") return base;
  if (cost.amount === null || cost.amount === undefined) return { ...base, unpriced_runs: base.unpriced_runs + 1 };
  const sum = (amountNanos(base.amount) ?? 0n) + (amountNanos(cost.amount) ?? 0n);
  return { ...base, amount: nanosAmount(sum), currency: cost.currency ?? base.currency };
}

/** A total as the page's chip says it: "$0.0123", "$0.0123 + 2 runs with no price set",
 * "no price set" ("" before any run ended).
 * @param {any} total */
export function totalCostText(total) {
  if (!total) return "";
  const money = total.amount === null || total.amount === undefined ? null : moneyText(total.amount, total.currency);
  const unpriced = total.unpriced_runs ?? 0;
  if (money && unpriced) return `${money} + ${unpriced} run${unpriced === 1 ? "" : "s"} with no price set`;
  if (money) return money;
  return unpriced ? "no price set" : "";
}
