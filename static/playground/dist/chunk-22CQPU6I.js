// Made by `python -m tools.page_bundle` from static/playground/ (this project's, MIT) and static/vendor/
// (marked: MIT; DOMPurify: Apache-2.0 or MPL-2.0; highlight.js: BSD-3-Clause; each LICENSE is
// beside it there). Do not edit.

// static/playground/api.js
var csrfToken = "";
function setCsrfToken(token) {
  csrfToken = String(token ?? "");
}
function csrfHeaders() {
  return { "X-CSRFToken": csrfToken };
}
var ApiError = class extends Error {
  constructor({ code, message, field = null, status = 0 }) {
    super(message);
    this.code = code;
    this.field = field;
    this.status = status;
  }
};
async function apiFetch(url, { method = "GET", body } = {}) {
  const headers = { Accept: "application/json" };
  const init = { method, headers, credentials: "same-origin" };
  if (method !== "GET" && method !== "HEAD") headers["X-CSRFToken"] = csrfToken;
  if (body !== void 0) {
    headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  return answerOf(url, init);
}
async function apiUpload(url, form) {
  const headers = { Accept: "application/json", "X-CSRFToken": csrfToken };
  return answerOf(url, { method: "POST", headers, credentials: "same-origin", body: form });
}
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
  const isJson = /^application\/json\s*(;|$)/.test(type);
  const payload = isJson ? await response.json().catch(() => null) : await response.text();
  if (!response.ok) {
    const error = isJson && payload?.error || {};
    throw new ApiError({
      code: error.code ?? `http_${response.status}`,
      message: error.message ?? fallbackMessage(response.status),
      field: error.field ?? null,
      status: response.status
    });
  }
  return payload;
}

export {
  setCsrfToken,
  csrfHeaders,
  ApiError,
  apiFetch,
  apiUpload
};
