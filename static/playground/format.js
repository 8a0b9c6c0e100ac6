/**
 * How values read on the page: JSON, token counts, durations. Shared by the playground, the
 * share page and the render core.
 *
 * Rule: PURE (strings in, strings out; no DOM), so the node tier tests it. The server's
 * Markdown transcript (playground exporting) writes its own words for a text file.
 */

/** Pretty JSON, never throwing ("" for undefined: nothing to show). */
export function pretty(value) {
  if (value === undefined) return "";
  try {
    return JSON.stringify(value, null, 2);
  } catch {
    return String(value);
  }
}

/** "in 12 · out 48 · cache read 5 · cache write 3" ("" when there is nothing to say). */
export function usageText(usage) {
  if (!usage || typeof usage !== "object") return "";
  const parts = [];
  if (Number.isFinite(usage.input_tokens)) parts.push(`in ${usage.input_tokens}`);
  if (Number.isFinite(usage.output_tokens)) parts.push(`out ${usage.output_tokens}`);
  if (usage.cache_read_input_tokens) parts.push(`cache read ${usage.cache_read_input_tokens}`);
  if (usage.cache_creation_input_tokens) parts.push(`cache write ${usage.cache_creation_input_tokens}`);
  return parts.join(" · ");
}

/** "850 ms" or "1.25 s" (null for what is not a number of milliseconds). */
export function formatMs(ms) {
  if (typeof ms !== "number" || !Number.isFinite(ms)) return null;
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(2)} s`;
}

/** "12,345 bytes" / "1.2 MB": a file's size as a card shows it. */
export function sizeText(bytes) {
  if (!Number.isFinite(bytes)) return "";
  if (bytes < 1024 * 1024) return `${bytes.toLocaleString("en-US")} bytes`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

// A JSON string of base64 long enough to be a file (a signature or a short token stays whole).
const LONG_BASE64 = /"([A-Za-z0-9+/]{24})[A-Za-z0-9+/]{200,}={0,2}"/g;

/** JSON or code text with each file's base64 shortened to its head and length, for reading
 * only: what is copied or downloaded is the exact text. */
export function abbreviateBase64(text) {
  return String(text).replace(LONG_BASE64, (whole, head) => {
    const chars = whole.length - 2;
    return `"${head}… (${chars.toLocaleString("en-US")} base64 characters, shortened here; copy and download are exact)"`;
  });
}
