// Run the page's pure modules for a pytest test: `node tests/js/pure_cli.mjs <command>`, one
// JSON document on stdin, one on stdout. Test support only (tests/js_support.py drives it).
//   fold    [[event data, ...], ...]      -> [{message, issues, rejected: [message, ...]}, ...]
//   schema  [{schema, value}, ...]        -> [[{path, problem, message}, ...], ...]
//   variables [{text, values}, ...]       -> [{names, filled}, ...]
//   links   [markdown, ...]               -> [[href of every link, image and definition], ...]
import { readFileSync } from "node:fs";

import { Marked } from "../../static/vendor/marked/marked.esm.js";

import { validateAgainstSchema } from "../../static/playground/render/schema.js";
import { fillText, namesIn } from "../../static/playground/variables.js";
import { foldEvents } from "./fold.mjs";

/** Every URL a GFM renderer (the page's vendored marked) would make a link or image of. */
function linksIn(markdown) {
  const marked = new Marked({ gfm: true });
  const tokens = marked.lexer(markdown);
  const hrefs = Object.values(tokens.links ?? {}).map((def) => def.href);
  marked.walkTokens(tokens, (token) => {
    if (token.type === "link" || token.type === "image") hrefs.push(token.href);
  });
  return hrefs;
}

const COMMANDS = {
  links: (texts) => texts.map(linksIn),
  fold: (streams) =>
    streams.map((events) => {
      const { message, issues, rejected } = foldEvents(events);
      return { message, issues, rejected };
    }),
  schema: (cases) => cases.map(({ schema, value }) => validateAgainstSchema(value, schema)),
  variables: (cases) => cases.map(({ text, values }) => ({ names: namesIn(text), filled: fillText(text, values) })),
};

const command = COMMANDS[process.argv[2]];
if (!command) {
  process.stderr.write(`usage: pure_cli.mjs ${Object.keys(COMMANDS).join("|")} < input.json\n`);
  process.exit(2);
}
process.stdout.write(JSON.stringify(command(JSON.parse(readFileSync(0, "utf8")))));
