// Feeding the page's reducer (static/playground/state.js) in tests: every state and input is
// deep-frozen first, so a mutation throws.
import { step } from "../../static/playground/state.js";

function freeze(value) {
  if (value && typeof value === "object") {
    Object.values(value).forEach(freeze);
    Object.freeze(value);
  }
  return value;
}

/** Feed inputs in order; returns the last state and every effect, each as [do, fields]. */
export function run(state, ...inputs) {
  const effects = [];
  for (const input of inputs) {
    const next = step(freeze(state), freeze(input));
    state = next.state;
    effects.push(...next.effects);
  }
  return { state, effects, did: effects.map((e) => e.do) };
}
