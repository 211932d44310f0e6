import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { PGlite } from "@electric-sql/pglite";

/*
 * A new embedded database's initdb peaks at about 1 GB and leaves a few hundred megabytes its process never
 * gives back (the WASM heap, the allocator's free pages). So a data directory that holds no database yet is
 * initialised by a short-lived child process (this file, run as a script), and the server only opens it.
 */

/** Whether `dataDir` holds no database yet (initdb writes PG_VERSION). */
export const needsInitdb = (dataDir: string) => !existsSync(join(dataDir, "PG_VERSION"));

/** Creates the embedded database in `dataDir` in a child process; rejects with the child's error output. */
export async function initdbInChild(dataDir: string): Promise<void> {
  const script = fileURLToPath(import.meta.url);
  await promisify(execFile)(process.execPath, [script, dataDir], { maxBuffer: 1024 * 1024 })
    .catch((error: Error & { stderr?: string }) => {
      throw new Error(`creating the embedded database in ${dataDir} failed: ${error.stderr?.trim() || error.message}`);
    });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const pg = await PGlite.create(process.argv[2]!);
  await pg.close();
}
