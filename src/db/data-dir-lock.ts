import { closeSync, openSync, readFileSync, unlinkSync, writeSync } from "node:fs";

/** Directories this process holds: a lock file naming our own pid but not listed here is from a previous process (a container restarted as pid 1). */
const held = new Set<string>();

/**
 * PGlite is a whole PostgreSQL inside one process and does not notice a second process opening the same
 * directory: both would write the same files, and whatever one of them writes the other never sees
 * (a key created by `key:create` next to a running server would be unknown to it, or lost). This
 * lock file beside the directory (`<dir>.lock`, holding the owner's pid) makes the second opener fail
 * with a message instead. A lock left by a process that no longer runs (killed, crashed) is taken over.
 */
export function lockDataDir(dir: string): () => void {
  const path = `${dir}.lock`;
  if (held.has(path)) throw new Error(`The embedded database in ${dir} is already open in this process`);
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx", 0o600);
      writeSync(fd, String(process.pid));
      closeSync(fd);
      held.add(path);
      return () => {
        held.delete(path);
        unlinkSync(path);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw error;
    }
    const owner = Number(readFileSync(path, "utf8"));
    if (owner && owner !== process.pid && isRunning(owner)) {
      throw new Error(
        `The embedded database in ${dir} is in use by process ${owner} (a running Tessera server?). ` +
          `Stop that process first, or run every process against PostgreSQL (DATABASE_URL). ` +
          `If no such process exists, delete ${path}.`,
      );
    }
    unlinkSync(path);
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
