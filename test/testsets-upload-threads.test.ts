import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpError } from "../src/errors.ts";
import { unpackIds, storePackedIds } from "../src/testsets/chunk-lists.ts";
import { chunkKey, chunkPacked, hashChunks } from "../src/testsets/chunks.ts";
import { ColumnCounts } from "../src/testsets/columns.ts";
import { readRows, type FileType } from "../src/testsets/import.ts";
import { BlockBuilder, ID_RANGES, rangeOfHex, type RowBlock } from "../src/testsets/row-block.ts";
import { RowPool } from "../src/testsets/row-pool.ts";
import { DedupIds } from "../src/testsets/testcase-id.ts";
import { PackedIds, pendTestcase } from "../src/testsets/testcases.ts";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * The upload threads (src/testsets/row-thread.ts) against the same work done on this thread, as uploads did it before
 * threads: the same blocks of COPY lines (ids, canonical data, flags, tags, meta, owner; claimed ids aside), the same
 * testcase ids in order, the same columns, the same stored revision; and a bad row refused with the same status and detail.
 */
let server: TestServer;
let p: TestProject;
const pool = new RowPool(2);

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});
afterAll(async () => {
  await pool.close();
  await server.close();
});

const TESTSET = "01900000-0000-7000-8000-0000000000aa";
const OWNER = { projectId: "01900000-0000-7000-8000-0000000000bb", testsetId: TESTSET, userId: null };
const CLAIMED = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";

/** Rows of every kind: repeated ones (numbered dedup ids), given dedup ids, claimed ids, metadata, odd text. */
function records(n: number): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < n; i++) {
    const kind = i % 7;
    if (kind === 0) out.push({ question: "same", answer: "again" });
    else if (kind === 1) {
      out.push({ question: `q ${i}, "quoted"\nnext line`, answer: `é ${i} 😀 \\ back`, __tags__: { n: i } });
    }
    else if (kind === 2) out.push({ question: `q${i}`, __dedup_id__: `given-${i}` });
    else if (kind === 3) out.push({ question: `q${i}`, __id__: CLAIMED, __flags__: { hot: true } });
    else if (kind === 4) out.push({ question: `q${i}`, answer: "", __meta__: { src: "atlas", k: [1, 2] } });
    else if (kind === 5) out.push({ question: "same", answer: "again" });
    else out.push({ b: `${i}`, a: `${i}`, testcase_dedup_id: i % 2 ? "" : `own-${i}` });
  }
  return out;
}

const cell = (v: unknown) => {
  const text = typeof v === "string" ? v : v === undefined ? "" : JSON.stringify(v);
  return /[",\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
};

function csvOf(rows: Record<string, unknown>[]): string {
  const header = [...new Set(rows.flatMap((r) => Object.keys(r)))];
  return [header.join(","), ...rows.map((r) => header.map((h) => cell(r[h])).join(","))].join("\n") + "\n";
}

/** JSON files keep nested values (CSV cells are text): the same rows with a nested `data`-like column. */
const nested = (rows: Record<string, unknown>[]) =>
  rows.map((r, i) => (i % 3 ? r : { ...r, inputs: { list: [i, 1.5, null, { deep: "x" }], flag: false } }));
// Indented: whitespace between elements must not matter.
const jsonOf = (rows: Record<string, unknown>[]) => JSON.stringify(nested(rows), null, 1);
const jsonlOf = (rows: Record<string, unknown>[]) => nested(rows).map((r) => JSON.stringify(r)).join("\n\n") + "\n";

/** The file in pieces of `size` bytes (pieces end anywhere: mid-row, mid-character). */
const pieces = (text: string, size = 997) => {
  const bytes = Buffer.from(text);
  const out: Buffer[] = [];
  for (let o = 0; o < bytes.length; o += size) out.push(bytes.subarray(o, o + size));
  return out;
};

/** A block as the test compares it: its text and its claimed rows. */
const readable = (block: RowBlock) => ({ range: block.range, text: Buffer.from(block.copy).toString(), claimed: block.claimed });

/** What an upload computed on the request's thread before upload threads existed, in the threads' blocks. */
async function onThisThread(text: string, fileType: FileType, testsetId: string) {
  const dedup = new DedupIds();
  const ids = new PackedIds();
  const columns = new ColumnCounts();
  const builders = Array.from({ length: ID_RANGES }, (_, range) => new BlockBuilder({ ...OWNER, testsetId }, range));
  const blocks: ReturnType<typeof readable>[] = [];
  const pendings = [];
  for await (const row of readRows(Readable.from(pieces(text)), fileType)) pendings.push(pendTestcase(row, testsetId, dedup, ids, columns));
  // Each row names the chunk of the file's id list it is in, unless a row of that chunk claims an id.
  const homes: string[] = [];
  let at = 0;
  for (const chunk of hashChunks(chunkPacked(ids.bytes))) {
    const rows = pendings.slice(at, (at += chunk.count));
    const key = rows.some((r) => r.claimed) ? null : chunkKey(chunk.hash);
    if (key) homes.push(chunk.hash);
    for (const pending of rows) {
      const id = ids.bytes.toString("hex", pending.at * 16, pending.at * 16 + 16);
      const builder = builders[rangeOfHex(id)];
      if (builder.add(pending, id, key)) blocks.push(readable(builder.take()));
    }
  }
  for (const builder of builders) if (!builder.empty) blocks.push(readable(builder.take()));
  return { blocks, ids: ids.bytes, columns: columns.stored(), homes: new Set(homes) };
}

async function onThreads(text: string, fileType: FileType, testsetId: string) {
  const blocks: ReturnType<typeof readable>[] = [];
  const got = await pool.identify(Readable.from(pieces(text)), fileType, { ...OWNER, testsetId }, async (block) => {
    blocks.push(readable(block));
  });
  return { blocks, ids: got.ids.bytes, columns: got.columns.stored(), homes: got.homes };
}

const failure = async (work: Promise<unknown>) => {
  try {
    await work;
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    return { status: (error as HttpError).statusCode, detail: (error as HttpError).detail };
  }
  throw new Error("no failure");
};

function multipart(fields: Record<string, string>, name: string, content: string) {
  const boundary = `----tessera${Math.random().toString(16).slice(2)}`;
  const parts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n`
    + `Content-Type: application/octet-stream\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return { payload: parts.join(""), headers: { "content-type": `multipart/form-data; boundary=${boundary}` } };
}

const upload = (fields: Record<string, string>, name: string, content: string) => {
  const { payload, headers } = multipart(fields, name, content);
  return p.call("POST", "/simple/testsets/upload", payload, headers);
};

const FILES: [FileType, (rows: Record<string, unknown>[]) => string][] = [
  ["csv", csvOf], ["json", jsonOf], ["jsonl", jsonlOf],
];

describe("upload threads", () => {
  for (const [fileType, make] of FILES) {
    it(`identify ${fileType} rows exactly as the request's thread did`, async () => {
      const text = make(records(4_500));
      const before = await onThisThread(text, fileType, TESTSET);
      const now = await onThreads(text, fileType, TESTSET);
      const lines = before.blocks.reduce((n, b) => n + b.text.split("\n").length - 1, 0);
      expect(lines + before.blocks.reduce((n, b) => n + b.claimed.length, 0)).toBe(4_500);
      expect(before.blocks.flatMap((b) => b.claimed)).toHaveLength(643); // every seventh row, from the fourth
      expect(now.blocks).toEqual(before.blocks);
      expect(Buffer.compare(now.ids, before.ids)).toBe(0);
      expect(now.columns).toEqual(before.columns);
      expect(now.homes).toEqual(before.homes);
      // Repeated rows got numbered dedup ids, not one id.
      expect(new Set(unpackIds(now.ids)).size).toBe(4_500);
    });

    it(`name each ${fileType} row's chunk when no row of the chunk claims an id`, async () => {
      const text = make(records(6_000).filter((r) => !("__id__" in r)));
      const before = await onThisThread(text, fileType, TESTSET);
      const now = await onThreads(text, fileType, TESTSET);
      expect(before.homes.size).toBeGreaterThan(4);
      expect(now.homes).toEqual(before.homes);
      expect(now.blocks).toEqual(before.blocks);
    });

    it(`store a ${fileType} upload with the ids, columns and revision the request's thread computes`, async () => {
      const text = make(records(3_000));
      const slug = `threads-${fileType}-${Date.now()}`;
      const res = await upload({ file_type: fileType, testset_slug: slug }, `f.${fileType}`, text);
      expect(res.statusCode, res.body).toBe(200);
      const testset = res.json().testset;
      const before = await onThisThread(text, fileType, testset.id);
      expect(testset.data.testcase_ids).toEqual(unpackIds(before.ids));
      const [revision] = await server.db.query<{ data: Record<string, unknown> }>(
        "SELECT data FROM revisions WHERE id = $1", [testset.revision_id]);
      const expected = await server.db.transaction((tx) => storePackedIds(tx, p.id, before.ids));
      expect(revision.data).toEqual({ ...expected, ...before.columns });
    });
  }

  const bad: [string, FileType, string, number][] = [
    ["a row whose __tags__ is not JSON", "csv", csvOf([...records(2_500), { question: "x", __tags__: "{not" }]), 422],
    ["malformed CSV far into the file", "csv", `${csvOf(records(2_500))}"open,quote\n`, 422],
    ["a JSON array element that is not an object", "json", jsonOf([...records(2_500), 7 as never]), 422],
    ["a JSON Lines line that is not JSON", "jsonl", `${jsonlOf(records(2_500))}{"a":\n`, 422],
    ["a JSON Lines row nested too deep", "jsonl", `${jsonlOf(records(10))}${"[".repeat(5e3)}${"]".repeat(5e3)}\n`, 422],
    ["a JSON row claiming a malformed __id__", "json", jsonOf([...records(2_500), { q: 1, __id__: "nope" }]), 422],
  ];
  for (const [what, fileType, text, status] of bad) {
    it(`refuse ${what} with the request's thread's status and detail`, async () => {
      const before = await failure(onThisThread(text, fileType, TESTSET));
      expect(before.status).toBe(status);
      expect(JSON.stringify(before.detail)).toMatch(/row|line/);
      expect(await failure(onThreads(text, fileType, TESTSET))).toEqual(before);
      const res = await upload({ file_type: fileType, testset_slug: `bad-${Date.now()}` }, `f.${fileType}`, text);
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json().detail).toEqual(before.detail);
    });
  }

  it("refuse a cell over the limit read when the upload starts (413 naming the row and column)", async () => {
    const text = csvOf([...records(100), { question: "x".repeat(5_000) }]);
    const saved = process.env.TESSERA_CELL_LIMIT;
    process.env.TESSERA_CELL_LIMIT = "4096";
    try {
      const before = await failure(onThisThread(text, "csv", TESTSET));
      expect(before.status).toBe(413);
      expect(await failure(onThreads(text, "csv", TESTSET))).toEqual(before);
    } finally {
      if (saved === undefined) delete process.env.TESSERA_CELL_LIMIT;
      else process.env.TESSERA_CELL_LIMIT = saved;
    }
  });

  it("run an upload's parsing and identifying on one thread when the pool has one", async () => {
    const single = new RowPool(1);
    try {
      const text = csvOf(records(4_500));
      const blocks: ReturnType<typeof readable>[] = [];
      const keep = async (block: RowBlock) => void blocks.push(readable(block));
      const got = await single.identify(Readable.from(pieces(text)), "csv", OWNER, keep);
      const before = await onThisThread(text, "csv", TESTSET);
      expect(blocks).toEqual(before.blocks);
      expect(Buffer.compare(got.ids.bytes, before.ids)).toBe(0);
    } finally {
      await single.close();
    }
  });

  it("stop parsing a file whose blocks cannot be kept, and go on serving the next uploads", async () => {
    // Far more rows than are identified before the first blocks are full, and the parsing thread may run ahead of it.
    const all = pieces(csvOf(records(120_000)), 64 * 1024);
    let read = 0;
    async function* file() {
      for (const piece of all) {
        read++;
        yield piece;
      }
    }
    let blocks = 0;
    const refused = pool.identify(file(), "csv", OWNER, async () => {
      if (++blocks === 3) throw new HttpError(507, "The upload's spool is full");
    });
    expect(await failure(refused)).toEqual({ status: 507, detail: "The upload's spool is full" });
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(read).toBeLessThan(all.length / 2);
    const small = csvOf(records(50));
    expect((await onThreads(small, "csv", TESTSET)).blocks).toEqual((await onThisThread(small, "csv", TESTSET)).blocks);
  });

  it("fail an upload whose body fails, and go on serving the next ones", async () => {
    async function* broken() {
      yield Buffer.from("q,a\n1,2\n");
      throw new HttpError(400, "The multipart body ended early");
    }
    expect(await failure(pool.identify(broken(), "csv", OWNER, async () => {}))).toEqual({
      status: 400, detail: "The multipart body ended early",
    });
    const text = csvOf(records(50));
    expect((await onThreads(text, "csv", TESTSET)).blocks).toEqual((await onThisThread(text, "csv", TESTSET)).blocks);
  });
});
