import { Readable } from "node:stream";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Type } from "typebox";
import type { Scope } from "../accounts/scope.ts";
import { templateByKey } from "../catalog/lookup.ts";
import type { AppContext } from "../context.ts";
import { workflows, type WorkflowData } from "../kinds/workflows.ts";
import { resolveConfiguration, type InvokeSources } from "../runtime/configuration.ts";
import { envelopeHeaders, failureEnvelope, successEnvelope } from "../runtime/envelope.ts";
import { ERROR_TYPES, invalidParameters, toWorkflowError, WorkflowError } from "../runtime/errors.ts";
import type { InvokeRequest } from "../runtime/invoke-request.ts";
import { invokeWorkflow, streamWorkflow, type StreamEvent, type WorkflowResult } from "../runtime/invoke.ts";
import { encodeSse } from "../runtime/sse.ts";
import { newSpanId, newTraceId, type Span } from "../runtime/trace.ts";
import { secretCipher } from "../secrets/cipher.ts";
import type { TraceStatus } from "../traces/traces.ts";
import { projectSecrets, type ProviderSecret } from "../secrets/provider-secrets.ts";
import { findRevision } from "../versioning/revisions.ts";
import { formatUri, parseUri } from "../workflows/uri.ts";
import { scopeRequest } from "./authentication.ts";
import { badRequest, HttpError } from "../errors.ts";
import { isHeaderValue } from "../runtime/net/header-text.ts";
import { FreeObject, Nullable, Reference } from "../schema-parts.ts";
import {
  FailureEnvelopeSchema, InspectSchema, InvokeStreamContent, LivenessSchema, SuccessEnvelopeSchema,
} from "../runtime/envelope-schemas.ts";
import { documentationOnly } from "./openapi.ts";

const InvokeBody = Type.Object({
  version: Nullable(Type.String()),
  data: Nullable(Type.Object({
    inputs: Nullable(FreeObject),
    parameters: Nullable(FreeObject),
    revision: Nullable(FreeObject),
    testcase: Nullable(FreeObject),
    trace: Nullable(FreeObject),
    outputs: Type.Optional(Type.Unknown()),
  }, { additionalProperties: false })),
  references: Nullable(Type.Record(Type.String(), Reference)),
  selector: Nullable(Type.Object({ key: Nullable(Type.String()) }, { additionalProperties: false })),
  flags: Nullable(Type.Object({ stream: Nullable(Type.Boolean()) }, { additionalProperties: true })),
  tags: Nullable(FreeObject),
  meta: Nullable(FreeObject),
  session_id: Nullable(Type.String()),
}, { additionalProperties: false });

type Body = { data?: Record<string, any> | null; references?: InvokeSources["references"]; selector?: InvokeSources["selector"]; flags?: { stream?: boolean | null } | null; session_id?: string | null };
const KeyParams = Type.Object({ key: Type.String({ pattern: "^[A-Za-z0-9_-]+$" }), version: Type.String({ pattern: "^[A-Za-z0-9_.-]+$" }) });
const RevisionParams = Type.Object({ revision_id: Type.String({ format: "uuid" }) });
const CUSTOM = new Set(["hook", "code", "mock"]);

/**
 * The hosted runtime at `data.url`: `/services/{key}/{version}/invoke|inspect|health`, the root
 * `/services/invoke|inspect` that dispatch on the revision's URI, and `/services/revisions/{id}/…`
 * (the address of a custom-code revision, whose script lives on the revision).
 */
export async function servicesRoutes(app: FastifyInstance, ctx: AppContext) {
  const cipher = secretCipher(ctx.config);
  const tags = ["Runtime"];
  app.decorateRequest("scope", null as unknown as Scope);
  app.addHook("onRequest", (request, _reply, done) => {
    const path = request.url;
    const end = path.indexOf("?");
    if ((end < 0 ? path : path.slice(0, end)).endsWith("/health")) return done();
    scopeRequest(ctx.db, request, done);
  });

  app.get("/services/health", { schema: { tags, summary: "Runtime liveness", security: [] }, config: documentationOnly({ response: { 200: LivenessSchema } }) }, async () => ({ status: "ok" }));
  app.get("/services/:key/:version/health", { schema: { tags, summary: "A hosted service's liveness", params: KeyParams, security: [] }, config: documentationOnly({ response: { 200: LivenessSchema } }) }, async (req, reply) => {
    const { key } = req.params as { key: string };
    if (!templateByKey("workflows", key)) return reply.code(404).send({ detail: `No hosted service ${key}` });
    return { status: "ok" };
  });

  const pathUri = (req: FastifyRequest) => {
    const { key, version } = req.params as { key: string; version: string };
    return `svc:${CUSTOM.has(key) ? "custom" : "builtin"}:${key}:${version}`;
  };

  // Invoke answers are small, and a compressed event stream would hold tokens back in zlib's buffer. Given in each
  // route's options: the compression plugin reads them in its own onRoute hook, which runs before one added here.
  const compress = false;
  for (const action of ["invoke", "inspect"] as const) {
    const run = action === "invoke" ? invoke : inspect;
    const config = documentationOnly({ response: action === "invoke" ? envelopeAnswers(InvokeAnswer) : envelopeAnswers(InspectSchema) });
    const summary = (what: string) => ({ tags, summary: `${action} ${what}` });
    app.post(`/services/:key/:version/${action}`, {
      schema: { ...summary("a hosted service"), params: KeyParams, body: InvokeBody }, config, compress,
    }, (req, reply) =>
      run(req, reply, async (body) => configured(req, body, pathUri(req))));
    app.post(`/services/${action}`, {
      schema: { tags, summary: `${action}, dispatching on the revision's URI`, body: InvokeBody }, config, compress,
    }, (req, reply) =>
      run(req, reply, async (body) => configured(req, body, null)));
    app.post(`/services/revisions/:revision_id/${action}`, {
      schema: { ...summary("one revision"), params: RevisionParams, body: InvokeBody }, config, compress,
    }, (req, reply) =>
      run(req, reply, async (body) => {
        const revision = await findRevision(ctx.db, req.scope, workflows, { id: (req.params as { revision_id: string }).revision_id });
        const stored = (revision.data ?? {}) as WorkflowData;
        const inline = body.data?.parameters;
        return {
          data: { ...stored, ...(inline ? { parameters: inline } : {}) },
          references: { workflow: { id: revision.artifact_id, slug: revision.artifact_slug }, workflow_revision: { id: revision.id, slug: revision.slug, version: String(revision.version) } },
        };
      }));
  }

  /** The configuration of this call; a path's service and a revision's URI must agree. */
  async function configured(req: FastifyRequest, body: Body, fromPath: string | null) {
    const config = await resolveConfiguration(ctx, req.scope, {
      parameters: body.data?.parameters, revision: body.data?.revision, references: body.references, selector: body.selector,
    });
    const stored = config.data.uri ? parseUri(config.data.uri) : null;
    if (fromPath && stored && formatUri(stored) !== fromPath) {
      throw invalidParameters(`This service runs ${fromPath}, but the revision's URI is ${config.data.uri}: POST to its own data.url`);
    }
    const uri = fromPath ?? config.data.uri;
    if (!uri) throw invalidParameters("No workflow URI: send data.revision.data.uri or references to a revision");
    return { ...config, data: { ...config.data, uri } };
  }

  async function inspect(req: FastifyRequest, reply: FastifyReply, configure: (b: Body) => Promise<{ data: WorkflowData; references: Record<string, unknown> | null }>) {
    try {
      const { data, references } = await configure(req.body as Body);
      const template = templateByKey("workflows", parseUri(data.uri!)?.key ?? "");
      return { version: "2025.07.14", data: { uri: data.uri, url: data.url ?? null, schemas: data.schemas ?? template?.data?.schemas ?? null, parameters: data.parameters ?? null }, references };
    } catch (error) {
      return answerFailure(reply, error, { traceId: newTraceId(), spanId: newSpanId() });
    }
  }

  /** A project's provider keys, decrypted once and kept until the project next changes. */
  async function secretsOf(scope: Scope) {
    const cached = ctx.cache?.get<ProviderSecret[]>(scope.projectId, "provider-secrets", "");
    if (cached) return cached;
    const generation = ctx.cache?.generation(scope.projectId) ?? 0;
    const secrets = await projectSecrets(ctx.db, scope, cipher);
    ctx.cache?.set(scope.projectId, "provider-secrets", "", secrets, generation);
    return secrets;
  }

  async function invoke(req: FastifyRequest, reply: FastifyReply, configure: (b: Body) => Promise<{ data: WorkflowData; references: Record<string, unknown> | null }>) {
    const body = req.body as Body;
    // The session id is echoed in the x-ag-session-id header: refused before any work (and any provider bill).
    if (body.session_id && !isHeaderValue(body.session_id)) {
      throw badRequest("session_id must be printable ASCII: it is sent back in the x-ag-session-id header");
    }
    const ids = { traceId: newTraceId(), spanId: newSpanId() };
    const started = performance.now();
    const inputs = body.data?.inputs ?? {};
    let references: Record<string, unknown> | null = null;
    const record = async (status: TraceStatus, outputs: unknown, result?: WorkflowResult, spans?: Span[]) =>
      ctx.traces?.add(req.scope, {
        traceId: ids.traceId, spanId: ids.spanId, references, inputs, outputs, status,
        latencyMs: performance.now() - started, usage: result?.usage ?? null, spans: spans ?? result?.spans ?? [],
        sessionId: body.session_id ?? null,
      });
    try {
      const config = await configure(body);
      references = config.references;
      const request: InvokeRequest = {
        uri: config.data.uri!, url: config.data.url, headers: config.data.headers, script: config.data.script, runtime: config.data.runtime,
        parameters: config.data.parameters ?? {}, inputs, outputs: body.data?.outputs, trace: body.data?.trace, testcase: body.data?.testcase,
        secrets: await secretsOf(req.scope), allowPrivateHooks: ctx.config.allowPrivateHooks, traceIds: ids,
        sandbox: ctx.sandbox?.runner(req.scope.projectId),
        limits: {
          templates: { maxBytes: ctx.config.templateMaxBytes, maxSteps: ctx.config.templateMaxSteps },
          mockDelayMs: ctx.config.mockMaxDelayMs,
        },
      };
      const wantsStream = body.flags?.stream === true || (req.headers.accept ?? "").includes("text/event-stream");
      if (wantsStream) {
        reply.headers({ ...envelopeHeaders(ids, body.session_id ?? undefined), "content-type": "text/event-stream", "cache-control": "no-cache" });
        return reply.send(Readable.from(encodeSse(recorded(streamWorkflow(request), record))));
      }
      const result = await invokeWorkflow(request);
      await record({ code: 200 }, result.outputs, result);
      reply.headers(envelopeHeaders(ids, body.session_id ?? undefined));
      return successEnvelope(result.outputs, ids, body.session_id ?? undefined);
    } catch (error) {
      const failure = asWorkflowError(error);
      await record({ code: failure.statusCode, type: failure.type, message: failure.message }, null, undefined, failure.trace?.spans);
      return answerFailure(reply, failure, ids);
    }
  }

  function answerFailure(reply: FastifyReply, error: unknown, ids: { traceId: string; spanId: string }) {
    const failure = asWorkflowError(error);
    if (failure.statusCode >= 500) reply.log.error({ err: failure.cause ?? failure }, "invoke failed");
    reply.headers(envelopeHeaders(ids));
    if (failure.retryAfterSeconds !== undefined) reply.header("retry-after", String(failure.retryAfterSeconds));
    return reply.code(failure.statusCode).send(failureEnvelope(failure, ids));
  }
}

/** An invoke's success: the envelope as JSON, or the same invocation streamed as server-sent events. */
const InvokeAnswer = {
  description: "The invocation's envelope; with `Accept: text/event-stream` or `flags.stream: true`, its events as they come",
  content: { "application/json": { schema: SuccessEnvelopeSchema }, "text/event-stream": InvokeStreamContent },
};

/**
 * The answers of invoke and inspect: a failure is the runtime's envelope, or `{detail}` when the request
 * is refused before it reaches the runtime (a missing key, a malformed body).
 */
function envelopeAnswers(success: object): Record<number, object> {
  const failure = {
    description: "A failed invocation (envelope) or a refused request ({detail})",
    content: { "application/json": { schema: { anyOf: [FailureEnvelopeSchema, { $ref: "#/components/schemas/ErrorResponse" }] } } },
  };
  const out: Record<number, object> = { 200: success };
  for (const status of [400, 401, 404, 408, 409, 413, 415, 422, 424, 429, 500, 502, 503, 504]) out[status] = failure;
  return out;
}

/** Resolution errors (unknown revision, contradicting references) keep their status inside the envelope. */
function asWorkflowError(error: unknown): WorkflowError {
  if (error instanceof WorkflowError) return error;
  if (error instanceof HttpError && error.statusCode < 500) {
    return new WorkflowError(error.statusCode, ERROR_TYPES.invalidParameters, typeof error.detail === "string" ? error.detail : JSON.stringify(error.detail));
  }
  return toWorkflowError(error);
}

/** Passes events through and stores the trace when the stream ends. */
async function* recorded(
  events: AsyncGenerator<StreamEvent>,
  record: (status: TraceStatus, outputs: unknown, result?: WorkflowResult, spans?: Span[]) => Promise<unknown>,
) {
  try {
    for await (const event of events) {
      if (event.type === "done") await record({ code: 200 }, event.result.outputs, event.result);
      yield event;
    }
  } catch (error) {
    const failure = asWorkflowError(error);
    await record({ code: failure.statusCode, type: failure.type, message: failure.message }, null, undefined, failure.trace?.spans);
    throw failure;
  }
}
