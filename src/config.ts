import { availableParallelism } from "node:os";
import { resolve } from "node:path";
import { MOCK_MAX_DELAY_MS } from "./runtime/mock/mock.ts";
import { DEFAULT_TEMPLATE_LIMITS as TEMPLATE_DEFAULTS } from "./runtime/templates/render-budget.ts";

/** Everything the server reads from its environment, in one place (the README's configuration table). */
export interface Config {
  port: number;
  host: string;
  publicUrl: string;
  dataDir: string;
  databaseUrl: string | null;
  adminKey: string | null;
  bodyLimit: number;
  /** Bytes of one OTLP request body as sent (compressed or not); its decompressed size may be eight times that. */
  otlpMaxBytes: number;
  /** How long spans are kept (src/tracing/retention.ts). */
  spanRetention: {
    /** Days a project keeps its spans unless it sets its own; 0 keeps them for good. */
    days: number;
    /** How often the expired spans of every project are deleted. */
    sweepMs: number;
    /** Spans looked at by one delete (their whole traces go), each a short transaction of its own. */
    batch: number;
  };
  /** Most root spans one span analytics query reads (src/tracing/query/span-analytics.ts). */
  analyticsMaxSpans: number;
  logLevel: string;
  secretKey: string | null;
  allowPrivateHooks: boolean;
  workers: number;
  evaluations: {
    /** Batches of scenarios this process runs at once (each a job claimed from the database); 0 runs none. */
    batches: number;
    /** Scenarios per batch job. */
    batchSize: number;
    /** Batches (and, apart, plans) one project may hold at once across all processes: the others' share. */
    projectBatches: number;
    /** Invocations running at once within one batch, unless a run sets `data.concurrency.batch_size`. */
    concurrency: number;
    /** How long a batch stays with a process that stopped renewing it (crashed) before another takes it over. */
    leaseMs: number;
    /** Most traces a query step of a run takes (a live run: per window). */
    maxTraces: number;
    /** How often a live evaluation takes the traces of the interval just gone. */
    liveIntervalMs: number;
  };
  /** Webhook deliveries (src/webhooks/): this process's share of them and their limits. */
  webhooks: {
    /** Deliveries this process sends at once; 0 sends none (the API still records them for other processes). */
    concurrency: number;
    /** Deliveries to one subscription this process sends at once: a slow subscriber holds no more than these. */
    subscriberConcurrency: number;
    /** Subscriptions one project may hold. */
    maxSubscriptions: number;
    /** Bytes of one delivery's body: a larger payload fails at once, without being sent. */
    maxPayloadBytes: number;
    /** Longest one attempt may take, connection included. */
    timeoutMs: number;
    /** The first retry's wait; each later one waits twice as long (with jitter), up to five minutes. */
    retryBaseMs: number;
    /** How long after its event a failing delivery keeps being retried. */
    retryWindowMs: number;
    /** How long a subscription may fail every attempt before it is paused. */
    pauseAfterMs: number;
  };
  /** The code sandbox's pool of threads and its limits (src/runtime/code/sandbox-pool.ts). */
  sandbox: { workers: number; projectConcurrency: number; projectQueueLimit: number; queueLimit: number };
  /** Threads that parse and identify uploaded testset files' rows (`TESSERA_UPLOAD_WORKERS`, default: the cores). */
  uploadWorkers: number;
  /** Threads that decode and normalise OTLP export requests (`TESSERA_OTLP_WORKERS`, default: the cores). */
  otlpWorkers: number;
  /** The rendering budget of one prompt: output bytes and evaluation steps. */
  templateMaxBytes: number;
  templateMaxSteps: number;
  /** PostgreSQL connections per process (the pool; the change listener adds one). */
  dbPoolSize: number;
  /** How long a request waits for a PostgreSQL connection before it is answered 503. */
  dbConnectTimeoutMs: number;
  /** Longest one SQL statement may run (PostgreSQL's statement_timeout, and the client's own bound). */
  dbStatementTimeoutMs: number;
  /** How long a starting process keeps retrying a database that is not up yet. */
  dbStartupTimeoutMs: number;
  /** The embedded database's buffer pool in MB: resident for as long as the server runs. */
  embeddedSharedBuffersMb: number;
  /** How long SIGTERM waits for in-flight requests before it closes them and exits non-zero. */
  shutdownTimeoutMs: number;
  /** Longest a client may take to send a request's headers (408, then the connection is closed). */
  headersTimeoutMs: number;
  /** Longest a request body may go without a byte arriving (408, then the connection is closed). */
  bodyTimeoutMs: number;
  /** How long an idle keep-alive connection stays open between two requests. */
  keepAliveTimeoutMs: number;
  /** Longest the mock workflow's `delay` behaviour may wait (longer asks are a 400). */
  mockMaxDelayMs: number;
  /** Oldest a cached reference resolution or accepted API key may be (a bound should a change go unheard). */
  cacheMaxAgeMs: number;
}

function integer(name: string, value: string | undefined, fallback: number): number {
  if (value === undefined || value === "") return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new Error(`${name} must be a non-negative integer, got "${value}"`);
  return n;
}

function positive(name: string, value: string | undefined, fallback: number): number {
  const n = integer(name, value, fallback);
  if (n < 1) throw new Error(`${name} must be at least 1, got "${value}"`);
  return n;
}

/**
 * PostgreSQL's default buffer pool is 128 MB; in the embedded database it is WASM memory the process holds for
 * good. The pages are on local disk behind it, in the system's page cache: 32 MB keeps the idle server small.
 */
const EMBEDDED_SHARED_BUFFERS_MB = 32;

/** One core stays with the event loop; sandbox threads take the others, up to four. */
const defaultSandboxWorkers = () => Math.max(1, Math.min(4, availableParallelism() - 1));

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = integer("PORT", env.PORT, 8000);
  return {
    port,
    // Local only unless asked: a fresh server holding a printed key is not exposed to the network by default.
    host: env.HOST || "127.0.0.1",
    publicUrl: (env.TESSERA_PUBLIC_URL || `http://localhost:${port}`).replace(/\/+$/, ""),
    dataDir: resolve(env.TESSERA_DATA_DIR || ".tessera"),
    databaseUrl: env.DATABASE_URL || null,
    adminKey: env.TESSERA_ADMIN_KEY || null,
    bodyLimit: integer("TESSERA_BODY_LIMIT", env.TESSERA_BODY_LIMIT, 10 * 1024 * 1024),
    otlpMaxBytes: positive("TESSERA_OTLP_MAX_BYTES", env.TESSERA_OTLP_MAX_BYTES, 10 * 1024 * 1024),
    spanRetention: {
      days: integer("TESSERA_SPAN_RETENTION_DAYS", env.TESSERA_SPAN_RETENTION_DAYS, 0),
      sweepMs: positive("TESSERA_SPAN_RETENTION_SWEEP_SECONDS", env.TESSERA_SPAN_RETENTION_SWEEP_SECONDS, 3600) * 1000,
      batch: positive("TESSERA_SPAN_RETENTION_BATCH", env.TESSERA_SPAN_RETENTION_BATCH, 1000),
    },
    analyticsMaxSpans: positive("TESSERA_ANALYTICS_MAX_SPANS", env.TESSERA_ANALYTICS_MAX_SPANS, 1_000_000),
    logLevel: env.LOG_LEVEL || "info",
    secretKey: env.TESSERA_SECRET_KEY || null,
    allowPrivateHooks: env.TESSERA_ALLOW_PRIVATE_HOOKS === "true",
    workers: env.TESSERA_WORKERS === "auto" ? 0 : integer("TESSERA_WORKERS", env.TESSERA_WORKERS, 1),
    templateMaxBytes: integer("TESSERA_TEMPLATE_MAX_BYTES", env.TESSERA_TEMPLATE_MAX_BYTES, TEMPLATE_DEFAULTS.maxBytes),
    templateMaxSteps: integer("TESSERA_TEMPLATE_MAX_STEPS", env.TESSERA_TEMPLATE_MAX_STEPS, TEMPLATE_DEFAULTS.maxSteps),
    dbPoolSize: Math.max(1, integer("TESSERA_DB_POOL_SIZE", env.TESSERA_DB_POOL_SIZE, 10)),
    dbConnectTimeoutMs: integer("TESSERA_DB_CONNECT_TIMEOUT_MS", env.TESSERA_DB_CONNECT_TIMEOUT_MS, 5_000),
    dbStatementTimeoutMs: integer("TESSERA_DB_STATEMENT_TIMEOUT_MS", env.TESSERA_DB_STATEMENT_TIMEOUT_MS, 60_000),
    dbStartupTimeoutMs: integer("TESSERA_DB_STARTUP_TIMEOUT_MS", env.TESSERA_DB_STARTUP_TIMEOUT_MS, 30_000),
    embeddedSharedBuffersMb: positive(
      "TESSERA_EMBEDDED_SHARED_BUFFERS_MB",
      env.TESSERA_EMBEDDED_SHARED_BUFFERS_MB,
      EMBEDDED_SHARED_BUFFERS_MB,
    ),
    shutdownTimeoutMs: integer("TESSERA_SHUTDOWN_TIMEOUT_MS", env.TESSERA_SHUTDOWN_TIMEOUT_MS, 25_000),
    headersTimeoutMs: positive("TESSERA_HEADERS_TIMEOUT_MS", env.TESSERA_HEADERS_TIMEOUT_MS, 30_000),
    bodyTimeoutMs: positive("TESSERA_BODY_TIMEOUT_MS", env.TESSERA_BODY_TIMEOUT_MS, 60_000),
    keepAliveTimeoutMs: positive("TESSERA_KEEP_ALIVE_TIMEOUT_MS", env.TESSERA_KEEP_ALIVE_TIMEOUT_MS, 72_000),
    cacheMaxAgeMs: integer("TESSERA_CACHE_MAX_AGE_MS", env.TESSERA_CACHE_MAX_AGE_MS, 30_000),
    mockMaxDelayMs: integer("TESSERA_MOCK_MAX_DELAY_MS", env.TESSERA_MOCK_MAX_DELAY_MS, MOCK_MAX_DELAY_MS),
    evaluations: evaluationsConfig(env),
    sandbox: sandboxConfig(env),
    uploadWorkers: positive("TESSERA_UPLOAD_WORKERS", env.TESSERA_UPLOAD_WORKERS, availableParallelism()),
    otlpWorkers: positive("TESSERA_OTLP_WORKERS", env.TESSERA_OTLP_WORKERS, availableParallelism()),
    webhooks: webhooksConfig(env),
  };
}

function webhooksConfig(env: NodeJS.ProcessEnv): Config["webhooks"] {
  return {
    concurrency: integer("TESSERA_WEBHOOK_CONCURRENCY", env.TESSERA_WEBHOOK_CONCURRENCY, 16),
    subscriberConcurrency: positive(
      "TESSERA_WEBHOOK_SUBSCRIBER_CONCURRENCY",
      env.TESSERA_WEBHOOK_SUBSCRIBER_CONCURRENCY,
      4,
    ),
    maxSubscriptions: positive("TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS", env.TESSERA_WEBHOOK_MAX_SUBSCRIPTIONS, 100),
    maxPayloadBytes: positive("TESSERA_WEBHOOK_MAX_PAYLOAD_BYTES", env.TESSERA_WEBHOOK_MAX_PAYLOAD_BYTES, 256 * 1024),
    timeoutMs: positive("TESSERA_WEBHOOK_TIMEOUT_MS", env.TESSERA_WEBHOOK_TIMEOUT_MS, 10_000),
    retryBaseMs: positive("TESSERA_WEBHOOK_RETRY_BASE_MS", env.TESSERA_WEBHOOK_RETRY_BASE_MS, 1_000),
    retryWindowMs: integer("TESSERA_WEBHOOK_RETRY_WINDOW_MS", env.TESSERA_WEBHOOK_RETRY_WINDOW_MS, 3_600_000),
    pauseAfterMs: integer("TESSERA_WEBHOOK_PAUSE_AFTER_MS", env.TESSERA_WEBHOOK_PAUSE_AFTER_MS, 86_400_000),
  };
}

function evaluationsConfig(env: NodeJS.ProcessEnv): Config["evaluations"] {
  const batches = integer("TESSERA_EVALUATION_BATCHES", env.TESSERA_EVALUATION_BATCHES, 2);
  return {
    batches,
    batchSize: Math.max(1, integer("TESSERA_EVALUATION_BATCH_SIZE", env.TESSERA_EVALUATION_BATCH_SIZE, 200)),
    // What one process takes at once by default: a project alone still keeps a server of its own busy.
    projectBatches: positive(
      "TESSERA_EVALUATION_PROJECT_BATCHES",
      env.TESSERA_EVALUATION_PROJECT_BATCHES,
      2 * Math.max(1, batches),
    ),
    concurrency: Math.max(1, integer("TESSERA_EVALUATION_CONCURRENCY", env.TESSERA_EVALUATION_CONCURRENCY, 8)),
    leaseMs: Math.max(1, integer("TESSERA_JOB_LEASE_SECONDS", env.TESSERA_JOB_LEASE_SECONDS, 60)) * 1000,
    maxTraces: positive("TESSERA_EVALUATION_MAX_TRACES", env.TESSERA_EVALUATION_MAX_TRACES, 10_000),
    liveIntervalMs: positive("TESSERA_LIVE_EVALUATION_INTERVAL_SECONDS", env.TESSERA_LIVE_EVALUATION_INTERVAL_SECONDS, 60) * 1000,
  };
}

function sandboxConfig(env: NodeJS.ProcessEnv): Config["sandbox"] {
  const workers = positive("TESSERA_SANDBOX_WORKERS", env.TESSERA_SANDBOX_WORKERS, defaultSandboxWorkers());
  return {
    workers,
    // Half the threads by default: one project's flood always leaves threads for the others.
    projectConcurrency: positive(
      "TESSERA_SANDBOX_PROJECT_CONCURRENCY",
      env.TESSERA_SANDBOX_PROJECT_CONCURRENCY,
      Math.ceil(workers / 2),
    ),
    projectQueueLimit: integer("TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT", env.TESSERA_SANDBOX_PROJECT_QUEUE_LIMIT, 16),
    queueLimit: integer("TESSERA_SANDBOX_QUEUE_LIMIT", env.TESSERA_SANDBOX_QUEUE_LIMIT, 128),
  };
}
