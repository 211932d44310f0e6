import type { Database } from "../db/database.ts";
import { forgetApiKeys, KEYS_REVOKED } from "../accounts/api-keys.ts";
import { Lru } from "./lru.ts";

const CHANNEL = "tessera_changes";

/**
 * Caches what references resolve to (environment + key → revision, variant → latest, …) per project.
 * Revisions never change, but what a reference points at does: every write in a project bumps the
 * project's generation, which retires all its cached resolutions at once. The bump is local and
 * immediate, and reaches other processes through PostgreSQL NOTIFY.
 */
export class ReferenceCache {
  readonly #entries: Lru<string, { generation: number; value: unknown }>;
  readonly #generations = new Map<string, number>();
  #db: Database | null = null;

  constructor(maxEntries = 50_000) {
    this.#entries = new Lru(maxEntries);
  }

  get<T>(projectId: string, key: string): T | undefined {
    const hit = this.#entries.get(`${projectId}\u0000${key}`);
    return hit && hit.generation === this.#generation(projectId) ? (hit.value as T) : undefined;
  }

  set(projectId: string, key: string, value: unknown, generation: number): void {
    if (generation === this.#generation(projectId)) this.#entries.set(`${projectId}\u0000${key}`, { generation, value });
  }

  /** The generation to pass to `set` for a value read now (a concurrent write makes it stale). */
  generation(projectId: string): number {
    return this.#generation(projectId);
  }

  /** After a write in `projectId`: forget here, and tell the other processes. */
  async invalidate(projectId: string): Promise<void> {
    this.#bump(projectId);
    if (this.#db?.driver === "postgres") await this.#db.notify(CHANNEL, projectId).catch(() => {});
  }

  /** Listens for other processes' writes and key revocations (PostgreSQL only: an embedded database has one process). */
  async connect(db: Database): Promise<() => Promise<void>> {
    this.#db = db;
    if (db.driver !== "postgres") return async () => {};
    return db.listen(CHANNEL, (payload) => (payload === KEYS_REVOKED ? forgetApiKeys() : this.#bump(payload)));
  }

  #generation(projectId: string): number {
    return this.#generations.get(projectId) ?? 0;
  }

  #bump(projectId: string): void {
    this.#generations.set(projectId, this.#generation(projectId) + 1);
  }
}
