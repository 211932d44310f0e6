import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

// Building the server on PGlite and generating takes tens of seconds when the suite runs in parallel.
it("packages/client/src/openapi.ts is what the server's OpenAPI document generates now", async () => {
  const child = spawn(process.execPath, ["scripts/generate-client-types.ts", "--check"], { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] });
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (s: string) => (stderr += s));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  expect(stderr.trim(), "run `npm run sdk:types`").toBe("");
  expect(code).toBe(0);
}, 180_000);
