import { randomUUID } from "node:crypto";
import type { Database } from "../db/database.ts";
import { forgetApiKeys, KEYS_REVOKED, pauseApiKeyCache } from "../accounts/api-keys.ts";

const CHANNEL = "tessera_changes";

/** One project's cached values, by namespace (a kind, provider secrets, …) and key. */
interface ProjectEntries {
  readonly generation: number;
  /** When the record was made: no value in it is older. */
  readonly since: number;
  readonly namespaces: Map<string, Map<string, unknown>>;
  size: number;
}

/** Where the cache reports its listener's state (the server's logger). */
export interface CacheLog {
  warn(details: object, message: string): void;
  info(details: object, message: string): void;
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
 *
 * Should a change go unheard, nothing stays longer than `maxAgeMs`: a timer (not the lookup) forgets
 * the project records made longer ago than that, checking every tenth of it. When the listener loses
 * its connection everything is forgotten and nothing is stored until it is back (changes made meanwhile
 * go unheard), and everything is forgotten again then.
 */

export class ReferenceCache {
  /** Names this cache in its change notices. */
  readonly #origin = randomUUID();
  readonly #projects = new Map<string, ProjectEntries>();
  readonly #maxEntries: number;
  #size = 0;
  #clock = 0;
  #db: Database | null = null;
  readonly #maxAgeMs: number;
  // While the listener is away nothing is stored: another process's change would go unheard.
  #deaf = false;

  constructor(maxEntries = 50_000, maxAgeMs = 30_000) {
    this.#maxEntries = maxEntries;
    this.#maxAgeMs = maxAgeMs;
  }

  get<T>(projectId: string, namespace: string, key: string): T | undefined {
    return this.#projects.get(projectId)?.namespaces.get(namespace)?.get(key) as T | undefined;
  }

  set(projectId: string, namespace: string, key: string, value: unknown, generation: number): void {
    const project = this.#projects.get(projectId);
    if (project?.generation !== generation || this.#deaf) return;
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
    if (!project) {
      project = { generation: ++this.#clock, since: Date.now(), namespaces: new Map(), size: 0 };
      this.#projects.set(projectId, project);
    }
    return project.generation;
  }

  /** How many values are cached, over all projects. */
  get size(): number {
    return this.#size;
  }

  /**
   * After a write in `projectId`: forget here, and tell the other processes. The notice names this cache, which
   * ignores its own when it comes back: arriving after a read that followed the write, it made that read's
   * resolution be read once more.
   */
  async invalidate(projectId: string): Promise<void> {
    this.#forget(projectId);
    if (this.#db?.driver === "postgres") await this.#db.notify(CHANNEL, `${projectId} ${this.#origin}`).catch(() => {});
  }

  /** Forgets every cached resolution and accepted API key (the change feed may have missed something). */
  forgetAll(): void {
    this.#projects.clear();
    this.#size = 0;
    forgetApiKeys();
  }

  /** Forgets the project records made more than the maximum age ago (the oldest come first in the map). */
  expire(now = Date.now()): void {
    for (const [projectId, project] of this.#projects) {
      if (now - project.since < this.#maxAgeMs) break;
      this.#forget(projectId);
    }
  }

  /**
   * Listens for other processes' writes and key revocations (PostgreSQL only: an embedded database has
   * one process), and starts the maximum-age timer. Resolves to the function that stops both.
   */
  async connect(db: Database, log?: CacheLog): Promise<() => Promise<void>> {
    this.#db = db;
    const sweep = setInterval(() => this.expire(), Math.max(10, this.#maxAgeMs / 10)).unref();
    if (db.driver !== "postgres") return async () => clearInterval(sweep);
    const stop = await db.listen(CHANNEL, (payload) => {
      const [projectId = "", origin] = payload.split(" ");
      if (payload === KEYS_REVOKED) forgetApiKeys();
      else if (origin !== this.#origin) this.#forget(projectId);
    }, {
      lost: (error) => {
        this.#listening(false);
        log?.warn({ err: error }, "lost the database change listener: caches cleared, reconnecting");
      },
      restored: () => {
        this.#listening(true);
        log?.info({}, "database change listener is back: caches cleared");
      },
    });
    return async () => {
      clearInterval(sweep);
      await stop();
    };
  }

  #listening(on: boolean): void {
    this.#deaf = !on;
    pauseApiKeyCache(!on);
    this.forgetAll();
  }

  #forget(projectId: string): void {
    const project = this.#projects.get(projectId);
    if (!project) return;
    this.#projects.delete(projectId);
    this.#size -= project.size;
  }
}
