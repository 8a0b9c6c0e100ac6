// Test support: fold a stream with the browser's module, keeping what it refused (by message)
// and the blocks it flagged. Shared by accumulate.test.mjs and pure_cli.mjs (the parity check).
import { accumulate, ISSUE, ProtocolError, toApiMessage } from "../../static/playground/render/accumulate.js";

/** {snapshot, message (API shape), issues: {index: issue}, rejected: [message, ...]} */
export function foldEvents(events) {
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
  return { snapshot, message: toApiMessage(snapshot), issues, rejected };
}
