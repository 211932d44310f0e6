import type { Database } from "../db/database.ts";
import { forgetApiKeys, KEYS_REVOKED } from "../accounts/api-keys.ts";

const CHANNEL = "tessera_changes";

/** One project's cached values, by namespace (a kind, provider secrets, …) and key. */
interface ProjectEntries {
  readonly generation: number;
  readonly namespaces: Map<string, Map<string, unknown>>;
  size: number;
}

/**
 * Caches what references resolve to (environment + key → revision, variant → latest, …) per project.
 * Revisions never change, but what a reference points at does: every write in a project forgets the
 * project's entries at once, here immediately and in other processes through PostgreSQL NOTIFY.
 *
 * A lookup is three map reads and builds no string (the hot path answers from it many thousand times
 * a second). A read that started before a write must not store what it read after the write: the
 * value is stored only under the generation it was read in, and every project record gets a
 * generation of its own from one counter.
 * Bounded: past `maxEntries`, the projects whose entries were cached longest ago are forgotten first.
 */
export class ReferenceCache {
  readonly #projects = new Map<string, ProjectEntries>();
  readonly #maxEntries: number;
  #size = 0;
  #clock = 0;
  #db: Database | null = null;

  constructor(maxEntries = 50_000) {
    this.#maxEntries = maxEntries;
  }

  get<T>(projectId: string, namespace: string, key: string): T | undefined {
    return this.#projects.get(projectId)?.namespaces.get(namespace)?.get(key) as T | undefined;
  }

  set(projectId: string, namespace: string, key: string, value: unknown, generation: number): void {
    const project = this.#projects.get(projectId);
    if (project?.generation !== generation) return;
    let entries = project.namespaces.get(namespace);
    if (!entries) project.namespaces.set(namespace, (entries = new Map()));
    if (!entries.has(key)) {
      project.size++;
      this.#size++;
    }
    entries.set(key, value);
    while (this.#size > this.#maxEntries) this.#forget(this.#projects.keys().next().value!);
  }

  /** The generation to pass to `set` for a value read now (a concurrent write makes it stale). */
  generation(projectId: string): number {
    let project = this.#projects.get(projectId);
    if (!project) this.#projects.set(projectId, (project = { generation: ++this.#clock, namespaces: new Map(), size: 0 }));
    return project.generation;
  }

  /** How many values are cached, over all projects. */
  get size(): number {
    return this.#size;
  }

  /** After a write in `projectId`: forget here, and tell the other processes. */
  async invalidate(projectId: string): Promise<void> {
    this.#forget(projectId);
    if (this.#db?.driver === "postgres") await this.#db.notify(CHANNEL, projectId).catch(() => {});
  }

  /** Listens for other processes' writes and key revocations (PostgreSQL only: an embedded database has one process). */
  async connect(db: Database): Promise<() => Promise<void>> {
    this.#db = db;
    if (db.driver !== "postgres") return async () => {};
    return db.listen(CHANNEL, (payload) => (payload === KEYS_REVOKED ? forgetApiKeys() : this.#forget(payload)));
  }

  #forget(projectId: string): void {
    const project = this.#projects.get(projectId);
    if (!project) return;
    this.#projects.delete(projectId);
    this.#size -= project.size;
  }
}
