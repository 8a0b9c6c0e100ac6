// @ts-check
/**
 * Split streaming markdown into frozen blocks and a growing tail.
 *
 * Rule: text before the last top-level block boundary can no longer change, so it is handed
 * out once ("frozen") and never rendered again; only the tail after it is re-rendered. Each
 * line is scanned once, so the cost of a delta is its own length plus the tail's, never the
 * message's. A boundary is the start of a line that
 * - follows a blank line, or follows a closing code fence at the margin, and
 * - is not indented (an indented line may continue a list item or an indented code block), and
 * - is not a list item right after a list block (a blank line between items keeps one list),
 * and nothing inside an open code fence is ever a boundary. Known cost of the split: a link
 * reference definition only serves links in its own block.
 */

const FENCE = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const LIST_ITEM = /^ {0,3}(?:[-+*]|\d{1,9}[.)])(?:[ \t]|$)/;
const LIST_PREFIX = /^(?:[-+*]|\d{1,9}[.)]?)$/; // could still become a list item
const BLANK = /^[ \t]*\r?$/;

export class MarkdownSplitter {
  constructor() {
    this.tail = ""; // text not frozen yet
    this.scanned = 0; // offset in tail of the first line not scanned yet
    this.fence = null; // {char, length} while inside a fenced code block
    this.afterBlank = false;
    this.afterFence = false; // the previous line closed a fence at the margin
    this.blockIsList = false; // the current top-level block began with a list item
    this.atStart = true; // no non-blank line seen yet
  }

  /** Add a delta; returns the text that became frozen by it ("" when none). */
  push(delta) {
    this.tail += delta;
    let boundary = 0;
    let newline = this.tail.indexOf("\n", this.scanned);
    while (newline !== -1) {
      const start = this.scanned;
      if (this.#line(this.tail.slice(start, newline))) boundary = start;
      this.scanned = newline + 1;
      newline = this.tail.indexOf("\n", this.scanned);
    }
    // The line being written can already show that a new block began: freeze before it now
    // rather than when it ends (the line itself is read again, whole, once it ends).
    if (this.scanned > boundary && this.#peek(this.tail.slice(this.scanned))) {
      boundary = this.scanned;
    }
    if (boundary === 0) return "";
    const frozen = this.tail.slice(0, boundary);
    this.tail = this.tail.slice(boundary);
    this.scanned -= boundary;
    return frozen;
  }

  /** True when an unfinished line already shows it starts a new top-level block. */
  #peek(partial) {
    if (this.fence !== null || !(this.afterBlank || this.afterFence)) return false;
    if (partial === "" || /^[ \t]/.test(partial)) return false;
    if (!this.blockIsList || !this.afterBlank) return true;
    // After a list, a list item continues it: wait until the line says whether it is one.
    return !LIST_ITEM.test(partial) && !LIST_PREFIX.test(partial);
  }

  /** Read one complete line; true when a new top-level block starts at it. */
  #line(line) {
    if (this.fence !== null) {
      const match = FENCE.exec(line);
      const closes =
        match !== null &&
        match[1][0] === this.fence.char &&
        match[1].length >= this.fence.length &&
        match[2].trim() === "";
      if (closes) {
        this.fence = null;
        this.afterFence = !/^[ \t]/.test(line);
      }
      this.afterBlank = false;
      return false;
    }
    if (BLANK.test(line)) {
      this.afterBlank = true;
      this.afterFence = false;
      return false;
    }
    const isList = LIST_ITEM.test(line);
    const starts =
      (this.afterBlank || this.afterFence) &&
      !/^[ \t]/.test(line) &&
      !(isList && this.blockIsList && this.afterBlank);
    if (starts || this.atStart) this.blockIsList = isList;
    this.atStart = false;
    this.afterBlank = false;
    this.afterFence = false;
    const open = FENCE.exec(line);
    // An info string with a backtick cannot open a backtick fence (CommonMark).
    if (open !== null && !(open[1][0] === "`" && open[2].includes("`"))) {
      this.fence = { char: open[1][0], length: open[1].length };
    }
    return starts;
  }
}
