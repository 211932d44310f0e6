import { ConfigCache } from "./config-cache.ts";
import type { Config, ConfigData, FallbackConfig, GetConfigOptions } from "./config.ts";
import { multipartBody, type FileBody } from "./multipart.ts";
import type { paths } from "./openapi.ts";
import type { Snapshot } from "./snapshot.ts";
import { Transport } from "./transport.ts";

export interface TesseraClientOptions {
  /** The server's origin, e.g. `https://tessera.example.com` (paths start with /api). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  /** Per request. Default 10 s. */
  timeoutMs?: number;
  /** How long a retrieved config is served before it is revalidated. Default 30 s. */
  ttlMs?: number;
  /** Where configs survive restarts (`fileSnapshot(path)` from `@tessera/client/node`). */
  snapshot?: Snapshot;
  /** Failures of background work (revalidation, snapshot writes), which no caller awaits. */
  onError?: (error: unknown) => void;
}

/** The JSON answer of an operation, as the server's OpenAPI document describes it. */
type Answer<P extends keyof paths, M extends keyof paths[P]> =
  paths[P][M] extends { responses: { 200: { content: { "application/json": infer T } } } } ? T : Record<string, unknown>;

export type Kind = "applications" | "workflows" | "evaluators" | "environments" | "testsets";

/** A revision by id, by slug, or by version within a variant. */
export interface RevisionRef {
  id?: string;
  slug?: string;
  version?: number | string;
  variant?: { id?: string; slug?: string };
}

const singular = (kind: Kind) => kind.slice(0, -1);

export interface InvokeOptions extends GetConfigOptions {
  inputs: Record<string, unknown>;
  /** Override the revision's parameters for this call. */
  parameters?: Record<string, unknown>;
}

export interface TestsetDeltaOptions {
  testsetId: string;
  variantId?: string;
  /** The revision the delta applies to; the variant's latest when omitted. */
  baseRevisionId?: string;
  message?: string;
  /** Rows to append (each becomes a testcase's data). */
  add?: Record<string, unknown>[];
  /** Testcase ids to drop. */
  remove?: string[];
  /** Testcases to change in place: their id and their new data. */
  replace?: { id: string; data: Record<string, unknown> }[];
  /** Whether the answer inlines the new revision's testcases (default false) and their ids (default true). */
  includeTestcases?: boolean;
  includeTestcaseIds?: boolean;
}

export type FileType = "csv" | "json" | "jsonl";

export class TesseraClient {
  readonly #transport: Transport;
  readonly #configs: ConfigCache;

  constructor(options: TesseraClientOptions) {
    this.#transport = new Transport(options);
    this.#configs = new ConfigCache(this.#transport, options);
  }

  /**
   * The application revision a reference resolves to, from memory when fresh. Throws
   * TesseraNetworkError when the server is unreachable and nothing cached, saved or given stands in.
   */
  getConfig(options: GetConfigOptions & { fallback: ConfigData }): Promise<Config | FallbackConfig>;
  getConfig(options: GetConfigOptions): Promise<Config>;
  getConfig(options: GetConfigOptions): Promise<Config | FallbackConfig> {
    return this.#configs.get(options);
  }

  /** Resolves when background revalidations and snapshot writes are done (tests, graceful shutdown). */
  settled(): Promise<void> {
    return this.#configs.settled();
  }

  /** Retrieves the application's config (cached) and runs it through its service's `/invoke`. */
  async invoke(options: InvokeOptions): Promise<Record<string, unknown>> {
    const config = await this.getConfig(options);
    if (!config.data.url) throw new Error(`The ${config.source} config of ${options.application ?? "this application"} has no data.url to invoke`);
    const references: Record<string, unknown> = {};
    if (options.application) references.application = { slug: options.application };
    if (options.environment) references.environment = { slug: options.environment };
    const { body } = await this.#transport.json<Record<string, unknown>>("POST", `${config.data.url.replace(/\/+$/, "")}/invoke`, {
      body: { data: { inputs: options.inputs, parameters: options.parameters ?? config.data.parameters ?? {} }, references },
    });
    return body;
  }

  /** Points an environment at a variant's latest revision, and forgets cached configs of that application. */
  async deploy(options: { application: string; variant: string; environment: string; key?: string; message?: string }): Promise<Answer<"/api/applications/revisions/deploy", "post">> {
    const { body } = await this.#transport.json<Answer<"/api/applications/revisions/deploy", "post">>("POST", "/api/applications/revisions/deploy", {
      body: {
        application_ref: { slug: options.application },
        application_variant_ref: { slug: options.variant },
        environment_ref: { slug: options.environment },
        key: options.key,
        message: options.message,
      },
    });
    this.#configs.invalidate(options.application);
    return body;
  }

  /** Artifacts of a kind named by slug or id (archived ones included), in the kind's record shape. */
  async findArtifacts(kind: Kind, refs: { id?: string; slug?: string }[], limit = 100): Promise<{ id: string; slug: string }[]> {
    const { body } = await this.#transport.json<Record<string, { id: string; slug: string }[]>>("POST", `/api/${kind}/query`, {
      body: { [`${singular(kind)}_refs`]: refs, include_archived: true, windowing: { limit } },
    });
    return body[kind] ?? [];
  }

  /** Variants of a kind: those of some artifacts, and/or those named by slug or id. */
  async findVariants(kind: Kind, of: { artifacts?: { id?: string; slug?: string }[]; variants?: { id?: string; slug?: string }[] }, limit = 1000): Promise<{ id: string; slug: string }[]> {
    const n = singular(kind);
    const { body } = await this.#transport.json<Record<string, { id: string; slug: string }[]>>("POST", `/api/${kind}/variants/query`, {
      body: { [`${n}_refs`]: of.artifacts, [`${n}_variant_refs`]: of.variants, windowing: { limit } },
    });
    return body[`${n}_variants`] ?? [];
  }

  /** A variant's revisions, newest first, without their data. */
  async log(kind: Kind, of: { variantId?: string; revisionId?: string; artifactId?: string; depth?: number }): Promise<Record<string, unknown>> {
    const n = singular(kind);
    const query: Record<string, unknown> = { depth: of.depth };
    if (of.variantId) query[`${n}_variant_id`] = of.variantId;
    if (of.revisionId) query[`${n}_revision_id`] = of.revisionId;
    if (of.artifactId) query[`${n}_id`] = of.artifactId;
    return (await this.#transport.json<Record<string, unknown>>("POST", `/api/${kind}/revisions/log`, { body: { [`${n}_revisions`]: query } })).body;
  }

  /** What changed from `base` to `target`. */
  async diff(kind: Kind, base: RevisionRef, target: RevisionRef): Promise<Record<string, unknown>> {
    const side = ({ variant, ...ref }: RevisionRef) => (variant ? { ...ref, [`${singular(kind)}_variant_ref`]: variant } : ref);
    return (await this.#transport.json<Record<string, unknown>>("POST", `/api/${kind}/revisions/diff`, { body: { base: side(base), target: side(target) } })).body;
  }

  /** Commits a new revision whose data is that of `revision` (on its variant unless another is named). */
  async revert(kind: Kind, revision: RevisionRef, options: { message?: string } = {}): Promise<Record<string, unknown>> {
    const { variant, ...ref } = revision;
    return (await this.#transport.json<Record<string, unknown>>("POST", `/api/${kind}/revisions/revert`, {
      body: { revision_ref: ref, [`${singular(kind)}_variant_ref`]: variant, message: options.message },
    })).body;
  }

  // ---- testsets

  /** A testset whose first revision holds `testcases` (each row becomes a testcase's data). */
  async createTestset(options: { slug?: string; name?: string; description?: string; testcases: Record<string, unknown>[] }): Promise<Answer<"/api/simple/testsets/", "post">> {
    return (await this.#transport.json<Answer<"/api/simple/testsets/", "post">>("POST", "/api/simple/testsets/", {
      body: {
        testset: {
          slug: options.slug, name: options.name, description: options.description,
          data: { testcases: options.testcases.map((data) => ({ data })) },
        },
      },
    })).body;
  }

  /** A new testset from a CSV or JSON file, or (with `testsetId`) the next revision of one. Streams are sent as read. */
  async uploadTestset(file: FileBody, options: { fileType: FileType; testsetId?: string; fileName?: string; slug?: string; name?: string; description?: string }): Promise<Record<string, unknown>> {
    const { body, headers } = multipartBody({
      file_type: options.fileType,
      testset_slug: options.testsetId ? undefined : options.slug,
      testset_name: options.name,
      testset_description: options.description,
    }, file, options.fileName ?? `${options.slug ?? "testset"}.${options.fileType}`);
    const path = options.testsetId ? `/api/simple/testsets/${encodeURIComponent(options.testsetId)}/upload` : "/api/simple/testsets/upload";
    return (await this.#transport.json<Record<string, unknown>>("POST", path, { body, headers })).body;
  }

  /**
   * A testset's latest revision (or, with `revisionId`, that revision) as a CSV or JSON byte stream;
   * `escapeFormulas` prefixes formula-looking CSV cells with a single quote.
   */
  async downloadTestset(
    testsetId: string, options: { fileType?: FileType; revisionId?: string; escapeFormulas?: boolean } = {},
  ): Promise<ReadableStream<Uint8Array>> {
    const path = options.revisionId
      ? `/api/testsets/revisions/${encodeURIComponent(options.revisionId)}/download`
      : `/api/simple/testsets/${encodeURIComponent(testsetId)}/download`;
    const res = await this.#transport.send("POST", path, {
      query: { file_type: options.fileType ?? "csv", ...(options.escapeFormulas ? { escape_formulas: "true" } : {}) },
    });
    return res.body ?? new ReadableStream({ start: (c) => c.close() });
  }

  /** Commits only what changed: rows added, removed and replaced against a base revision. */
  async commitTestsetDelta(options: TestsetDeltaOptions): Promise<Answer<"/api/testsets/revisions/commit", "post">> {
    return (await this.#transport.json<Answer<"/api/testsets/revisions/commit", "post">>("POST", "/api/testsets/revisions/commit", {
      body: {
        testset_revision_commit: {
          testset_id: options.testsetId,
          testset_variant_id: options.variantId,
          base_revision_id: options.baseRevisionId,
          message: options.message,
          delta: { rows: { add: options.add?.map((data) => ({ data })), remove: options.remove, replace: options.replace } },
        },
        include_testcases: options.includeTestcases,
        include_testcase_ids: options.includeTestcaseIds,
      },
    })).body;
  }

  // ---- revisions and evaluations

  /** The revision a reference resolves to (`{application_ref: {slug}, environment_ref: {slug}}`, …), or null when none. */
  async retrieveRevision(kind: Kind, refs: Record<string, unknown>): Promise<Record<string, any> | null> {
    const { body } = await this.#transport.json<Record<string, any>>("POST", `/api/${kind}/revisions/retrieve`, {
      body: kind === "testsets" ? { ...refs, include_testcases: false, include_testcase_ids: false } : refs,
    });
    return body[`${singular(kind)}_revision`] ?? null;
  }

  /** A catalog template (`auto_exact_match`, `completion`, …) by key, or null when the catalog has none. */
  async retrieveTemplate(kind: "applications" | "evaluators" | "workflows", key: string): Promise<Record<string, any> | null> {
    const { body } = await this.#transport.json<Record<string, any>>("GET", `/api/${kind}/catalog/templates/${encodeURIComponent(key)}`);
    return body.template ?? null;
  }

  /** An evaluator artifact whose first revision runs `uri` (e.g. `agenta:builtin:auto_exact_match:v0`) with `parameters`. */
  async createEvaluator(options: { slug: string; name?: string; uri: string; parameters?: Record<string, unknown> }): Promise<Record<string, any>> {
    const { body } = await this.#transport.json<Record<string, any>>("POST", "/api/simple/evaluators/", {
      body: { evaluator: { slug: options.slug, name: options.name, data: { uri: options.uri, parameters: options.parameters } } },
    });
    return body.evaluator;
  }

  /**
   * Starts a server-run evaluation of pinned revisions: every testcase of the testset revisions through the
   * application revisions (if any), graded by the evaluator revisions. `reuse` lets it take earlier results
   * for the same revisions and testcases instead of invoking again.
   */
  async startEvaluation(options: StartEvaluationOptions): Promise<Record<string, any>> {
    const { body } = await this.#transport.json<Record<string, any>>("POST", "/api/simple/evaluations/", {
      body: {
        evaluation: {
          name: options.name, description: options.description, tags: options.tags,
          flags: { is_cached: options.reuse === true },
          data: {
            testset_steps: options.testsetRevisionIds, application_steps: options.applicationRevisionIds ?? [],
            evaluator_steps: options.evaluatorRevisionIds ?? [], repeats: options.repeats,
          },
        },
      },
    });
    return body.evaluation;
  }

  /** An evaluation as the reference's simple-evaluation record, or null when there is none with that id. */
  async evaluation(id: string): Promise<Record<string, any> | null> {
    return (await this.#transport.json<Record<string, any>>("GET", `/api/simple/evaluations/${encodeURIComponent(id)}`)).body.evaluation;
  }

  /** An evaluation as the reference's run record (its steps pin the revisions), or null. */
  async runRecord(id: string): Promise<Record<string, any> | null> {
    return (await this.#transport.json<Record<string, any>>("GET", `/api/evaluations/runs/${encodeURIComponent(id)}`)).body.run;
  }

  /** Scenarios done, failed and pending, and cells invoked or reused. */
  async evaluationProgress(id: string): Promise<EvaluationProgress> {
    return (await this.#transport.json<{ progress: EvaluationProgress }>("GET", `/api/simple/evaluations/${encodeURIComponent(id)}/progress`)).body.progress;
  }

  /** Polls until the evaluation has ended (success, errors, failure or cancelled), reporting progress on the way. */
  async waitForEvaluation(id: string, options: { intervalMs?: number; onProgress?: (p: EvaluationProgress) => void; signal?: AbortSignal } = {}) {
    for (;;) {
      const progress = await this.evaluationProgress(id);
      options.onProgress?.(progress);
      if (["success", "errors", "failure", "cancelled"].includes(progress.status)) return progress;
      options.signal?.throwIfAborted();
      await new Promise((r) => setTimeout(r, options.intervalMs ?? 1000));
    }
  }

  /** The run's aggregate metrics: `{step key: {metric path: {type, count, mean, …}}}`, or null before any. */
  async evaluationMetrics(id: string): Promise<Record<string, Record<string, Record<string, any>>> | null> {
    const { body } = await this.#transport.json<{ metrics: { data: Record<string, any> }[] }>("POST", "/api/evaluations/metrics/query", {
      body: { metrics: { run_id: id, scenario_ids: false, timestamps: false } },
    });
    return body.metrics[0]?.data ?? null;
  }

  /** Two or more runs side by side: metric values and deltas per step, and the testcases whose results changed. */
  async compareEvaluations(ids: string[], limit?: number, offset?: number): Promise<Record<string, any>> {
    return (await this.#transport.json<{ comparison: Record<string, any> }>("POST", "/api/evaluations/runs/compare", {
      body: { run_ids: ids, limit, offset },
    })).body.comparison;
  }
}

export interface StartEvaluationOptions {
  name?: string;
  description?: string;
  tags?: Record<string, unknown>;
  testsetRevisionIds: string[];
  applicationRevisionIds?: string[];
  evaluatorRevisionIds?: string[];
  repeats?: number;
  reuse?: boolean;
}

export interface EvaluationProgress {
  run_id: string;
  status: string;
  scenarios: number;
  done: number;
  succeeded: number;
  failed: number;
  pending: number;
  /** Scenarios read from chunks of the testset that an earlier run completed (stored once, by that run). */
  linked: number;
  cells: { invoked: number; reused: number; failed: number };
}
