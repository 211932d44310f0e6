/**
 * `npm ci` (prepare, after the client build) builds the web console into console/dist without a bundler:
 * every console/src/**\/*.ts(x) file is transpiled by TypeScript on its own into an ES module, Preact's ESM
 * files and the compiled @tessera/client are copied beside them, and index.html maps the bare imports
 * (`preact`, `preact/hooks`, `preact/jsx-runtime`, `@tessera/client`) with an import map. Everything but
 * index.html lives under `/assets/<hash>/`, the hash of the built files, so it can be cached forever.
 * Skipped when dist is newer than every input.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../", import.meta.url));
const consoleDir = join(root, "console");
const src = join(consoleDir, "src");
const dist = join(consoleDir, "dist");
const require = createRequire(import.meta.url);

/** Files under `dir`, recursively, as absolute paths. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

const preactDir = dirname(require.resolve("preact/package.json"));
const clientDist = join(root, "packages/client/dist");
/** Bare import → file under vendor/ (and where it comes from). */
const VENDOR: { specifier: string; from: string; to: string }[] = [
  { specifier: "preact", from: join(preactDir, "dist/preact.mjs"), to: "vendor/preact/preact.mjs" },
  { specifier: "preact/hooks", from: join(preactDir, "hooks/dist/hooks.mjs"), to: "vendor/preact/hooks.mjs" },
  { specifier: "preact/jsx-runtime", from: join(preactDir, "jsx-runtime/dist/jsxRuntime.mjs"), to: "vendor/preact/jsx-runtime.mjs" },
  { specifier: "@tessera/client", from: join(clientDist, "index.js"), to: "vendor/client/index.js" },
];

function inputs(): string[] {
  return [
    ...walk(src), join(consoleDir, "index.html"), join(consoleDir, "package.json"), fileURLToPath(import.meta.url),
    ...VENDOR.map((v) => v.from), ...walk(clientDist).filter((f) => f.endsWith(".js")),
  ];
}

function stale(): boolean {
  const built = join(dist, "index.html");
  if (!existsSync(built)) return true;
  const since = statSync(built).mtimeMs;
  return inputs().some((file) => statSync(file).mtimeMs > since);
}

/** Builds console/dist; returns the asset hash. */
export function buildConsole(): string {
  const ts = require("typescript") as typeof import("typescript");
  const files = new Map<string, Buffer>(); // path under assets/ → content
  for (const file of walk(src)) {
    const path = relative(src, file);
    if (/\.tsx?$/.test(file)) {
      if (file.endsWith(".d.ts")) continue;
      const out = ts.transpileModule(readFileSync(file, "utf8"), {
        fileName: file,
        compilerOptions: {
          target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, jsx: ts.JsxEmit.ReactJSX, jsxImportSource: "preact",
          rewriteRelativeImportExtensions: true, verbatimModuleSyntax: true, sourceMap: false,
        },
      });
      files.set(`app/${path.replace(/\.tsx?$/, ".js")}`, Buffer.from(out.outputText));
    } else {
      files.set(`app/${path}`, readFileSync(file));
    }
  }
  for (const v of VENDOR) files.set(v.to, readFileSync(v.from));
  for (const file of walk(clientDist).filter((f) => f.endsWith(".js") && !f.endsWith("node-snapshot.js"))) files.set(`vendor/client/${relative(clientDist, file)}`, readFileSync(file));

  const hash = createHash("sha256");
  for (const [path, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) hash.update(path).update("\0").update(content);
  const id = hash.digest("hex").slice(0, 12);
  const base = `/assets/${id}/`;
  const importMap = { imports: Object.fromEntries(VENDOR.map((v) => [v.specifier, base + v.to])) };
  const html = readFileSync(join(consoleDir, "index.html"), "utf8")
    .replaceAll("%BASE%", base)
    .replace("%IMPORTMAP%", JSON.stringify(importMap, null, 2));

  // Written beside dist, then swapped in: a server starting meanwhile never reads half a build.
  const next = `${dist}.${process.pid}`;
  rmSync(next, { recursive: true, force: true });
  for (const [path, content] of files) {
    mkdirSync(dirname(join(next, "assets", path)), { recursive: true });
    writeFileSync(join(next, "assets", path), content);
  }
  writeFileSync(join(next, "build.json"), JSON.stringify({ hash: id }) + "\n");
  writeFileSync(join(next, "index.html"), html);
  rmSync(dist, { recursive: true, force: true });
  renameSync(next, dist);
  return id;
}

if (process.argv[1] === fileURLToPath(import.meta.url) && existsSync(src) && (process.argv.includes("--force") || stale())) {
  if (!existsSync(clientDist)) throw new Error("packages/client/dist is missing: run `node scripts/build-client.ts` first");
  const id = buildConsole();
  process.stdout.write(`console built into console/dist (assets /assets/${id}/)\n`);
}
