// Run the page's pure modules for a pytest test: `node tests/js/pure_cli.mjs <command>`, one
// JSON document on stdin, one on stdout. Test support only (tests/js_support.py drives it).
//   fold    [[event data, ...], ...]      -> [{message, issues, rejected: [message, ...]}, ...]
//   schema  [{schema, value}, ...]        -> [[{path, problem, message}, ...], ...]
import { readFileSync } from "node:fs";

import { accumulate, ISSUE, ProtocolError, toApiMessage } from "../../static/playground/render/accumulate.js";
import { validateAgainstSchema } from "../../static/playground/render/schema.js";

function fold(events) {
  let snapshot = null;
  const rejected = [];
  for (const event of events) {
    try {
      snapshot = accumulate(snapshot, event);
    } catch (error) {
      if (!(error instanceof ProtocolError)) throw error;
      rejected.push(error.message);
    }
  }
  const issues = {};
  (snapshot?.content ?? []).forEach((block, index) => {
    if (block[ISSUE]) issues[index] = block[ISSUE];
  });
  return { message: toApiMessage(snapshot), issues, rejected };
}

const COMMANDS = {
  fold: (streams) => streams.map(fold),
  schema: (cases) => cases.map(({ schema, value }) => validateAgainstSchema(value, schema)),
};

const command = COMMANDS[process.argv[2]];
if (!command) {
  process.stderr.write(`usage: pure_cli.mjs ${Object.keys(COMMANDS).join("|")} < input.json\n`);
  process.exit(2);
}
process.stdout.write(JSON.stringify(command(JSON.parse(readFileSync(0, "utf8")))));
