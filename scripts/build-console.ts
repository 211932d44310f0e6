/**
 * `npm ci` (prepare, after the client build) builds the web console into console/dist: esbuild (its
 * WebAssembly build, so nothing native is installed) bundles console/src/main.tsx with Preact and
 * @tessera/client (from its TypeScript source, through console/tsconfig.json's paths) into minified ES
 * modules, and console/src/styles.css into one stylesheet, each with a source map. A page the routes load
 * with `import()` (lazy-view.tsx) becomes a chunk of its own (`chunks/`), fetched when first shown, so the
 * first view does not download it. Everything but index.html
 * lives under `/assets/<hash>/`, the hash of the built files, so it can be cached forever.
 * Skipped when dist is newer than every input.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild-wasm";

const root = fileURLToPath(new URL("../", import.meta.url));
const consoleDir = join(root, "console");
const src = join(consoleDir, "src");
const dist = join(consoleDir, "dist");
const assets = join(dist, "assets");
const clientSrc = join(root, "packages/client/src");

/** Files under `dir`, recursively, as absolute paths. */
function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

function inputs(): string[] {
  return [
    ...walk(src), ...walk(clientSrc),
    ...["index.html", "package.json", "tsconfig.json"].map((name) => join(consoleDir, name)),
    join(root, "package-lock.json"), fileURLToPath(import.meta.url),
  ];
}

function stale(): boolean {
  const built = join(dist, "index.html");
  if (!existsSync(built)) return true;
  const since = statSync(built).mtimeMs;
  return inputs().some((file) => statSync(file).mtimeMs > since);
}

/** Builds console/dist; returns the asset hash. */
export async function buildConsole(): Promise<string> {
  const result = await build({
    entryPoints: { app: join(src, "main.tsx"), styles: join(src, "styles.css") },
    outdir: assets, // what the source maps' paths are relative to: nothing is written here (write: false)
    write: false,
    bundle: true,
    format: "esm",
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    target: "es2022",
    platform: "browser",
    minify: true,
    sourcemap: "linked",
    legalComments: "linked",
    tsconfig: join(consoleDir, "tsconfig.json"),
    jsx: "automatic",
    jsxImportSource: "preact",
    charset: "utf8",
    logLevel: "silent",
    metafile: true,
    absWorkingDir: root, // what the metafile's paths are relative to
  });
  for (const warning of result.warnings) process.stderr.write(`console build warning: ${warning.text}\n`);
  const files = new Map(result.outputFiles.map((file) => [relative(assets, file.path), file.contents]));

  const hash = createHash("sha256");
  for (const [path, content] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
    hash.update(path).update("\0").update(content);
  }
  const id = hash.digest("hex").slice(0, 12);
  // The chunks app.js imports statically are preloaded with it, rather than found once it has been parsed.
  const preload = Object.entries(result.metafile.outputs)
    .find(([path]) => path.endsWith("/app.js"))?.[1].imports
    .filter((i) => i.kind === "import-statement")
    .map((i) => relative(assets, join(root, i.path)).split("\\").join("/"))
    .map((path) => `<link rel="modulepreload" href="%BASE%${path}">\n`) ?? [];
  const html = readFileSync(join(consoleDir, "index.html"), "utf8")
    .replace("<script type=\"module\"", `${preload.join("")}<script type="module"`)
    .replaceAll("%BASE%", `/assets/${id}/`);

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

const run = process.argv[1] === fileURLToPath(import.meta.url) && existsSync(src);
if (run && (process.argv.includes("--force") || stale())) {
  const id = await buildConsole();
  process.stdout.write(`console built into console/dist (assets /assets/${id}/)\n`);
}
