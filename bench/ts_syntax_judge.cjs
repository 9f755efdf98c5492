// The TypeScript compiler as the judge of syntax: reads a JSON list of file paths on stdin and
// prints {path: number of syntax (parse) diagnostics}. Type errors are not looked at.
// Usage: node bench/ts_syntax_judge.cjs <typescript package root> < paths.json
const fs = require("fs");
const ts = require(process.argv[2]);
const paths = JSON.parse(fs.readFileSync(0, "utf8"));
const kinds = { ".ts": ts.ScriptKind.TS, ".tsx": ts.ScriptKind.TSX, ".mts": ts.ScriptKind.TS,
  ".cts": ts.ScriptKind.TS, ".js": ts.ScriptKind.JS, ".jsx": ts.ScriptKind.JSX };
const result = {};
for (const path of paths) {
  const ext = path.slice(path.lastIndexOf("."));
  const file = ts.createSourceFile(path, fs.readFileSync(path, "utf8"), ts.ScriptTarget.Latest,
    false, kinds[ext] ?? ts.ScriptKind.TS);
  result[path] = file.parseDiagnostics.length;
}
process.stdout.write(JSON.stringify(result));
