import type { ReferenceCache } from "./cache/reference-cache.ts";
import type { Config } from "./config.ts";
import type { Database } from "./db/database.ts";
import type { FrontDoor } from "./http/front-door.ts";
import type { SandboxPool } from "./runtime/code/sandbox-pool.ts";
import type { TraceWriter } from "./traces/trace-writer.ts";

/** What every part of the server is handed at start: configuration and storage. */
export interface AppContext {
  config: Config;
  db: Database;
  /** Set by the server: cached reference resolutions, retired on every write in a project. */
  cache?: ReferenceCache;
  /** Set by the server: invocation traces, written in batches. */
  traces?: TraceWriter;
  /** Set by the server: the threads custom code runs in, started on first use and closed with the server. */
  sandbox?: SandboxPool;
  /** Set by the server: answers a retrieve answered before without going through Fastify. */
  frontDoor?: FrontDoor;
}
