import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../server-flags.ts";
import { parseOptions, type Command } from "./command.ts";

export const command: Command = {
  name: "serve",
  summary: "Start the HTTP server (npm start)",
  usage: `
Usage: tessera serve
       npm start

Starts the server on HOST:PORT (default 0.0.0.0:8000), API under /api, after applying pending
migrations. Storage is PostgreSQL when DATABASE_URL is set, otherwise embedded PGlite persisted in
TESSERA_DATA_DIR (default ./.tessera). The first start on an empty database creates a default
project and prints its API key once. See README.md for every setting. SIGTERM or SIGINT stops it
gracefully.
`,
  async run(args) {
    parseOptions(args, {});
    // A child with the server's Node flags and environment (they cannot be set from inside this process).
    // The IPC channel ends the child should this process die without forwarding a signal (SIGKILL).
    const main = fileURLToPath(new URL("../main.ts", import.meta.url));
    const child = spawn(process.execPath, [...SERVER_NODE_FLAGS, main], {
      env: { ...SERVER_ENV, ...process.env }, stdio: ["inherit", "inherit", "inherit", "ipc"],
    });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on("SIGTERM", forward).on("SIGINT", forward);
    const [code, signal] = (await once(child, "exit")) as [number | null, NodeJS.Signals | null];
    return code ?? (signal === "SIGINT" || signal === "SIGTERM" ? 0 : 1);
  },
};
