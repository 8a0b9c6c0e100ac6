// @ts-check
/**
 * The highlight.js grammars the page can load (the "common" build's 36), by name, and their
 * aliases (a fence's `py` is `python`).
 *
 * Rule: generated, not edited: each grammar is a module of its own (static/vendor/highlightjs/
 * languages/), imported only when a code block names it, so the page never evaluates grammars
 * it does not show. To regenerate, see static/vendor/README.md (the aliases are each grammar's
 * own `aliases`, read by registering it).
 */

export const GRAMMARS = {
  "bash": () => import("../../vendor/highlightjs/languages/bash.min.js"),
  "c": () => import("../../vendor/highlightjs/languages/c.min.js"),
  "cpp": () => import("../../vendor/highlightjs/languages/cpp.min.js"),
  "csharp": () => import("../../vendor/highlightjs/languages/csharp.min.js"),
  "css": () => import("../../vendor/highlightjs/languages/css.min.js"),
  "diff": () => import("../../vendor/highlightjs/languages/diff.min.js"),
  "go": () => import("../../vendor/highlightjs/languages/go.min.js"),
  "graphql": () => import("../../vendor/highlightjs/languages/graphql.min.js"),
  "ini": () => import("../../vendor/highlightjs/languages/ini.min.js"),
  "java": () => import("../../vendor/highlightjs/languages/java.min.js"),
  "javascript": () => import("../../vendor/highlightjs/languages/javascript.min.js"),
  "json": () => import("../../vendor/highlightjs/languages/json.min.js"),
  "kotlin": () => import("../../vendor/highlightjs/languages/kotlin.min.js"),
  "less": () => import("../../vendor/highlightjs/languages/less.min.js"),
  "lua": () => import("../../vendor/highlightjs/languages/lua.min.js"),
  "makefile": () => import("../../vendor/highlightjs/languages/makefile.min.js"),
  "markdown": () => import("../../vendor/highlightjs/languages/markdown.min.js"),
  "objectivec": () => import("../../vendor/highlightjs/languages/objectivec.min.js"),
  "perl": () => import("../../vendor/highlightjs/languages/perl.min.js"),
  "php": () => import("../../vendor/highlightjs/languages/php.min.js"),
  "php-template": () => import("../../vendor/highlightjs/languages/php-template.min.js"),
  "plaintext": () => import("../../vendor/highlightjs/languages/plaintext.min.js"),
  "python": () => import("../../vendor/highlightjs/languages/python.min.js"),
  "python-repl": () => import("../../vendor/highlightjs/languages/python-repl.min.js"),
  "r": () => import("../../vendor/highlightjs/languages/r.min.js"),
  "ruby": () => import("../../vendor/highlightjs/languages/ruby.min.js"),
  "rust": () => import("../../vendor/highlightjs/languages/rust.min.js"),
  "scss": () => import("../../vendor/highlightjs/languages/scss.min.js"),
  "shell": () => import("../../vendor/highlightjs/languages/shell.min.js"),
  "sql": () => import("../../vendor/highlightjs/languages/sql.min.js"),
  "swift": () => import("../../vendor/highlightjs/languages/swift.min.js"),
  "typescript": () => import("../../vendor/highlightjs/languages/typescript.min.js"),
  "vbnet": () => import("../../vendor/highlightjs/languages/vbnet.min.js"),
  "wasm": () => import("../../vendor/highlightjs/languages/wasm.min.js"),
  "xml": () => import("../../vendor/highlightjs/languages/xml.min.js"),
  "yaml": () => import("../../vendor/highlightjs/languages/yaml.min.js"),
};

export const ALIASES = {
  "atom": "xml", "c#": "csharp", "c++": "cpp", "cc": "cpp", "cjs": "javascript",
  "console": "shell", "cs": "csharp", "cts": "typescript", "cxx": "cpp", "gemspec": "ruby",
  "golang": "go", "gql": "graphql", "gyp": "python", "h++": "cpp", "h": "c", "hh": "cpp",
  "hpp": "cpp", "html": "xml", "hxx": "cpp", "ipython": "python", "irb": "ruby",
  "js": "javascript", "json5": "json", "jsonc": "json", "jsp": "java", "jsx": "javascript",
  "kt": "kotlin", "ktm": "kotlin", "kts": "kotlin", "ktx": "kotlin", "mak": "makefile",
  "make": "makefile", "md": "markdown", "mjs": "javascript", "mk": "makefile",
  "mkd": "markdown", "mkdown": "markdown", "mm": "objectivec", "mts": "typescript",
  "obj-c++": "objectivec", "obj-c": "objectivec", "objc": "objectivec",
  "objective-c++": "objectivec", "patch": "diff", "pl": "perl", "plist": "xml", "pluto": "lua",
  "pm": "perl", "podspec": "ruby", "py": "python", "pycon": "python-repl", "rb": "ruby",
  "rs": "rust", "rss": "xml", "sh": "bash", "shellsession": "shell", "svg": "xml",
  "text": "plaintext", "thor": "ruby", "toml": "ini", "ts": "typescript", "tsx": "typescript",
  "txt": "plaintext", "vb": "vbnet", "wsf": "xml", "xhtml": "xml", "xjb": "xml", "xsd": "xml",
  "xsl": "xml", "yml": "yaml", "zsh": "bash",
};
