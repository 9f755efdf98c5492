// The TypeScript compiler as the judge of an edit: reads a JSON list of file paths on stdin and
// prints {path: [diagnostic codes]} — syntax and type-check (TS2389, TS2391…) — with no default
// library, so only what the file itself declares is judged.
// Usage: node tests/edits/ts_check_judge.cjs <typescript package root> < paths.json
const fs = require("fs");
const ts = require(process.argv[2]);
const paths = JSON.parse(fs.readFileSync(0, "utf8"));
const options = { noLib: true, noEmit: true, types: [], target: ts.ScriptTarget.ES2022,
  experimentalDecorators: true, allowJs: true, checkJs: true };
const result = {};
for (const path of paths) {
  const program = ts.createProgram([path], options);
  const file = program.getSourceFile(path);
  const found = [...program.getSyntacticDiagnostics(file), ...program.getSemanticDiagnostics(file)];
  result[path] = found.map((d) => d.code);
}
process.stdout.write(JSON.stringify(result));
