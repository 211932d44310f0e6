import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

/**
 * Uploads from clients that stall or give up half way, over a real socket (`inject` cannot stall): no
 * upload holds the database while its client is sending, so other projects' requests answer meanwhile
 * (on PostgreSQL, more stalled uploads than the pool has connections included), and a revision
 * appears whole or not at all.
 */
const POOL = 4; // the test database's pool size (test/support/server.ts)
let server: TestServer;
let url: string;
let uploader: TestProject;
let neighbour: TestProject;

beforeAll(async () => {
  server = await startTestServer();
  url = await server.app.listen({ port: 0, host: "127.0.0.1" });
  uploader = await server.project();
  neighbour = await server.project();
  const steady = { testset: { slug: "steady", data: { testcases: [{ data: { q: "1" } }] } } };
  await neighbour.ok("POST", "/simple/testsets/", steady);
});
afterAll(() => server.close());

interface Answer {
  status: number;
  body: any;
}

/**
 * A multipart upload whose head (fields, the file part's header and `first`) is sent at once; the rest
 * waits for `finish(rest)`, or the client goes away with `abort()`. `answer` settles when the server answers.
 */
function stalledUpload(project: TestProject, path: string, name: string, first: string) {
  const boundary = `----tessera${Math.random().toString(16).slice(2)}`;
  const req = request(`${url}/api${path}`, {
    method: "POST",
    headers: { authorization: `ApiKey ${project.key}`, "content-type": `multipart/form-data; boundary=${boundary}` },
  });
  const answer = new Promise<Answer>((resolve, reject) => {
    req.on("response", (res) => {
      const parts: Buffer[] = [];
      res.on("data", (part: Buffer) => parts.push(part));
      res.on("end", () => {
        const text = Buffer.concat(parts).toString();
        resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null });
      });
    });
    req.on("error", reject);
  });
  answer.catch(() => {});
  req.write(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n`
    + `Content-Type: text/csv\r\n\r\n${first}`);
  req.flushHeaders();
  return {
    answer,
    finish(rest: string) {
      req.end(`${rest}\r\n--${boundary}--\r\n`);
      return answer;
    },
    abort() {
      req.destroy();
    },
  };
}

/** Until the server has read what was sent so far (a request it has not read cannot be holding anything yet). */
const settle = () => new Promise((resolve) => setTimeout(resolve, 300));
/** How long a stalled client keeps its socket while the test waits for another request (the old behaviour: forever). */
const STALL_MS = 20_000;

/** Which settles first: `work`, or the stall (a client that keeps its socket `STALL_MS` longer). */
async function whileStalled<T>(work: Promise<T>): Promise<{ done: true; value: T } | { done: false }> {
  let timer: NodeJS.Timeout | undefined;
  const stall = new Promise<{ done: false }>((resolve) => {
    timer = setTimeout(() => resolve({ done: false }), STALL_MS);
  });
  try {
    return await Promise.race([work.then((value) => ({ done: true as const, value })), stall]);
  } finally {
    clearTimeout(timer);
  }
}

const neighbourRead = async () => {
  const res = await neighbour.call("POST", "/simple/testsets/query", {});
  return { status: res.statusCode, count: res.json().count as number };
};

const rows = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `${from + i},answer ${from + i}\n`).join("");

describe("a client that stalls mid-file", () => {
  it("holds nothing up: another project's read answers while one row has come and the rest has not", async () => {
    const upload = stalledUpload(uploader, "/simple/testsets/upload", "stalled.csv", `q,a\n${rows(0, 1)}`);
    await settle();
    const read = await whileStalled(neighbourRead());
    const done = await upload.finish(rows(1, 50));
    expect(read.done, "the read waited for the stalled upload").toBe(true);
    if (read.done) expect(read.value).toEqual({ status: 200, count: 1 });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.testset.data.testcases).toHaveLength(50);
  }, 60_000);

  it("holds nothing up with more stalled uploads than the database has connections: no 503, all answer", async () => {
    const uploads = Array.from({ length: POOL + 2 }, (_, n) =>
      stalledUpload(uploader, "/simple/testsets/upload", `crowd-${n}.csv`, `q,a\n${rows(0, 1)}`));
    await settle();
    const reads = Promise.all([neighbourRead(), neighbourRead(), uploader.call("GET", "/projects/current")]);
    const read = await whileStalled(reads);
    const done = await Promise.all(uploads.map((u) => u.finish(rows(1, 10))));
    expect(read.done, "the reads waited for the stalled uploads").toBe(true);
    if (read.done) {
      expect(read.value.slice(0, 2)).toEqual([{ status: 200, count: 1 }, { status: 200, count: 1 }]);
      expect(read.value[2].statusCode, read.value[2].body).toBe(200);
    }
    for (const d of done) expect(d.status, JSON.stringify(d.body)).toBe(200);
  }, 60_000);
});

describe("an upload is seen whole or not at all", () => {
  const target = async (slug: string) =>
    (await uploader.ok("POST", "/simple/testsets/", { testset: { slug, data: { testcases: [{ data: { q: "0" } }] } } }))
      .testset;
  const visible = async (testset: { id: string }) => {
    const latest = (await uploader.ok("GET", `/simple/testsets/${testset.id}`)).testset;
    const blobs = await uploader.ok("POST", "/testcases/query", { testset_id: testset.id });
    return { revision: latest.revision_id, rows: latest.data.testcases.length, blobs: blobs.count };
  };

  it("shows only the previous revision while an upload is under way, and the new one whole once it is in", async () => {
    const testset = await target(`during-${Date.now()}`);
    const before = await visible(testset);
    const upload = stalledUpload(uploader, `/simple/testsets/${testset.id}/upload`, "more.csv", `q,a\n${rows(0, 5)}`);
    await settle();
    const during = await whileStalled(visible(testset));
    const done = await upload.finish(rows(5, 3_000));
    expect(during.done, "the read waited for the stalled upload").toBe(true);
    if (during.done) expect(during.value).toEqual(before);
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const after = await visible(testset);
    expect(after.revision).not.toBe(before.revision);
    expect(after.rows).toBe(3_000);
  }, 60_000);

  it("leaves no revision and no testcase after a bad row at the end of a large file", async () => {
    const testset = await target(`bad-end-${Date.now()}`);
    const before = await visible(testset);
    const path = `/simple/testsets/${testset.id}/upload`;
    const upload = stalledUpload(uploader, path, "bad.csv", `q,a\n${rows(0, 20_000)}`);
    const failed = await upload.finish(`x,"unclosed\n`);
    expect(failed.status, JSON.stringify(failed.body)).toBe(422);
    expect(await visible(testset)).toEqual(before);
  }, 60_000);

  it("leaves no testset, no revision and no testcase when the client goes away mid-file", async () => {
    const slug = `gone-${Date.now()}`;
    const testset = await target(slug);
    const before = await visible(testset);
    const count = (await uploader.ok("POST", "/simple/testsets/query", {})).count;
    const path = `/simple/testsets/${testset.id}/upload`;
    const edit = stalledUpload(uploader, path, "gone.csv", `q,a\n${rows(0, 20_000)}`);
    const create = stalledUpload(uploader, "/simple/testsets/upload", "gone-new.csv", `q,a\n${rows(0, 20_000)}`);
    await settle();
    edit.abort();
    create.abort();
    await settle();
    expect(await visible(testset)).toEqual(before);
    expect((await uploader.ok("POST", "/simple/testsets/query", {})).count).toBe(count);
  }, 60_000);
});

describe("a file larger than what an upload holds in memory", () => {
  it("is kept in a temporary file while it is read and stored whole, in order", async () => {
    const cell = (i: number) => `${String(i).padStart(4, "0")}${"é".repeat(300_000)}`;
    const lines = Array.from({ length: 32 }, (_, i) => `${i},${cell(i)}\n`).join("");
    const upload = stalledUpload(uploader, "/simple/testsets/upload", "large.csv", "q,a\n");
    const done = await upload.finish(lines);
    expect(done.status, JSON.stringify(done.body).slice(0, 500)).toBe(200);
    const got = done.body.testset.data.testcases as { data: { q: string; a: string } }[];
    expect(got.map((t) => t.data.q)).toEqual(Array.from({ length: 32 }, (_, i) => String(i)));
    got.forEach((t, i) => expect(t.data.a === cell(i), `row ${i}`).toBe(true));
  }, 60_000);
});
