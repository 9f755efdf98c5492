// The TypeScript language service as the truth for references: reads {"root", "files",
// "queries": [{"file", "line", "column"}]} on stdin (paths relative to root, 1-based line and
// column of a definition's name) and prints, per query, the [file, line] of every reference
// findReferences returns (definitions included).
// Usage: node bench/ts_references_truth.cjs <typescript package root> < request.json
const fs = require("fs");
const path = require("path");
const ts = require(process.argv[2]);
const request = JSON.parse(fs.readFileSync(0, "utf8"));
const root = request.root;
const files = request.files.map((f) => path.join(root, f));
const versions = new Map(files.map((f) => [f, "1"]));
const options = { target: ts.ScriptTarget.ESNext, module: ts.ModuleKind.ESNext,
  moduleResolution: ts.ModuleResolutionKind.Bundler, allowJs: true, jsx: ts.JsxEmit.Preserve,
  noEmit: true, skipLibCheck: true, noLib: false, types: [] };
const host = {
  getScriptFileNames: () => files,
  getScriptVersion: (f) => versions.get(f) || "1",
  getScriptSnapshot: (f) => fs.existsSync(f) ? ts.ScriptSnapshot.fromString(fs.readFileSync(f, "utf8")) : undefined,
  getCurrentDirectory: () => root,
  getCompilationSettings: () => options,
  getDefaultLibFileName: (o) => ts.getDefaultLibFilePath(o),
  fileExists: ts.sys.fileExists, readFile: ts.sys.readFile, readDirectory: ts.sys.readDirectory,
  directoryExists: ts.sys.directoryExists, getDirectories: ts.sys.getDirectories,
};
const service = ts.createLanguageService(host, ts.createDocumentRegistry());
const program = service.getProgram();
const answers = request.queries.map((q) => {
  const file = path.join(root, q.file);
  const source = program.getSourceFile(file);
  if (!source) return null;
  const position = ts.getPositionOfLineAndCharacter(source, q.line - 1, q.column - 1);
  const found = service.findReferences(file, position) || [];
  const places = [];
  for (const symbol of found) {
    for (const ref of symbol.references) {
      const target = program.getSourceFile(ref.fileName);
      if (!target || !ref.fileName.startsWith(root)) continue;
      const { line } = ts.getLineAndCharacterOfPosition(target, ref.textSpan.start);
      places.push([path.relative(root, ref.fileName), line + 1]);
    }
  }
  return places;
});
process.stdout.write(JSON.stringify(answers));
