import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { dirname } from "node:path";
import type { Snapshot, SnapshotEntry } from "./snapshot.ts";

/**
 * A snapshot kept in one JSON file. A missing or unreadable file is an empty snapshot; a save writes
 * a temporary file and renames it, so a crash mid-write never leaves a torn snapshot behind.
 */
export function fileSnapshot(path: string): Snapshot {
  return {
    async load() {
      try {
        const parsed = JSON.parse(await readFile(path, "utf8")) as { entries?: Record<string, SnapshotEntry> };
        return parsed.entries ?? {};
      } catch {
        return {};
      }
    },
    async save(entries) {
      await mkdir(dirname(path), { recursive: true });
      const temporary = `${path}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify({ savedAt: new Date().toISOString(), entries }));
      await rename(temporary, path);
    },
  };
}

export type { Snapshot, SnapshotEntry } from "./snapshot.ts";
