// types.mjs — run by react_test.go: type-checks types.tsx against the
// package's .d.ts files (tsc --strict, tsconfig.json), then checks that
// each module exports exactly the values its .d.ts declares. Prints what
// disagrees and exits 1, or prints nothing.
import path from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { build } from "esbuild";

const here = path.dirname(fileURLToPath(import.meta.url));
const problems = [];

const cfg = ts.getParsedCommandLineOfConfigFile(path.join(here, "tsconfig.json"), {}, { ...ts.sys, onUnRecoverableConfigFileDiagnostic: (d) => problems.push(ts.flattenDiagnosticMessageText(d.messageText, "\n")) });
const program = ts.createProgram({ rootNames: cfg.fileNames, options: cfg.options });
for (const d of ts.getPreEmitDiagnostics(program)) {
  const where = d.file ? `${path.relative(here, d.file.fileName)}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}: ` : "";
  problems.push(where + ts.flattenDiagnosticMessageText(d.messageText, "\n"));
}

const checker = program.getTypeChecker();
for (const mod of ["view", "usechat"]) {
  const dts = program.getSourceFile(path.join(here, "..", mod + ".d.ts"));
  if (!dts) {
    problems.push(`${mod}.d.ts is not in the program`);
    continue;
  }
  const declared = checker
    .getExportsOfModule(checker.getSymbolAtLocation(dts))
    .filter((s) => s.flags & ts.SymbolFlags.Value)
    .map((s) => s.name)
    .sort();
  const res = await build({
    entryPoints: [path.join(here, "..", mod + ".js")],
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    external: ["react", "./view.js"],
    outdir: "out",
    logLevel: "silent",
  });
  const actual = Object.values(res.metafile.outputs).flatMap((o) => o.exports).sort();
  if (JSON.stringify(declared) !== JSON.stringify(actual)) {
    problems.push(`${mod}.js exports ${JSON.stringify(actual)}, ${mod}.d.ts declares ${JSON.stringify(declared)}`);
  }
}
if (problems.length) {
  console.log(problems.join("\n"));
  process.exit(1);
}
