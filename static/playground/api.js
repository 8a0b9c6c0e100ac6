// @ts-check
/**
 * JSON over fetch, with the CSRF header, and one error path.
 *
 * Rule: every failure (network, non-JSON, HTTP error) becomes an ApiError with the server's
 * {code, message, field}; callers show `message` next to `field` and never parse bodies.
 */

let csrfToken = "";

export function setCsrfToken(token) {
  csrfToken = String(token ?? "");
}

/** The CSRF header, for a request api.js does not make itself (a streamed answer). */
export function csrfHeaders() {
  return { "X-CSRFToken": csrfToken };
}

export class ApiError extends Error {
  constructor({ code, message, field = null, status = 0 }) {
    super(message);
    this.code = code;
    this.field = field;
    this.status = status;
  }
}

/**
 * fetch `url` and return its JSON (null for 204); throws ApiError.
 * @param {string} url
 * @param {{ method?: string, body?: unknown }} [options]
 * @returns {Promise<any>}
 */
export async function apiFetch(url, { method = "GET", body } = {}) {
  /** @type {Record<string, string>} */
  const headers = { Accept: "application/json" };
  /** @type {RequestInit} */
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken;
  if (body !== undefined) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return answerOf(url, init);
}

/** POST `form` (a FormData: a file upload, multipart) to `url`; its JSON, or ApiError. */
export async function apiUpload(url, form) {
  const headers = { Accept: "application/json", "X-CSRFToken": csrfToken };
  return answerOf(url, { method: "POST", headers, credentials: "same-origin", body: form });
}

/** The words for an answer with no JSON error of the app's (a proxy's HTML page, say). */
function fallbackMessage(status) {
  if (status === 413) return "the request is too large for the server or a proxy in front of it (HTTP 413)";
  if (status === 502 || status === 504) return `the server behind the proxy did not answer (HTTP ${status}); try again in a moment`;
  return `the server answered ${status}`;
}

async function answerOf(url, init) {
  let response;
  try {
    response = await fetch(url, init);
  } catch {
    throw new ApiError({ code: "network", message: "the server could not be reached" });
  }
  if (response.status === 204) return null;
  const type = response.headers.get("Content-Type") ?? "";
  // application/json only: the run's events.jsonl (application/jsonl) is returned as text.
  const isJson = /^application\/json\s*(;|$)/.test(type);
  const payload = isJson ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    const error = (isJson && payload?.error) || {};
    throw new ApiError({
      code: error.code ?? `http_${response.status}`,
      message: error.message ?? fallbackMessage(response.status),
      field: error.field ?? null,
      status: response.status,
    });
  }
  return payload;
}
