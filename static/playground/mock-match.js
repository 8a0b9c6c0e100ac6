// @ts-check
/**
 * Which saved mock answers a tool call, and how a mock reads as a result card's text.
 *
 * Rule: pure (no DOM). A mock is data ({tool, match, content, is_error, auto};
 * playground/protocol/tool_mocks.py): nothing is evaluated. For a call, the first mock of its
 * tool whose `match` the call's input holds wins (a match is a subset: every key it names must
 * be there with an equal value, nested objects compared the same way); failing that, the
 * first mock of the tool with no `match`; failing that, none.
 */

const isObject = (value) => value !== null && typeof value === "object" && !Array.isArray(value);

function equal(a, b) {
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => equal(item, b[i]));
  if (isObject(a) && isObject(b)) {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((key) => Object.hasOwn(b, key) && equal(a[key], b[key]));
  }
  return Object.is(a, b);
}

/** Whether `input` holds everything `match` names (objects as subsets, the rest equal). */
export function inputMatches(match, input) {
  if (!isObject(match)) return false;
  if (!isObject(input)) return Object.keys(match).length === 0;
  return Object.entries(match).every(([key, wanted]) => {
    if (!Object.hasOwn(input, key)) return false;
    return isObject(wanted) && isObject(input[key]) ? inputMatches(wanted, input[key]) : equal(wanted, input[key]);
  });
}

/** The mock that answers `call` ({name, input}), or null. */
export function mockFor(call, mocks) {
  const ofTool = (mocks ?? []).filter((mock) => mock.tool === call.name);
  return ofTool.find((mock) => isObject(mock.match) && inputMatches(mock.match, call.input)) ?? ofTool.find((mock) => !isObject(mock.match)) ?? null;
}

/** For each call its mock: {answered: [{call, mock}], missing: [call]}, in the calls' order. */
export function answerCalls(calls, mocks) {
  const answered = [];
  const missing = [];
  for (const call of calls) {
    const mock = mockFor(call, mocks);
    if (mock) answered.push({ call, mock });
    else missing.push(call);
  }
  return { answered, missing };
}

/** A mock's content as a result card's text: text as it is, blocks as their JSON. */
export function resultText(content) {
  return typeof content === "string" ? content : JSON.stringify(content, null, 2);
}

/** A new mock from an answered call: matched on the call's whole input (none when empty). */
export function mockFromCall(call, { content, isError }) {
  const input = isObject(call.input) && Object.keys(call.input).length > 0 ? call.input : null;
  return { tool: String(call.name), match: input, content, is_error: Boolean(isError), auto: false };
}

/** How a mock's condition reads: `location = "Paris"`, or "any call". */
export function describeMatch(match) {
  if (!isObject(match) || Object.keys(match).length === 0) return "any call";
  return Object.entries(match)
    .map(([key, value]) => `${key} = ${JSON.stringify(value)}`)
    .join(", ");
}
