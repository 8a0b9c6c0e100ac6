// @ts-check
/**
 * Incremental, partial JSON parsing for tool input that is still streaming.
 *
 * Rule: every character is read once. `IncrementalJsonParser.feed(chunk)` carries on from
 * where the last chunk stopped (inside a string, a number, an escape…), building the value in
 * place, so the cost of a delta is the length of that delta, not of the buffer. `value()`
 * shows what is known so far: complete values, plus the string or number being read (a
 * "trailing string", like jiter's partial_mode="trailing-strings"). Bad JSON stops the parser
 * with `error` set, and `value()` keeps returning what was read before it, so a live display
 * never goes blank. The strict verdict belongs to JSON.parse at the block's stop.
 */

const WHITESPACE = new Set([" ", "\t", "\n", "\r"]);
const ESCAPES = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const NUMBER_CHARS = /[0-9eE.+-]/;
const NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;
const LITERALS = { true: true, false: false, null: null };

/**
 * A string being read, its pieces so far (`escape`: an escape begun, `""` or `"uXXX"`), or a
 * number or literal word; `slot` is its index once shown in an array.
 * @typedef {{kind: "string", parts: string[], escape: string | null, isKey: boolean, slot: number | undefined}} StringScalar
 * @typedef {{kind: "number" | "literal", text: string, isKey: boolean, slot: number | undefined}} WordScalar
 * @typedef {StringScalar | WordScalar} Scalar
 * @typedef {{container: any, isArray: boolean, key: string | null, state: string}} Frame
 */

export class IncrementalJsonParser {
  constructor() {
    /** @type {any} */
    this.root = undefined;
    this.hasRoot = false;
    this.done = false; // the top-level value is complete
    /** @type {{offset: number, message: string} | null} once the input cannot be JSON */
    this.error = null;
    this.offset = 0; // characters consumed so far
    // Open containers, innermost last: {container, isArray, key, state}.
    // Object states: firstKey, key, colon, value, child, comma. Array: firstValue, value, child, comma.
    /** @type {Frame[]} */
    this.stack = [];
    /** @type {Scalar | null} The scalar being read. */
    this.scalar = null;
  }

  /** Consume the next piece of the buffer. @param {string} chunk */
  feed(chunk) {
    let i = 0;
    const n = chunk.length;
    while (i < n && this.error === null) {
      const scalar = this.scalar;
      if (scalar !== null && scalar.kind === "string") {
        i = this.#readString(chunk, i);
      } else if (scalar !== null) {
        i = this.#readWord(chunk, i);
      } else {
        const c = chunk[i];
        if (!WHITESPACE.has(c)) this.#token(c, this.offset + i);
        i += 1;
      }
    }
    this.offset += n;
  }

  /**
   * What is known so far (undefined before anything is). A live view: later feeds change it,
   * so copy or serialise it before keeping it. With `trailingStrings: false` a string still
   * being read is left out (jiter's partial_mode=True): call it so on a fresh parser only,
   * since a trailing value once shown stays in its container.
   */
  value({ trailingStrings = true } = {}) {
    const scalar = this.scalar;
    if (scalar !== null && !scalar.isKey && this.error === null) {
      /** @type {string | number | undefined} */
      let shown;
      if (scalar.kind === "string") {
        if (!trailingStrings) return this.root;
        if (scalar.parts.length > 1) scalar.parts = [scalar.parts.join("")];
        shown = scalar.parts[0] ?? "";
      } else if (scalar.kind === "number" && NUMBER.test(scalar.text)) {
        shown = Number(scalar.text);
      }
      if (shown !== undefined) this.#place(shown, scalar);
    }
    return this.root;
  }

  /** @param {number} offset @param {string} message */
  #fail(offset, message) {
    this.error = { offset, message };
  }

  /** @param {string} chunk @param {number} i @returns {number} */
  #readString(chunk, i) {
    const scalar = /** @type {StringScalar} */ (this.scalar);
    const n = chunk.length;
    if (scalar.escape !== null) {
      const c = chunk[i];
      if (scalar.escape === "") {
        if (c === "u") {
          scalar.escape = "u";
        } else if (c in ESCAPES) {
          scalar.parts.push(ESCAPES[/** @type {keyof typeof ESCAPES} */ (c)]);
          scalar.escape = null;
        } else {
          this.#fail(this.offset + i, `invalid escape \\${c} in a string`);
        }
        return i + 1;
      }
      if (!/[0-9a-fA-F]/.test(c)) {
        this.#fail(this.offset + i, "invalid \\u escape in a string");
        return i + 1;
      }
      scalar.escape += c;
      if (scalar.escape.length === 5) {
        // Surrogate halves are joined by concatenation, as JSON.parse does.
        scalar.parts.push(String.fromCharCode(parseInt(scalar.escape.slice(1), 16)));
        scalar.escape = null;
      }
      return i + 1;
    }
    let j = i;
    while (j < n) {
      const code = chunk.charCodeAt(j);
      if (code === 34 || code === 92) break;
      if (code < 0x20) {
        if (j > i) scalar.parts.push(chunk.slice(i, j));
        this.#fail(this.offset + j, "control character in a string");
        return n;
      }
      j += 1;
    }
    if (j > i) scalar.parts.push(chunk.slice(i, j));
    if (j === n) return n;
    if (chunk.charCodeAt(j) === 92) {
      scalar.escape = "";
      return j + 1;
    }
    this.scalar = null;
    const text = scalar.parts.join("");
    if (scalar.isKey) {
      const frame = this.stack[this.stack.length - 1];
      frame.key = text;
      frame.state = "colon";
    } else {
      this.#complete(text, scalar);
    }
    return j + 1;
  }

  /** @param {string} chunk @param {number} i @returns {number} */
  #readWord(chunk, i) {
    const scalar = /** @type {WordScalar} */ (this.scalar);
    const n = chunk.length;
    const pattern = scalar.kind === "number" ? NUMBER_CHARS : /[a-z]/;
    let j = i;
    while (j < n && pattern.test(chunk[j])) j += 1;
    scalar.text += chunk.slice(i, j);
    if (scalar.kind === "literal" && !Object.keys(LITERALS).some((w) => w.startsWith(scalar.text))) {
      this.#fail(this.offset + i, `unexpected word "${scalar.text}"`);
      return n;
    }
    if (j === n) return n; // the word may go on in the next chunk
    this.#endWord(this.offset + j);
    return j; // the delimiter is read as a token
  }

  /** @param {number} offset */
  #endWord(offset) {
    const scalar = /** @type {WordScalar} */ (this.scalar);
    this.scalar = null;
    if (scalar.kind === "number") {
      if (!NUMBER.test(scalar.text)) return this.#fail(offset, `invalid number "${scalar.text}"`);
      return this.#complete(Number(scalar.text), scalar);
    }
    if (!(scalar.text in LITERALS)) return this.#fail(offset, `unexpected word "${scalar.text}"`);
    return this.#complete(LITERALS[/** @type {keyof typeof LITERALS} */ (scalar.text)], scalar);
  }

  /** @param {string} c @param {number} offset */
  #token(c, offset) {
    if (this.done) return this.#fail(offset, "unexpected data after the JSON value");
    const frame = this.stack[this.stack.length - 1];
    const state = frame === undefined ? "value" : frame.state;
    if (state === "firstKey" || state === "key") {
      if (c === '"') {
        this.scalar = { kind: "string", parts: [], isKey: true, escape: null, slot: undefined };
      } else if (c === "}" && state === "firstKey") {
        this.#close();
      } else {
        this.#fail(offset, `expected a property name, got "${c}"`);
      }
      return;
    }
    if (state === "colon") {
      if (c === ":") frame.state = "value";
      else this.#fail(offset, `expected ":", got "${c}"`);
      return;
    }
    if (state === "comma") {
      if (c === ",") frame.state = frame.isArray ? "value" : "key";
      else if (c === (frame.isArray ? "]" : "}")) this.#close();
      else this.#fail(offset, `expected "," or "${frame.isArray ? "]" : "}"}", got "${c}"`);
      return;
    }
    // A value is expected (or the end of an empty array).
    if (c === "]" && state === "firstValue") return this.#close();
    if (c === "{" || c === "[") {
      const container = c === "{" ? {} : [];
      this.#attach(container);
      this.stack.push({
        container,
        isArray: c === "[",
        key: null,
        state: c === "{" ? "firstKey" : "firstValue",
      });
      return;
    }
    const base = { isKey: false, slot: undefined };
    if (c === '"') this.scalar = { ...base, kind: "string", parts: [], escape: null };
    else if (c === "-" || (c >= "0" && c <= "9")) this.scalar = { ...base, kind: "number", text: c };
    else if (c === "t" || c === "f" || c === "n") this.scalar = { ...base, kind: "literal", text: c };
    else this.#fail(offset, `unexpected "${c}"`);
  }

  /** @param {unknown} value */
  #attach(value) {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) {
      this.root = value;
      this.hasRoot = true;
      return;
    }
    if (frame.isArray) frame.container.push(value);
    else frame.container[/** @type {string} an object's frame has its key by now */ (frame.key)] = value;
    frame.state = "child";
  }

  /** @param {unknown} value @param {Scalar} scalar */
  #place(value, scalar) {
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) {
      this.root = value;
      this.hasRoot = true;
    } else if (frame.isArray) {
      // The slot is taken the first time the scalar is shown, so it stays the last item.
      if (scalar.slot === undefined) scalar.slot = frame.container.push(value) - 1;
      else frame.container[scalar.slot] = value;
    } else {
      frame.container[/** @type {string} */ (frame.key)] = value;
    }
  }

  /** @param {unknown} value @param {Scalar} scalar */
  #complete(value, scalar) {
    this.#place(value, scalar);
    const frame = this.stack[this.stack.length - 1];
    if (frame === undefined) this.done = true;
    else frame.state = "comma";
  }

  #close() {
    this.stack.pop();
    const parent = this.stack[this.stack.length - 1];
    if (parent === undefined) this.done = true;
    else parent.state = "comma";
  }
}

/**
 * The values of `text` known to be complete, as the Python core's fold keeps for a tool call
 * left open (jiter's partial_mode=True): no cut-off string; undefined when nothing is known or
 * the text stops being JSON before its value is whole.
 * @param {string} text
 */
export function parseCompleteValues(text) {
  const parser = new IncrementalJsonParser();
  parser.feed(text);
  if (!parser.done && parser.error !== null) return undefined;
  return parser.value({ trailingStrings: false });
}

/** A partial parse of `text`: what is known so far, or undefined when nothing is. @param {string} text */
export function parsePartialJson(text) {
  const parser = new IncrementalJsonParser();
  parser.feed(text);
  return parser.value();
}
