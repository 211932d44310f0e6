import { tracingChannel } from "node:diagnostics_channel";
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

// A retrieve answered before has its answer ready: over a real socket (where the body comes with the headers) it is
// sent by the front door, before Fastify sees the request. These tests hold that answer to the one the full path gives.
let server: TestServer;
let url: string;
let p: TestProject;
/** Requests that reached a route's handler (Fastify publishes each on this channel). */
let handled = 0;
const countHandled = { start: () => void handled++, end() {}, asyncStart() {}, asyncEnd() {}, error() {} };
beforeAll(() => tracingChannel("fastify.request.handler").subscribe(countHandled));
afterAll(() => tracingChannel("fastify.request.handler").unsubscribe(countHandled));

beforeAll(async () => {
  server = await startTestServer();
  url = await server.app.listen({ port: 0, host: "127.0.0.1" });
  p = await server.project();
});
afterAll(() => server.close());

const completion = (word: string) => ({
  uri: "svc:builtin:completion:v0",
  parameters: { prompt: { messages: [{ role: "user", content: `Say ${word}` }], llm_config: { model: "gpt-4o-mini" } } },
});

async function retrieve(body: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${url}/api/applications/revisions/retrieve`, {
    method: "POST",
    headers: { authorization: `ApiKey ${p.key}`, "content-type": "application/json", ...headers },
    body,
  });
  const text = await res.text();
  const kept: Record<string, string> = {};
  res.headers.forEach((value, name) => {
    if (name !== "date" && name !== "x-request-id") kept[name] = value;
  });
  return { status: res.status, text, headers: kept, requestId: res.headers.get("x-request-id") };
}

/** The same request with its body written 50 ms after its headers: it takes the full path. */
function retrieveInTwoWrites(body: string): Promise<string> {
  const { port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.setEncoding("utf8");
    socket.on("data", (chunk) => (answer += chunk));
    socket.on("end", () => resolve(answer));
    socket.on("error", reject);
    socket.write(`POST /api/applications/revisions/retrieve HTTP/1.1\r\nHost: x\r\nAuthorization: ApiKey ${p.key}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`);
    setTimeout(() => socket.write(body), 50);
  });
}

describe("a retrieve answered from its prepared answer", () => {
  it("sends the status, headers and bytes of the full path, and its 304", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "early", data: completion("a") } })).application;
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    const body = JSON.stringify({ application_ref: { slug: "early" }, environment_ref: { slug: "production" } });
    const first = await retrieve(body);
    expect(first.status).toBe(200);
    expect(first.headers.etag).toMatch(/^".+"$/);
    const handledBefore = handled;
    for (let i = 0; i < 3; i++) {
      const again = await retrieve(body);
      expect(again).toEqual({ ...first, requestId: again.requestId });
      expect(again.requestId).not.toBe(first.requestId);
    }
    expect(handled).toBe(handledBefore); // answered at the front door
    const twoWrites = await retrieveInTwoWrites(body);
    expect(handled).toBe(handledBefore + 1); // the body came after the headers: Fastify answered
    expect(twoWrites.split("\r\n\r\n")[1]).toBe(first.text);
    expect(twoWrites).toContain(`etag: ${first.headers.etag}`);

    const notModified = await retrieve(body, { "if-none-match": first.headers.etag, "x-request-id": "client-7" });
    expect(handled).toBe(handledBefore + 1);
    expect(notModified.status).toBe(304);
    expect(notModified.requestId).toBe("client-7");
    expect(notModified.text).toBe("");
    expect(notModified.headers.etag).toBe(first.headers.etag);
    const other = await retrieve(body, { "if-none-match": '"another"' });
    expect(other).toEqual({ ...first, requestId: other.requestId });
  });

  it("keeps answering a client that only revalidates at the front door after its resolution is read again", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "revalidated", data: completion("e") } }))
      .application;
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "production" } });
    const body = JSON.stringify({ application_ref: { slug: "revalidated" }, environment_ref: { slug: "production" } });
    const { headers } = await retrieve(body);
    const revalidate = { "if-none-match": headers.etag! };
    expect((await retrieve(body, revalidate)).status).toBe(304);
    // Another artifact's commit in the project: every cached resolution of the project is read again.
    await p.ok("POST", "/simple/applications/", { application: { slug: "revalidated-neighbour", data: completion("f") } });
    const handledBefore = handled;
    expect((await retrieve(body, revalidate)).status).toBe(304);
    expect(handled).toBe(handledBefore + 1); // read again by the full path, which prepares the answer
    for (let i = 0; i < 3; i++) expect((await retrieve(body, revalidate)).status).toBe(304);
    expect(handled).toBe(handledBefore + 1); // answered at the front door
  });

  it("names the ignored fields as the full path does", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "early-typo", data: completion("b") } })).application;
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "staging" } });
    const body = JSON.stringify({ application_ref: { slug: "early-typo" }, environment_ref: { slug: "staging" }, colour: "red" });
    const first = await retrieve(body);
    expect(first.status).toBe(200);
    expect(first.headers["x-tessera-ignored-fields"]).toBe("body.colour");
    const again = await retrieve(body);
    expect(again).toEqual({ ...first, requestId: again.requestId });
  });

  it("answers what a deploy changed, and refuses a key it does not know", async () => {
    const a = (await p.ok("POST", "/simple/applications/", { application: { slug: "early-moved", data: completion("c") } })).application;
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "development" } });
    const body = JSON.stringify({ application_ref: { slug: "early-moved" }, environment_ref: { slug: "development" } });
    const before = await retrieve(body);
    await retrieve(body);
    await p.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: a.variant_id, data: completion("d") },
    });
    await p.ok("POST", "/applications/revisions/deploy", { application_ref: { id: a.id }, environment_ref: { slug: "development" } });
    const after = await retrieve(body, { "if-none-match": before.headers.etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(JSON.parse(after.text).application_revision.data.parameters.prompt.messages[0].content).toBe("Say d");

    const stranger = await retrieve(body, { authorization: "ApiKey tsk_unknown.key" });
    expect(stranger.status).toBe(401);
    const otherProject = await server.project();
    const elsewhere = await fetch(`${url}/api/applications/revisions/retrieve`, {
      method: "POST", headers: { authorization: `ApiKey ${otherProject.key}`, "content-type": "application/json" }, body,
    });
    expect(elsewhere.status).toBe(404);
  });
});
