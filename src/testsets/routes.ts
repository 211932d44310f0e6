import { Readable } from "node:stream";
import multipart, { type MultipartFile } from "@fastify/multipart";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { Scope } from "../accounts/scope.ts";
import type { AppContext } from "../context.ts";
import type { Queryable } from "../db/database.ts";
import { badRequest, HttpError, notFound, unprocessable } from "../errors.ts";
import { attachment } from "../http/content-disposition.ts";
import { documentationOnly } from "../http/openapi.ts";
import { IdParam } from "../schema-parts.ts";
import { testsets } from "../kinds/testsets.ts";
import { uuidv7 } from "../ids/uuid-v7.ts";
import { findArtifact } from "../versioning/artifacts.ts";
import { commitRevision } from "../versioning/commit.ts";
import type { ReadContext } from "../versioning/kind.ts";
import { revisionRecord } from "../versioning/records.ts";
import { findRevision, latestRevision } from "../versioning/revisions.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { createSimple, editSimple, getSimple } from "../versioning/simple.ts";
import { defaultVariant } from "../versioning/variants.ts";
import type { StoredIds } from "./chunk-lists.ts";
import { exportRevision } from "./export.ts";
import type { ResolvedIds } from "./delta.ts";
import { FILE_TYPES, type FileType } from "./import.ts";
import { DownloadQuery, TestcaseResponse, TestcasesListQuery, TestcasesQuerySchema, TestcasesResponse } from "./schemas.ts";
import { uploadLimit } from "./limits.ts";
import { RowPool } from "./row-pool.ts";
import { receiveFile, storeReceived, type ReceivedUpload } from "./spooled-upload.ts";
import { answerUpload, type UploadProgress } from "./upload-progress.ts";
import { queryTestcases } from "./testcase-query.ts";
import { loadTestcases, testcaseRecord } from "./testcases.ts";

type Body = Record<string, any>;

const text = (description: string) => ({ type: "string", description });
const FileParts = {
  file: { type: "string", format: "binary", description: "The CSV, JSON or JSON Lines file (send the other fields before it)" },
  file_type: { type: "string", enum: ["csv", "json", "jsonl"], description: "Defaults to the file name's extension, else csv" },
};
const SimpleParts = {
  ...FileParts,
  testset_name: text("Name (a new testset defaults to the file name)"),
  testset_slug: text("Slug (a new testset defaults to the file name)"),
  testset_description: text("Description"),
  testset_tags: text("Tags as a JSON object"),
  testset_meta: text("Meta as a JSON object"),
};
const RevisionParts = { ...FileParts, message: text("Commit message (default Upload)"), include_testcases: { type: "string", enum: ["true", "false"] } };
const multipartForm = (parts: object) => ({ consumes: ["multipart/form-data"], body: { type: "object", required: ["file"], properties: parts } });
const DOWNLOAD = {
  200: {
    description: "The revision's testcases as a file (content-disposition: attachment)",
    content: {
      "text/csv": { schema: { type: "string" } },
      "application/json": { schema: { type: "array", items: { type: "object", additionalProperties: true } } },
      "application/jsonl": { schema: { type: "string" } },
    },
  },
};

const CONTENT_TYPE: Record<FileType, string> = {
  csv: "text/csv; charset=utf-8",
  json: "application/json; charset=utf-8",
  jsonl: "application/jsonl; charset=utf-8",
};

interface Upload {
  file: MultipartFile;
  /** The file's content; a multipart body cut short fails it with a 400. */
  content: Readable;
  fileType: FileType;
  field(name: string): string | undefined;
}

/** The multipart parser's own failures (no boundary, a body cut short) come from the client: a 400. */
const malformed = (error: unknown) => typeof (error as { statusCode?: unknown }).statusCode === "number"
  ? error
  : badRequest(`Malformed multipart/form-data body: ${(error as Error).message}`);

async function upload(req: FastifyRequest): Promise<Upload> {
  if (!req.isMultipart()) throw unprocessable([{ loc: ["body"], msg: "Send the file as multipart/form-data", type: "value_error" }]);
  const file = await req.file({ limits: { fileSize: uploadLimit(), files: 1 } }).catch((error: unknown) => {
    throw malformed(error);
  });
  if (!file) throw unprocessable([{ loc: ["body", "file"], msg: "Field required", type: "missing" }]);
  // A part cut short is reported on the file stream alone, maybe before anyone reads it: the stream is
  // then ended with the error, and the content is read lazily, so its reader meets the error either way.
  file.file.once("error", (error) => file.file.destroy(malformed(error) as Error));
  const content = Readable.from((async function* () {
    try {
      yield* file.file;
    } catch (error) {
      throw malformed(error);
    }
  })(), { objectMode: false });
  // Fields are read up to the file part: clients must send them before it (as browsers and requests do).
  const field = (name: string) => {
    const f = file.fields[name] as { type?: string; value?: unknown } | undefined;
    return f && f.type === "field" && f.value !== "" ? String(f.value) : undefined;
  };
  const byName = /\.(jsonl|ndjson)$/i.test(file.filename) ? "jsonl" : /\.json$/i.test(file.filename) ? "json" : "csv";
  const named = field("file_type") ?? (req.query as Body)?.file_type ?? byName;
  if (!FILE_TYPES.includes(named)) {
    file.file.resume();
    const msg = `Input should be one of "csv", "json", "jsonl", got ${JSON.stringify(named)}`;
    throw unprocessable([{ loc: ["body", "file_type"], msg, type: "enum" }]);
  }
  return { file, content, fileType: named as FileType, field };
}

const jsonField = (value: string | undefined, name: string) => {
  if (value === undefined) return undefined;
  try {
    return JSON.parse(value) as Record<string, unknown>;
  } catch {
    throw unprocessable([{ loc: ["body", name], msg: `${name} must be a JSON object`, type: "json_invalid" }]);
  }
};

/**
 * Receives and parses the whole file first (holding no transaction while the client sends it), writes its testcases
 * in short transactions, then runs `commit` in one short transaction of its own: the revision appears whole or not
 * at all. A failure drains the rest of the file.
 */
async function withUpload<T>(
  ctx: AppContext, pool: RowPool, scope: Scope, u: Upload, testsetId: string,
  commit: (tx: Queryable, data: ResolvedIds) => Promise<T>, progress: UploadProgress | null = null,
): Promise<T> {
  const tooLarge = () => new HttpError(413, `The file is larger than the upload limit of ${uploadLimit()} bytes (TESSERA_UPLOAD_LIMIT)`);
  let received: ReceivedUpload | undefined;
  try {
    received = await receiveFile(pool, u.content, u.fileType, scope, testsetId);
    if (u.file.file.truncated) throw tooLarge();
  } catch (error) {
    u.file.file.resume();
    if ((error as { code?: string }).code === "FST_REQ_FILE_TOO_LARGE" || u.file.file.truncated) throw tooLarge();
    throw error;
  }
  try {
    progress?.storing(received.ids.count);
    const data = await storeReceived(ctx.db, scope, received, (rows) => progress?.stored(rows));
    progress?.committing();
    return await ctx.db.transaction((tx) => commit(tx, data));
  } finally {
    await received.spool.close();
  }
}

/** Testcase reads, and testsets to and from CSV / JSON files. */
export async function testsetFileRoutes(app: FastifyInstance, ctx: AppContext) {
  await app.register(multipart, { limits: { files: 1 } });
  const pool = new RowPool(ctx.config.uploadWorkers);
  app.addHook("onClose", () => pool.close());
  const tags = ["Testsets"];
  const read = (req: FastifyRequest, options: Record<string, unknown> = {}): ReadContext => ({ db: ctx.db, scope: req.scope, config: ctx.config, options });
  const simple = async (req: FastifyRequest, id: string) => ({ count: 1, testset: await getSimple(read(req), testsets, id) });

  // ---- testcases
  app.get("/testcases/:id", { schema: { tags: ["Testcases"], summary: "Fetch a testcase", params: IdParam("id"), response: { 200: TestcaseResponse } } }, async (req) => {
    const id = (req.params as Body).id.toLowerCase();
    const [row] = await loadTestcases(ctx.db, req.scope.projectId, [id]);
    if (!row) throw notFound(`Testcase ${id} not found`);
    return { count: 1, testcase: testcaseRecord(row) };
  });
  app.get("/testcases/", { schema: { tags: ["Testcases"], summary: "List testcases", querystring: TestcasesListQuery, response: { 200: TestcasesResponse } } }, async (req) => {
    const q = req.query as Body;
    const ids = [...(q.testcase_id ?? []), ...(q.testcase_ids ? String(q.testcase_ids).split(",").map((s) => s.trim()).filter(Boolean) : [])];
    return queryTestcases(ctx.db, req.scope, { testsetId: q.testset_id, testcaseIds: ids, limit: q.limit, next: q.next });
  });
  app.post("/testcases/query", { schema: { tags: ["Testcases"], summary: "Query testcases", body: TestcasesQuerySchema, response: { 200: TestcasesResponse } } }, async (req) => {
    const b = (req.body ?? {}) as Body;
    return queryTestcases(ctx.db, req.scope, {
      testcaseIds: b.testcase_ids, testsetId: b.testset_id, testsetRef: b.testset_ref, variantRef: b.testset_variant_ref, revisionRef: b.testset_revision_ref,
      limit: b.windowing?.limit, next: b.windowing?.next, offset: b.windowing?.offset,
    });
  });

  // ---- uploads
  app.post("/simple/testsets/upload", {
    schema: { tags, summary: "Create a simple testset from a CSV or JSON file", consumes: ["multipart/form-data"] },
    config: documentationOnly(multipartForm(SimpleParts)),
  }, async (req, reply) => answerUpload(req, reply, async (progress) => {
    const u = await upload(req);
    const base = u.file.filename?.replace(/\.[^.]*$/, "") || undefined;
    const testsetId = uuidv7();
    const id = await withUpload(ctx, pool, req.scope, u, testsetId, (tx, data) => createSimple(tx, req.scope, testsets, {
      slug: u.field("testset_slug") ?? (u.field("testset_name") ? undefined : base),
      name: u.field("testset_name") ?? base ?? null,
      description: u.field("testset_description") ?? null,
      tags: jsonField(u.field("testset_tags"), "testset_tags"),
      meta: jsonField(u.field("testset_meta"), "testset_meta"),
      data,
      message: "Upload",
    }, undefined, testsetId), progress);
    return simple(req, id);
  }));
  app.post("/simple/testsets/:id/upload", {
    schema: {
      tags, summary: "Commit a simple testset's next revision from a file", params: IdParam("id"),
      consumes: ["multipart/form-data"],
    },
    config: documentationOnly(multipartForm(SimpleParts)),
  }, async (req, reply) => answerUpload(req, reply, async (progress) => {
    const id = (req.params as Body).id;
    const artifact = await findArtifact(ctx.db, req.scope, testsets, { id });
    const u = await upload(req);
    await withUpload(ctx, pool, req.scope, u, artifact.id, (tx, data) => editSimple(tx, req.scope, testsets, id, {
      name: u.field("testset_name"), description: u.field("testset_description"),
      tags: jsonField(u.field("testset_tags"), "testset_tags"), meta: jsonField(u.field("testset_meta"), "testset_meta"),
      data,
    }), progress);
    return simple(req, id);
  }));
  app.post("/testsets/revisions/:id/upload", {
    schema: {
      tags, summary: "Commit a revision from a file on that revision's variant", params: IdParam("id"),
      consumes: ["multipart/form-data"],
    },
    config: documentationOnly(multipartForm(RevisionParts)),
  }, async (req, reply) => answerUpload(req, reply, async (progress) => {
    const base = await findRevision(ctx.db, req.scope, testsets, { id: (req.params as Body).id });
    const u = await upload(req);
    const message = u.field("message") ?? "Upload";
    const commit = (tx: Queryable, data: ResolvedIds) =>
      commitRevision(tx, req.scope, testsets, { variantId: base.variant_id, baseRevisionId: base.id, message, data });
    const row = await withUpload(ctx, pool, req.scope, u, base.artifact_id, commit, progress);
    const include = u.field("include_testcases");
    const options = { include_testcases: include === undefined ? undefined : include === "true" };
    return { count: 1, testset_revision: revisionRecord(testsets, row, await testsets.present!(row, read(req, options))) };
  }));

  // ---- downloads
  const download = async (req: FastifyRequest, reply: FastifyReply, revision: RevisionRow) => {
    const q = req.query as Body;
    const fileType: FileType = q.file_type ?? "csv";
    const fallback = `${revision.artifact_slug}-v${revision.version}.${fileType}`;
    const stored = revision.data as StoredIds | null;
    const body = await exportRevision(ctx.db, req.scope.projectId, revision.artifact_id, stored, fileType, {
      escapeFormulas: q.escape_formulas === true,
    });
    return reply
      .header("content-type", CONTENT_TYPE[fileType])
      .header("content-disposition", attachment(q.file_name || fallback, fallback))
      .send(body);
  };
  app.post("/simple/testsets/:id/download", { schema: { tags, summary: "Download a simple testset's latest revision", params: IdParam("id"), querystring: DownloadQuery }, config: documentationOnly({ response: DOWNLOAD }) }, async (req, reply) => {
    const artifact = await findArtifact(ctx.db, req.scope, testsets, { id: (req.params as Body).id });
    const revision = await latestRevision(ctx.db, req.scope, (await defaultVariant(ctx.db, req.scope, testsets, artifact.id)).id);
    if (!revision) throw notFound(`testset ${artifact.slug} has no revision yet`);
    return download(req, reply, revision);
  });
  app.post("/testsets/revisions/:id/download", { schema: { tags, summary: "Download a testset revision as CSV, JSON or JSON Lines", params: IdParam("id"), querystring: DownloadQuery }, config: documentationOnly({ response: DOWNLOAD }) }, async (req, reply) =>
    download(req, reply, await findRevision(ctx.db, req.scope, testsets, { id: (req.params as Body).id })));
}
