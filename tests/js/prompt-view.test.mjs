import { test } from "node:test";
import assert from "node:assert/strict";

import { defaultPair, importedWords, messagesText, pieces, serveSnippets, serveUrl, shellQuote, whenText } from "../../static/playground/prompts/prompt-view.js";

test("a changed line is cut into its kept and changed pieces", () => {
  assert.deepEqual(pieces("You help travellers", [[4, 8]]), [
    { text: "You ", changed: false },
    { text: "help", changed: true },
    { text: " travellers", changed: false },
  ]);
  assert.deepEqual(pieces("same", []), [{ text: "same", changed: false }]);
  assert.deepEqual(pieces("ab", [[0, 2]]), [{ text: "ab", changed: true }]);
});

test("a shell word means exactly its text, quotes and dollars included", () => {
  assert.equal(shellQuote("it's $HOME"), `'it'"'"'s $HOME'`);
});

test("the serving URL names a label or a version and each variable's value", () => {
  const base = "http://127.0.0.1:8000/api/prompts/travel";
  assert.equal(serveUrl(base, { label: "production", variables: { city: "São Paulo & co" } }), `${base}?label=production&var.city=S%C3%A3o+Paulo+%26+co`);
  assert.equal(serveUrl(base, { version: 3, label: "production" }), `${base}?version=3`);
  assert.equal(serveUrl(base, {}), base);
});

test("without login the curl sends no token (an empty one is refused)", () => {
  const { curl, python } = serveSnippets("http://h/api/prompts/p", { label: "production" }, { token: false });
  assert.equal(curl, "curl -sS 'http://h/api/prompts/p?label=production'");
  assert.match(python, /if token else \{\}/);
});

test("the snippets fetch that URL with the token from the environment", () => {
  const { curl, python } = serveSnippets("http://h/api/prompts/p", { label: "staging", variables: { who: "O'Brien \"Q\"" } });
  assert.match(curl, /^curl -sS 'http:\/\/h\/api\/prompts\/p\?label=staging&var\.who=O%27Brien\+%22Q%22' \\\n/);
  assert.match(curl, /Authorization: Bearer \$PLAYGROUND_API_TOKEN/);
  assert.match(python, /^URL = "http:\/\/h\/api\/prompts\/p"$/m);
  assert.match(python, /^ {4}"label": "staging",$/m);
  assert.match(python, /^ {4}"var\.who": "O'Brien \\"Q\\"",$/m);
});

test("template messages read as the server's diff lines", () => {
  const text = messagesText([
    { role: "user", content: "Hi\nthere" },
    { role: "assistant", content: [{ type: "tool_use", id: "t", name: "f", input: {} }] },
  ]);
  assert.equal(text, '── user #1 ──\nHi\nthere\n── assistant #2 ──\n{"type":"tool_use","id":"t","name":"f","input":{}}');
});

test("the first comparison is the newest against the one before it", () => {
  assert.equal(defaultPair([]), null);
  assert.deepEqual(defaultPair([{ number: 4 }]), [4, 4]);
  assert.deepEqual(defaultPair([{ number: 9 }, { number: 7 }]), [7, 9]);
});

test("times read as words", () => {
  const now = Date.parse("2026-12-06T12:00:00Z");
  assert.equal(whenText("2026-12-06T11:59:30Z", now), "just now");
  assert.equal(whenText("2026-12-06T11:55:00Z", now), "5 min ago");
  assert.equal(whenText("2026-12-06T09:00:00Z", now), "3 h ago");
  assert.equal(whenText("2026-12-01T09:00:00Z", now), "2026-12-01");
});

test("an import says what it added, what was there and which labels it set", () => {
  const prompt = { name: "travel" };
  assert.equal(importedWords({ prompt, added: [1, 2], already: [], labels: { production: 1 } }), "Added v1, v2 to travel. Labels: production → v1.");
  assert.equal(importedWords({ prompt, added: [], already: [1, 2], labels: {} }), "Nothing new for travel. Already there: v1, v2.");
});
