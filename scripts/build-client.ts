/**
 * `npm ci` (prepare) builds the TypeScript client into packages/client/dist: compiled ES modules and
 * type declarations, what an installed package needs. Skipped when dist is newer than every source file
 * (npx and directory installs run prepare too) or when there is no client to build.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

const client = fileURLToPath(new URL("../packages/client/", import.meta.url));
const built = `${client}dist/index.js`;

function stale(): boolean {
  if (!existsSync(built)) return true;
  const since = statSync(built).mtimeMs;
  const sources = readdirSync(`${client}src`).map((f) => `${client}src/${f}`);
  const inputs = [`${client}package.json`, `${client}tsconfig.build.json`, ...sources];
  return inputs.some((file) => statSync(file).mtimeMs > since);
}

if (existsSync(`${client}tsconfig.build.json`) && stale()) {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  execFileSync(process.execPath, [tsc, "-p", `${client}tsconfig.build.json`], { stdio: "inherit" });
}
