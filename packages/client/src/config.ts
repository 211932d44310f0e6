/** The part of an application revision a runtime needs: where to invoke it and with what. */
export interface ConfigData {
  url?: string | null;
  uri?: string | null;
  parameters?: Record<string, unknown> | null;
  schemas?: Record<string, unknown> | null;
  [field: string]: unknown;
}

/** Where a config came from: this call's request, the in-memory cache, the cache while the server is down, a saved snapshot. */
export type ConfigSource = "network" | "cache" | "stale" | "snapshot";

export interface Config {
  id: string;
  version: string;
  data: ConfigData;
  source: ConfigSource;
}

/** The caller's own default, served when the server is unreachable and nothing is cached. */
export interface FallbackConfig {
  id: null;
  version: null;
  data: ConfigData;
  source: "fallback";
}

export interface RevisionSelector {
  id?: string;
  slug?: string;
  version?: number | string;
}

export interface GetConfigOptions {
  /** Application slug. */
  application?: string;
  /** Environment slug: the revision deployed there. */
  environment?: string;
  /** Variant slug: its latest revision (or, with `revision.version`, that version of it). */
  variant?: string;
  /** A revision by `id` is immutable and cached for the life of the client. */
  revision?: RevisionSelector;
  /** Deployment key inside the environment (e.g. `my-app.revision`). */
  key?: string;
  /** How long a value is served without asking the server again (default: the client's, 30 s). */
  ttlMs?: number;
  fallback?: ConfigData;
}
