// build.mjs OUTDIR — bundles page.jsx (React, the AI SDK and ../usechat.js,
// all from this directory's pinned node_modules) into OUTDIR/page.js, for
// react_test.go. No CDN: everything the page runs is in the bundle.
import { build } from "esbuild";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs OUTDIR");
  process.exit(2);
}
await build({
  entryPoints: [path.join(here, "page.jsx")],
  bundle: true,
  format: "esm",
  target: "es2022",
  jsx: "automatic",
  // ../view.js and ../usechat.js import react from outside this directory:
  // resolve it here, so the page has one React.
  nodePaths: [path.join(here, "node_modules")],
  define: { "process.env.NODE_ENV": '"development"' },
  outfile: path.join(out, "page.js"),
  logLevel: "warning",
});
