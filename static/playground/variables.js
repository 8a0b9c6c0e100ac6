// @ts-check
/**
 * Prompt variables, the page's copy of playground/protocol/variables.py: `{{name}}` in the
 * system prompt and a person's text.
 *
 * Rule: PURE, and the same rules as the server's (tests/test_variables_parity.py runs both over
 * the same cases): a name is a letter or _ then letters, digits or _, at most 64 characters;
 * spaces, tabs and newlines may pad it inside the braces; a value that is absent or only such
 * blanks is missing. Only the system prompt and user text are templates (never assistant turns
 * or tool results). The server fills requests in; the page only finds names and says what is
 * missing, so Send is blocked before the server would refuse.
 */

export const NAME_MAX = 64;
const NAME = `[A-Za-z_][A-Za-z0-9_]{0,${NAME_MAX - 1}}`;
const BLANK = "[ \\t\\r\\n]";
const PLACEHOLDER = `\\{\\{${BLANK}*(${NAME})${BLANK}*\\}\\}`;
const NOT_BLANK = /[^ \t\r\n]/;

/** The variables `text` names, first appearance first, each once. */
export function namesIn(text) {
  if (typeof text !== "string") return [];
  return [...new Set([...text.matchAll(new RegExp(PLACEHOLDER, "g"))].map((match) => match[1]))];
}

/** `text` with each placeholder that has a value replaced by it (the others kept), one pass. */
export function fillText(text, values) {
  return text.replace(new RegExp(PLACEHOLDER, "g"), (whole, name) =>
    present(Object.hasOwn(values, name) ? values[name] : undefined) ? values[name] : whole,
  );
}

export function present(value) {
  return typeof value === "string" && NOT_BLANK.test(value);
}

function textsOf(content) {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.filter((block) => block?.type === "text" && typeof block.text === "string").map((block) => block.text);
}

/**
 * Every variable the next request would name: the system prompt's, the stored user turns',
 * then the draft's (the composer's text, about to be sent).
 */
export function namesInConversation({ system = "", messages = [], draft = "" }) {
  const texts = [...textsOf(system)];
  for (const message of messages) if (message.role === "user") texts.push(...textsOf(message.content));
  texts.push(draft);
  return [...new Set(texts.flatMap(namesIn))];
}

/** The names among `names` with no value in `values`. */
export function missingNames(names, values) {
  return names.filter((name) => !present(Object.hasOwn(values, name) ? values[name] : undefined));
}

/** Why Send is blocked ("" when nothing is missing); names every missing variable. */
export function missingReason(missing) {
  if (missing.length === 0) return "";
  const listed = missing.map((name) => `{{${name}}}`).join(", ");
  return `No value for ${listed}: fill it in under Variables.`;
}
