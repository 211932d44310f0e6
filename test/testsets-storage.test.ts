import { randomBytes } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAccount } from "../src/accounts/accounts.ts";
import { createApiKey } from "../src/accounts/api-keys.ts";
import { loadConfig } from "../src/config.ts";
import type { Database, Queryable } from "../src/db/database.ts";
import { buildServer } from "../src/http/server.ts";
import { uuidv7 } from "../src/ids/uuid-v7.ts";
import { IdListWriter, loadIds, storePackedIds, unpackIds } from "../src/testsets/chunk-lists.ts";
import { CHUNK_DIVISOR } from "../src/testsets/chunks.ts";
import { openTestDatabase } from "./support/server.ts";

/**
 * The real server on a real database, whose commit transactions are counted: rows and bytes the
 * queries return (what a commit reads) — instrumentation, not a stand-in.
 */
let db: Database;
let app: FastifyInstance;
const reads = { rows: 0, bytes: 0 };

function counted(tx: Queryable): Queryable {
  return {
    copyFrom: tx.copyFrom?.bind(tx),
    copyBytes: tx.copyBytes,
    async query<T>(sql: string, params?: unknown[]) {
      const rows = await tx.query<T>(sql, params);
      reads.rows += rows.length;
      for (const row of rows as Record<string, unknown>[]) {
        for (const v of Object.values(row)) reads.bytes += v instanceof Uint8Array ? v.length : typeof v === "string" ? v.length : 8;
      }
      return rows;
    },
  };
}

beforeAll(async () => {
  db = await openTestDatabase();
  const instrumented = new Proxy(db, {
    get(target, key) {
      if (key === "transaction") return <T>(work: (tx: Queryable) => Promise<T>) => target.transaction((tx) => work(counted(tx)));
      const value = Reflect.get(target, key);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  const config = { ...loadConfig(process.env), databaseUrl: process.env.DATABASE_URL ?? null, dataDir: "/nonexistent", bodyLimit: 64 * 1024 ** 2 };
  app = await buildServer({ config, db: instrumented }, { logger: false });
  await app.ready();
});
afterAll(async () => {
  await app.close();
  await db.close();
});

async function project() {
  const account = await db.transaction((tx) => createAccount(tx, { user: { email: `user-${uuidv7()}@test.local` } }, true));
  const { key } = await createApiKey(db, account.project.id, account.user.id);
  const ok = async (method: "GET" | "POST", path: string, body?: unknown) => {
    const res = await app.inject({ method, url: `/api${path}`, headers: { authorization: `ApiKey ${key}` }, ...(body ? { payload: body as object } : {}) });
    if (res.statusCode !== 200) throw new Error(`${method} ${path} → ${res.statusCode}: ${res.body}`);
    return res.json();
  };
  const upload = async (path: string, csv: string) => {
    const boundary = `----tessera${uuidv7()}`;
    const payload = `--${boundary}\r\nContent-Disposition: form-data; name="file_type"\r\n\r\ncsv\r\n`
      + `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\n`
      + `Content-Type: text/csv\r\n\r\n${csv}\r\n--${boundary}--\r\n`;
    const headers = { authorization: `ApiKey ${key}`, "content-type": `multipart/form-data; boundary=${boundary}` };
    const res = await app.inject({ method: "POST", url: `/api${path}`, headers, payload });
    if (res.statusCode !== 200) throw new Error(`POST ${path} → ${res.statusCode}: ${res.body}`);
    return res.json();
  };
  return { id: account.project.id, ok, upload };
}

const rows = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => ({ data: { q: `${prefix}${i}` } }));

/** What the project's id storage holds: leaf chunks, chunk lists and index rows. */
async function stored(projectId: string) {
  const [r] = await db.query<{ chunks: number; chunk_bytes: number; lists: number; list_bytes: number; index_rows: number }>(
    `SELECT (SELECT count(*)::int FROM testcase_chunks WHERE project_id = $1) AS chunks,
            (SELECT coalesce(sum(length(ids)), 0)::int FROM testcase_chunks WHERE project_id = $1) AS chunk_bytes,
            (SELECT count(*)::int FROM testcase_chunk_lists WHERE project_id = $1) AS lists,
            (SELECT coalesce(sum(length(entries)), 0)::int FROM testcase_chunk_lists WHERE project_id = $1) AS list_bytes,
            (SELECT count(*)::int FROM testcase_chunk_index WHERE project_id = $1) AS index_rows`,
    [projectId],
  );
  return r;
}

/** A revision's ids as a client reads them: those retrieve inlines, then the rest paged from its hint. */
async function idsOf(p: Awaited<ReturnType<typeof project>>, revisionId: string): Promise<string[]> {
  const data = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: revisionId }, include_testcases: false })).testset_revision.data;
  const ids: string[] = [...data.testcase_ids];
  let windowing = data.testcases_windowing ? { next: data.testcases_windowing.next, limit: 1_000 } : null;
  while (windowing) {
    const page = await p.ok("POST", "/testcases/query", { testset_revision_ref: { id: revisionId }, windowing });
    ids.push(...page.testcases.map((t: { id: string }) => t.id));
    windowing = page.windowing;
  }
  return ids;
}

/** What a 10-row delta (9 added at the end, 1 replaced in the middle) writes and reads on a testset of `size` rows. */
async function deltaCost(size: number) {
  const p = await project();
  const created = await p.ok("POST", "/testsets/revisions/commit", {
    testset_revision_commit: { testset_variant_id: (await p.ok("POST", "/simple/testsets/", { testset: { slug: `t${size}` } })).testset.variant_id, data: { testcases: rows(size, "r") } },
  });
  const base = created.testset_revision;
  const baseIds: string[] = await idsOf(p, base.id);
  const before = await stored(p.id);
  const middle = baseIds[Math.floor(size / 2)];
  reads.rows = reads.bytes = 0;
  const rev = (await p.ok("POST", "/testsets/revisions/commit", {
    testset_revision_commit: { testset_revision_id: base.id, testset_variant_id: base.variant_id, delta: { rows: { add: rows(9, "new"), replace: [{ id: middle, data: { q: "edited" } }] } } },
  })).testset_revision;
  const read = { ...reads };
  const after = await stored(p.id);
  const ids = await idsOf(p, rev.id);
  expect(ids).toHaveLength(size + 9);
  expect(ids.slice(0, size).filter((id, i) => id !== baseIds[i])).toHaveLength(1);
  expect(ids.indexOf(middle)).toBe(-1);
  return {
    size,
    newChunks: after.chunks - before.chunks,
    newBytes: after.chunk_bytes - before.chunk_bytes + after.list_bytes - before.list_bytes,
    newLists: after.lists - before.lists,
    newIndexRows: after.index_rows - before.index_rows,
    totalBytes: before.chunk_bytes,
    recordBytes: (await db.query<{ n: number }>("SELECT length(data::text)::int AS n FROM revisions WHERE id = $1", [rev.id]))[0].n,
    read,
  };
}

describe("testset revision storage", () => {
  it("a 10-row delta writes and reads about the same on 1,000 and 50,000 rows", async () => {
    const small = await deltaCost(1_000);
    const large = await deltaCost(50_000);
    console.log("delta cost", JSON.stringify({ small, large }));
    expect(large.totalBytes).toBeGreaterThanOrEqual(50_000 * 16);
    // Only the chunks around the edit and at the end are new; boundaries depend on the (random)
    // testset id, so chunk sizes vary run to run: the bounds are constants, not ratios of runs.
    // A chunk list changes around the edit and at the end, and each may take its neighbour along
    // when a changed chunk's hash moves a list boundary (one CI run wrote 3).
    const chunkCap = 6 * CHUNK_DIVISOR * 8 * 16;
    for (const cost of [small, large]) {
      expect(cost.newChunks).toBeLessThanOrEqual(6);
      expect(cost.newLists).toBeLessThanOrEqual(4);
      expect(cost.newBytes).toBeLessThanOrEqual(chunkCap);
      expect(cost.newIndexRows).toBeLessThanOrEqual(6 * CHUNK_DIVISOR * 8);
      expect(cost.recordBytes).toBeLessThan(2_000);
      // The commit reads its chunk lists and the chunks it edits, never the whole id list.
      expect(cost.read.bytes).toBeLessThan(chunkCap + 200_000);
    }
    expect(large.read.bytes).toBeLessThan(large.totalBytes / 2);
    // A tenth was too tight for the boundaries of some ids: one CI run wrote 82,904 bytes of about 800,000.
    expect(large.newBytes).toBeLessThan(large.totalBytes / 8);
  }, 300_000);

  it("random deltas keep the id list exact across chunk boundaries", async () => {
    const p = await project();
    const created = (await p.ok("POST", "/simple/testsets/", { testset: { slug: "random", data: { testcases: rows(3_000, "r") } } })).testset;
    await randomDeltas(p, created.revision_id, created.variant_id);
  }, 120_000);

  it("random deltas after uploads find rows through the chunk each uploaded testcase names", async () => {
    const p = await project();
    const csv = (qs: string[]) => `q\n${qs.join("\n")}\n`;
    const first = Array.from({ length: 3_000 }, (_, i) => `u${i}`);
    const created = (await p.upload("/simple/testsets/upload", csv(first))).testset;
    // A new upload's testcases name their chunks: no index row is written for them.
    expect((await stored(p.id)).index_rows).toBe(0);
    const [named] = await db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM testcases WHERE project_id = $1 AND chunk_key IS NOT NULL", [p.id]);
    expect(named.n).toBe(3_000);
    // Half of the rows again, in another order and so in other chunks, and new ones: the stored rows get index rows.
    const again = [...first.slice(0, 1_500).reverse(), ...Array.from({ length: 1_500 }, (_, i) => `v${i}`)];
    const next = (await p.upload(`/simple/testsets/${created.id}/upload`, csv(again))).testset;
    expect((await stored(p.id)).index_rows).toBeGreaterThanOrEqual(1_400);
    expect(next.revision_id).not.toBe(created.revision_id);
    await randomDeltas(p, next.revision_id, next.variant_id);
  }, 120_000);
});

/** Eight commits of random removals, additions and replacements, each checked against the list it should make. */
async function randomDeltas(p: Awaited<ReturnType<typeof project>>, revisionId: string, variantId: string) {
  let model: string[] = await idsOf(p, revisionId);
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let step = 0; step < 8; step++) {
    const removed = Array.from({ length: 1 + random(40) }, () => model[random(model.length)]);
    const kept = model.filter((id) => !removed.includes(id));
    const added = random(30);
    const replaced = [kept[random(kept.length)], kept[random(kept.length)]].filter((id, i, a) => a.indexOf(id) === i);
    const rev = (await p.ok("POST", "/testsets/revisions/commit", {
      testset_revision_commit: {
        testset_revision_id: revisionId, testset_variant_id: variantId,
        delta: { rows: { remove: removed, add: rows(added, `s${step}-`), replace: replaced.map((id, i) => ({ id, data: { q: `s${step}-edit${i}` } })) } },
      },
    })).testset_revision;
    const ids = await idsOf(p, rev.id);
    const replacedAt = replaced.map((id) => kept.indexOf(id));
    const expected = kept.map((id, i) => (replacedAt.includes(i) ? ids[i] : id));
    expect(ids.slice(0, kept.length)).toEqual(expected);
    expect(ids).toHaveLength(kept.length + added);
    for (const at of replacedAt) expect(ids[at]).not.toBe(kept[at]);
    model = ids;
    revisionId = rev.id;
  }
  const full = (await p.ok("POST", "/testsets/revisions/retrieve", { testset_revision_ref: { id: revisionId } })).testset_revision;
  expect(full.data.testcases.map((t: { id: string }) => t.id)).toEqual(model);
}


describe("an id list stored as it arrives", () => {
  it("gives the same chunks and lists as the whole list stored at once, whatever the pieces", async () => {
    const p = await project();
    const packed = randomBytes(16 * 20_000);
    const whole = await db.transaction((tx) => storePackedIds(tx, p.id, packed));
    for (const pieces of [[20_000], [1, 4_999, 15_000], [333, 333, 333, 19_001]]) {
      const stored = await db.transaction(async (tx) => {
        const writer = new IdListWriter(p.id);
        let at = 0;
        for (const n of pieces) {
          await writer.add(tx, packed.subarray(at * 16, (at + n) * 16));
          at += n;
        }
        return writer.finish(tx);
      });
      expect(stored).toEqual(whole);
    }
    expect(await loadIds(db, p.id, whole)).toEqual(unpackIds(packed));
  });
});
