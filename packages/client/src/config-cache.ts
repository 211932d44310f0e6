import type { Config, ConfigData, FallbackConfig, GetConfigOptions } from "./config.ts";
import { isUnavailable, TesseraError } from "./errors.ts";
import type { Snapshot, SnapshotEntry } from "./snapshot.ts";
import type { Transport } from "./transport.ts";

/**
 * One retrieved config and the answers made from it. The answers are built (and frozen) once per
 * server response, so that a cache hit returns a ready promise: no allocation, no copying.
 */
interface Entry {
  /** The application slug it was asked for: a deploy of that application drops the entry. */
  application: string | undefined;
  stored: SnapshotEntry;
  /** A revision id names immutable content: never revalidated. */
  immutable: boolean;
  /** When the server was last asked (answered or not): the TTL counts from here. */
  checkedAt: number;
  /** The last attempt to reach the server failed: serve `offline` until one succeeds. */
  unreachable: boolean;
  hit: Promise<Config>;
  offline: Promise<Config>;
  revalidation: Promise<void> | undefined;
}

const deepFreeze = <T>(value: T): T => {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
};

const answer = (s: SnapshotEntry, source: Config["source"]): Config => Object.freeze({ id: s.id, version: s.version, data: s.data, source });

function entryOf(options: GetConfigOptions, stored: SnapshotEntry, checkedAt: number, offlineSource: "stale" | "snapshot"): Entry {
  deepFreeze(stored.data);
  return {
    application: options.application,
    stored,
    immutable: options.revision?.id !== undefined,
    checkedAt,
    unreachable: offlineSource === "snapshot",
    hit: Promise.resolve(answer(stored, "cache")),
    offline: Promise.resolve(answer(stored, offlineSource)),
    revalidation: undefined,
  };
}

/** The cache key of a request: plain concatenation, cheap enough for the hit path. */
export function configKey(o: GetConfigOptions): string {
  const r = o.revision;
  return `${o.application ?? ""}\u0001${o.environment ?? ""}\u0001${o.variant ?? ""}\u0001${o.key ?? ""}\u0001${r === undefined ? "" : `${r.id ?? ""}\u0002${r.slug ?? ""}\u0002${r.version ?? ""}`}`;
}

interface RetrieveAnswer {
  application_revision?: { id: string; version: string | number; data?: ConfigData | null };
}

/**
 * Application configs by reference: served from memory for `ttlMs`, then served while revalidated
 * in the background with `If-None-Match`; while the server is unreachable the last value (or a
 * snapshot's, or the caller's fallback) stands in.
 */
export class ConfigCache {
  readonly #transport: Transport;
  readonly #ttlMs: number;
  readonly #snapshot: Snapshot | undefined;
  readonly #onError: (error: unknown) => void;
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<Config | FallbackConfig>>();
  readonly #background = new Set<Promise<unknown>>();
  #snapshotEntries: Promise<Record<string, SnapshotEntry>> | undefined;
  #saving: Promise<void> = Promise.resolve();

  constructor(transport: Transport, options: { ttlMs?: number; snapshot?: Snapshot; onError?: (error: unknown) => void }) {
    this.#transport = transport;
    this.#ttlMs = options.ttlMs ?? 30_000;
    this.#snapshot = options.snapshot;
    this.#onError = options.onError ?? (() => {});
  }

  get(options: GetConfigOptions): Promise<Config | FallbackConfig> {
    const key = configKey(options);
    const entry = this.#entries.get(key);
    if (entry === undefined) return this.#coldLoad(key, options);
    if (entry.immutable || Date.now() - entry.checkedAt < (options.ttlMs ?? this.#ttlMs)) {
      return entry.unreachable ? entry.offline : entry.hit;
    }
    if (entry.revalidation === undefined) this.#revalidate(key, entry, options);
    return entry.unreachable ? entry.offline : entry.hit;
  }

  /** Forgets what may have changed for an application (after this client deployed it). */
  invalidate(application: string): void {
    for (const [key, entry] of this.#entries) if (!entry.immutable && entry.application === application) this.#entries.delete(key);
  }

  /** Resolves when background revalidations and snapshot writes started so far are done. */
  async settled(): Promise<void> {
    while (this.#background.size) await Promise.allSettled([...this.#background]);
    await this.#saving;
  }

  #coldLoad(key: string, options: GetConfigOptions): Promise<Config | FallbackConfig> {
    let loading = this.#loading.get(key);
    if (!loading) {
      loading = this.#fetchFirst(key, options).finally(() => this.#loading.delete(key));
      this.#loading.set(key, loading);
    }
    return loading;
  }

  async #fetchFirst(key: string, options: GetConfigOptions): Promise<Config | FallbackConfig> {
    try {
      const stored = await this.#retrieve(options, null);
      const entry = entryOf(options, stored!, Date.now(), "stale");
      this.#entries.set(key, entry);
      this.#save();
      return answer(entry.stored, "network");
    } catch (error) {
      if (!isUnavailable(error)) throw error;
      const saved = this.#snapshot ? (await this.#loadSnapshot())[key] : undefined;
      if (saved) {
        const entry = entryOf(options, saved, Date.now(), "snapshot");
        this.#entries.set(key, entry);
        return entry.offline;
      }
      if (options.fallback) return Object.freeze({ id: null, version: null, data: options.fallback, source: "fallback" });
      throw error;
    }
  }

  #revalidate(key: string, entry: Entry, options: GetConfigOptions): void {
    const work = (async () => {
      try {
        const stored = await this.#retrieve(options, entry.stored.etag);
        if (stored === null) {
          entry.checkedAt = Date.now();
          entry.unreachable = false;
          return;
        }
        this.#entries.set(key, entryOf(options, stored, Date.now(), "stale"));
        this.#save();
      } catch (error) {
        entry.checkedAt = Date.now();
        if (isUnavailable(error)) entry.unreachable = true;
        // Anything else (the application or its deployment is gone, the key was revoked) must reach the caller.
        else if (this.#entries.get(key) === entry) this.#entries.delete(key);
        this.#onError(error);
      } finally {
        entry.revalidation = undefined;
      }
    })();
    entry.revalidation = work;
    this.#track(work);
  }

  /** The revision the server resolves now; null when it answers 304 to `etag`. */
  async #retrieve(o: GetConfigOptions, etag: string | null): Promise<SnapshotEntry | null> {
    const body = {
      application_ref: o.application === undefined ? undefined : { slug: o.application },
      application_variant_ref: o.variant === undefined ? undefined : { slug: o.variant },
      application_revision_ref: o.revision,
      environment_ref: o.environment === undefined ? undefined : { slug: o.environment },
      key: o.key,
    };
    const res = await this.#transport.json<RetrieveAnswer>("POST", "/api/applications/revisions/retrieve", {
      body, headers: etag ? { "if-none-match": etag } : undefined, accept: [304],
    });
    if (res.status === 304) return null;
    const revision = res.body.application_revision;
    if (!revision) throw new TesseraError(404, "No application revision matches", "POST", "/api/applications/revisions/retrieve");
    return { id: revision.id, version: String(revision.version), data: revision.data ?? {}, etag: res.headers.get("etag"), fetchedAt: Date.now() };
  }

  #loadSnapshot(): Promise<Record<string, SnapshotEntry>> {
    this.#snapshotEntries ??= this.#snapshot!.load().catch((error) => {
      this.#onError(error);
      return {};
    });
    return this.#snapshotEntries;
  }

  /** Writes every known config, keeping the loaded snapshot's other entries; writes run one after another. */
  #save(): void {
    if (!this.#snapshot) return;
    const snapshot = this.#snapshot;
    this.#saving = this.#saving.then(async () => {
      const entries = { ...(await this.#loadSnapshot()) };
      for (const [key, entry] of this.#entries) entries[key] = entry.stored;
      await snapshot.save(entries);
    }).catch(this.#onError);
  }

  #track(work: Promise<unknown>): void {
    this.#background.add(work);
    void work.finally(() => this.#background.delete(work));
  }
}
