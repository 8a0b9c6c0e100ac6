// @ts-check
/**
 * Thinking integrity: what of an assistant turn's thinking goes back upstream next turn, and
 * the warnings the debugger gives before that goes wrong.
 *
 * Rule: pure (no DOM), over the API's own shapes (a message's content blocks, a request body).
 * The facts it encodes (docs/protocol.md, the reference notes): every assistant turn is sent
 * back unchanged, thinking included; with thinking on, the latest assistant turn's `thinking`
 * and `redacted_thinking` blocks must go back exactly as received (a changed or dropped one is
 * refused), and a turn that calls tools must start its thinking before the first `tool_use`
 * ("Expected `thinking` or `redacted_thinking`, but found `tool_use`"). Anthropic checks the
 * signature; FriendliAI and the compatible servers (Ollama sends none) make it optional.
 */

const THINKING = new Set(["thinking", "redacted_thinking"]);

const blocksOf = (content) => (Array.isArray(content) ? content : []);
const plural = (count, word) => `${count} ${word}${count === 1 ? "" : "s"}`;

/** Whether a conversation's (or a request's) `thinking` setting turns thinking on. */
export function thinkingIsOn(thinking) {
  return thinking?.type === "enabled" || thinking?.type === "adaptive";
}

/**
 * What a turn's content sends back of its thinking, block by block:
 * [{index, type, chars, signature: string | null}] (`chars`: the thinking text's length, or the
 * redacted block's data length).
 */
export function sentBack(content) {
  return blocksOf(content).flatMap((block, index) => {
    if (!THINKING.has(block?.type)) return [];
    const redacted = block.type === "redacted_thinking";
    const text = redacted ? block.data : block.thinking;
    const signature = redacted ? null : typeof block.signature === "string" && block.signature !== "" ? block.signature : null;
    return [{ index, type: block.type, chars: typeof text === "string" ? text.length : 0, signature }];
  });
}

/** True when the content calls a tool with no thinking block before its first `tool_use`. */
export function lacksThinkingBeforeToolUse(content) {
  for (const block of blocksOf(content)) {
    if (THINKING.has(block?.type)) return false;
    if (block?.type === "tool_use") return true;
  }
  return false;
}

const lastAssistantIndex = (messages) => messages.findLastIndex((message) => message?.role === "assistant");

/**
 * Warnings about a history sent with thinking `thinking` (a setting): [{code, index, latest,
 * text}], `index` the message's. Nothing when thinking is off.
 */
export function historyWarnings(messages, { thinking }) {
  if (!thinkingIsOn(thinking)) return [];
  const latest = lastAssistantIndex(messages);
  const warnings = [];
  messages.forEach((message, index) => {
    if (message?.role !== "assistant") return;
    const isLatest = index === latest;
    if (lacksThinkingBeforeToolUse(message.content)) {
      warnings.push({
        code: "no_thinking_before_tool_use",
        index,
        latest: isLatest,
        text: isLatest
          ? "Thinking is on, but the latest assistant turn calls a tool with no thinking before it: the API refuses the next request (it expects a thinking block before tool_use). Turn thinking off for this step, or regenerate the turn with thinking on."
          : `Thinking is on, but assistant turn #${index + 1} calls a tool with no thinking before it (made with thinking off); only the latest turn is checked, so this one is sent as it is.`,
      });
    }
    const unsigned = sentBack(message.content).filter((block) => block.type === "thinking" && block.signature === null);
    if (isLatest && unsigned.length > 0) {
      warnings.push({
        code: "unsigned_thinking",
        index,
        latest: true,
        text: `The latest assistant turn has ${plural(unsigned.length, "thinking block")} without a signature: a profile of the anthropic dialect refuses it before sending (Anthropic checks signatures); the friendli and compatible dialects (FriendliAI; vLLM, llama.cpp, Ollama, LiteLLM) send it as it is.`,
      });
    }
  });
  return warnings;
}

const thinkingJson = (message) =>
  JSON.stringify(blocksOf(message?.content).filter((block) => THINKING.has(block?.type)));

/**
 * Warnings about an edited request body against the draft it came from: the latest assistant
 * turn's thinking changed (refused), and the history rules above for the edit's own setting.
 */
export function requestWarnings(draft, edit) {
  const warnings = [];
  const messages = Array.isArray(edit?.messages) ? edit.messages : [];
  const latest = lastAssistantIndex(messages);
  const before = Array.isArray(draft?.messages) ? draft.messages : [];
  if (latest >= 0 && before[latest]?.role === "assistant" && thinkingJson(before[latest]) !== thinkingJson(messages[latest])) {
    warnings.push({
      code: "changed_latest_thinking",
      index: latest,
      latest: true,
      text: `This edit changes the thinking of the latest assistant turn (message #${latest + 1}): with thinking on, the API refuses a thinking or redacted_thinking block that is not exactly as received, signature and all.`,
    });
  }
  return [...warnings, ...historyWarnings(messages, { thinking: edit?.thinking }).filter((w) => w.latest)];
}

/**
 * What dropping the messages from `fromIndex` on (an edit there, or a regenerate) does to the
 * latest assistant turn's thinking: null when that turn survives or thinks nothing, else
 * {index, blocks, signed, text}.
 */
export function droppedThinking(messages, fromIndex, { action }) {
  const latest = lastAssistantIndex(messages);
  if (latest < 0 || latest < fromIndex) return null;
  const blocks = sentBack(messages[latest].content);
  if (blocks.length === 0) return null;
  const signed = blocks.filter((block) => block.signature !== null).length;
  const what = action === "regenerate" ? "Regenerating replaces" : "Editing this message drops the turns after it, and with them";
  const redacted = blocks.filter((block) => block.type === "redacted_thinking").length;
  const parts = [plural(blocks.length - redacted, "thinking block")];
  if (redacted) parts.push(plural(redacted, "redacted block"));
  return {
    index: latest,
    blocks: blocks.length,
    signed,
    text: `${what} the latest assistant turn's thinking (${parts.join(", ")}, ${signed} signed). That thinking is not sent while the new answer is on screen: the new answer thinks afresh, and the old turn stays as an alternative (‹ › on the turn) and in its run's record (Inspector). It cannot be edited instead: the API refuses a changed thinking block in the latest turn.`,
  };
}
