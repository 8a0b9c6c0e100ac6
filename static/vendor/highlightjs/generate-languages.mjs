// Writes static/playground/render/code-languages.js from the grammars in ./languages/ (run: node static/vendor/highlightjs/generate-languages.mjs).
import hljs from "./core.min.js";
import { readdirSync } from "node:fs";
const dir = new URL("./languages/", import.meta.url).pathname;
const names = readdirSync(dir).map((f) => f.replace(".min.js", "")).sort();
const aliases = {};
for (const name of names) {
  const grammar = (await import(dir + name + ".min.js")).default;
  hljs.registerLanguage(name, grammar);
  aliases[name] = name;
  for (const a of hljs.getLanguage(name).aliases ?? []) aliases[a.toLowerCase()] ??= name;
}
const lines = [];
for (const name of names) lines.push(`  ${JSON.stringify(name)}: () => import("../../vendor/highlightjs/languages/${name}.min.js"),`);
const al = Object.entries(aliases).filter(([a, n]) => a !== n).sort().map(([a, n]) => `${JSON.stringify(a)}: ${JSON.stringify(n)}`);
const body = `/**
 * The highlight.js grammars the page can load (the "common" build's 36), by name, and their
 * aliases (a fence's \`py\` is \`python\`).
 *
 * Rule: generated, not edited: each grammar is a module of its own (static/vendor/highlightjs/
 * languages/), imported only when a code block names it, so the page never evaluates grammars
 * it does not show. To regenerate, see static/vendor/README.md (the aliases are each grammar's
 * own \`aliases\`, read by registering it).
 */

export const GRAMMARS = {
${lines.join("\n")}
};

export const ALIASES = {
${chunk(al).map((l) => "  " + l).join("\n")}
};
`;
function chunk(items) { const out = []; let cur = ""; for (const it of items) { if ((cur + it).length > 92) { out.push(cur.trimEnd()); cur = ""; } cur += it + ", "; } if (cur) out.push(cur.trimEnd()); return out; }
import { writeFileSync } from "node:fs";
writeFileSync(new URL("../../playground/render/code-languages.js", import.meta.url), body);
