import type { ConfigData } from "./config.ts";

/** What a snapshot keeps of one retrieved config: enough to serve it, and to revalidate it with its ETag. */
export interface SnapshotEntry {
  id: string;
  version: string;
  data: ConfigData;
  etag: string | null;
  /** Epoch milliseconds of the last answer from the server. */
  fetchedAt: number;
}

/**
 * Where configs survive a restart, so that a cold start without the server still serves the last
 * known values. Keys are the client's own cache keys; treat them as opaque.
 */
export interface Snapshot {
  load(): Promise<Record<string, SnapshotEntry>>;
  save(entries: Record<string, SnapshotEntry>): Promise<void>;
}
