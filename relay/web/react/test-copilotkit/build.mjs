// build.mjs — bundles page.jsx (a CopilotKit page with the nesting of
// ../copilotkit.js) with esbuild, from this directory's lockfile-pinned
// packages, into the directory given as the first argument: page.js and
// page.css. No CDN: the test's browser loads only what this writes.
//
// ../copilotkit.js imports the package's own component, ../view.js, and the
// page its styles (a2a-styles: ../styles.css).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = dirname(fileURLToPath(import.meta.url));
const out = process.argv[2];
if (!out) {
  console.error("usage: node build.mjs <outdir>");
  process.exit(2);
}
const pkg = join(here, "..");
const packageFiles = {
  name: "package-files",
  setup(b) {
    b.onResolve({ filter: /^\.\/view\.js$/ }, (args) => {
      if (args.importer !== join(pkg, "copilotkit.js")) return undefined;
      return { path: join(pkg, "view.js") };
    });
    b.onResolve({ filter: /^a2a-styles$/ }, () => {
      return { path: join(pkg, "styles.css") };
    });
  },
};
await esbuild.build({
  entryPoints: { page: join(here, "page.jsx") },
  bundle: true,
  outdir: out,
  format: "esm",
  // CopilotKit's markdown imports its code highlighter's languages,
  // diagrams and the inspector on demand: chunks of their own, which this
  // page never loads.
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
  jsx: "automatic",
  minify: true,
  sourcemap: false,
  logLevel: "warning",
  // ../copilotkit.js and ../view.js import react and CopilotKit: from here.
  nodePaths: [join(here, "node_modules")],
  define: { "process.env.NODE_ENV": '"production"' },
  loader: { ".woff": "empty", ".woff2": "empty", ".ttf": "empty", ".svg": "dataurl", ".png": "dataurl" },
  plugins: [packageFiles],
});
