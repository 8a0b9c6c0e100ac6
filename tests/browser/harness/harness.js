// Test harness only: exposes the render modules to Playwright and records CSP violations.
// Loaded as a module under the same strict CSP as the real page (no inline script, no eval).
import * as render from "/static/playground/render/index.js";

const violations = [];
document.addEventListener("securitypolicyviolation", (event) => {
  violations.push({
    directive: event.violatedDirective,
    blocked: event.blockedURI,
    sample: event.sample,
  });
});

window.__pgHarness = { render, violations, turns: [] };
document.documentElement.dataset.ready = "true";
