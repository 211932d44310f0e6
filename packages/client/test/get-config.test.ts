import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { measureCachedGetConfig } from "../bench/get-config.ts";
import { TesseraClient, TesseraError, TesseraNetworkError, type Config } from "../src/index.ts";
import { fileSnapshot } from "../src/node-snapshot.ts";
import { completion, recordingFetch, sleep, startListeningServer, type ListeningServer } from "./support/listening-server.ts";

/**
 * getConfig against a real server on a real port, through its whole life: network, cache,
 * revalidation (304, then a changed deployment), and — once the server is closed — stale values,
 * a snapshot on disk, and the caller's fallback. The tests run in order and share the server.
 */
let s: ListeningServer;
let dir: string;
let app: { id: string; variant_id: string; revision_id: string };
const production = { application: "sdk-geo", environment: "production" };

beforeAll(async () => {
  s = await startListeningServer();
  dir = await mkdtemp(join(tmpdir(), "tessera-client-"));
  app = (await s.project.ok("POST", "/simple/applications/", { application: { slug: "sdk-geo", name: "SDK geography", data: completion("Capital of {{country}}?") } })).application;
  await s.project.ok("POST", "/applications/revisions/deploy", { application_ref: { id: app.id }, environment_ref: { slug: "production" } });
});
afterAll(async () => {
  await s.close();
  await rm(dir, { recursive: true, force: true });
});

describe("getConfig", () => {
  const recorder = recordingFetch();
  let client: TesseraClient;
  let first: Config;

  it("retrieves the deployed revision from the network, then serves it from memory", async () => {
    client = new TesseraClient({ baseUrl: s.baseUrl, apiKey: s.project.key, fetch: recorder.fetch, snapshot: fileSnapshot(join(dir, "configs.json")) });
    first = await client.getConfig(production);
    expect(first).toMatchObject({ id: app.revision_id, version: "1", source: "network" });
    expect(first.data.url).toBe(`${s.baseUrl}/services/completion/v0`);
    expect(first.data.uri).toBe("svc:builtin:completion:v0");
    expect((first.data.parameters as any).prompt.llm_config.model).toBe("gpt-4o-mini");
    expect(first.data.schemas).toBeTruthy();
    const again = await client.getConfig(production);
    expect(again).toMatchObject({ id: app.revision_id, source: "cache" });
    expect(again.data).toBe(first.data);
    expect(recorder.requests).toHaveLength(1);
    expect(recorder.requests[0]).toMatchObject({ method: "POST", path: "/api/applications/revisions/retrieve", ifNoneMatch: null, status: 200 });
  });

  it("hands out frozen values, so that no caller can change another's config", () => {
    expect(Object.isFrozen(first.data.parameters)).toBe(true);
    expect(() => { (first.data.parameters as any).prompt = null; }).toThrow(TypeError);
  });

  it("after the TTL serves the cached value and revalidates with If-None-Match: 304", async () => {
    await sleep(30);
    const served = await client.getConfig({ ...production, ttlMs: 20 });
    expect(served).toMatchObject({ id: app.revision_id, source: "cache" });
    await client.settled();
    expect(recorder.requests).toHaveLength(2);
    expect(recorder.requests[1].ifNoneMatch).toMatch(new RegExp(app.revision_id));
    expect(recorder.requests[1].status).toBe(304);
    // The 304 restarted the TTL.
    await client.getConfig({ ...production, ttlMs: 10_000 });
    expect(recorder.requests).toHaveLength(2);
  });

  it("picks up a new deployment at the next revalidation", async () => {
    const v2 = (await s.project.ok("POST", "/applications/revisions/commit", {
      application_revision_commit: { application_variant_id: app.variant_id, message: "v2", data: completion("Which country has {{city}}?") },
    })).application_revision;
    await s.project.ok("POST", "/applications/revisions/deploy", { application_variant_ref: { id: app.variant_id }, environment_ref: { slug: "production" } });
    await sleep(30);
    expect((await client.getConfig({ ...production, ttlMs: 20 })).id).toBe(app.revision_id);
    await client.settled();
    expect(recorder.requests.at(-1)).toMatchObject({ status: 200 });
    expect(recorder.requests.at(-1)!.ifNoneMatch).toBeTruthy();
    const changed = await client.getConfig(production);
    expect(changed).toMatchObject({ id: v2.id, version: "2", source: "cache" });
    expect(changed.data.parameters).toEqual(completion("Which country has {{city}}?").parameters);
  });

  it("caches a revision asked by id for good: it never changes", async () => {
    const byId = { revision: { id: app.revision_id } };
    expect((await client.getConfig(byId)).source).toBe("network");
    const before = recorder.requests.length;
    await sleep(5);
    expect(await client.getConfig({ ...byId, ttlMs: 1 })).toMatchObject({ id: app.revision_id, version: "1", source: "cache" });
    await client.settled();
    expect(recorder.requests).toHaveLength(before);
  });

  it("answers a cache hit in microseconds (measured, not gated)", async () => {
    const timing = await measureCachedGetConfig(client, production, 20_000);
    expect(timing.calls).toBe(20_000);
    expect(timing.microsPerCall).toBeGreaterThan(0);
    console.log(`cached getConfig: ${timing.microsPerCall.toFixed(3)} µs per call`);
  });

  it("fails with the server's status and detail: an unknown application is a 404", async () => {
    const error = await client.getConfig({ application: "no-such-app", environment: "production" }).catch((e) => e);
    expect(error).toBeInstanceOf(TesseraError);
    expect(error.status).toBe(404);
    expect(typeof error.detail).toBe("string");
    expect(error.detail.length).toBeGreaterThan(0);
    const badKey = new TesseraClient({ baseUrl: s.baseUrl, apiKey: "not-a-key" });
    const unauthorized = await badKey.getConfig(production).catch((e) => e);
    expect(unauthorized).toBeInstanceOf(TesseraError);
    expect(unauthorized.status).toBe(401);
  });

  it("wrote the configs it retrieved to the snapshot file", async () => {
    await client.settled();
    const saved = JSON.parse(await readFile(join(dir, "configs.json"), "utf8"));
    const ids = Object.values(saved.entries).map((e: any) => e.id);
    expect(ids).toContain(app.revision_id);
    expect(Object.values(saved.entries).some((e: any) => e.version === "2" && e.etag)).toBe(true);
  });

  describe("with the server gone", () => {
    let deployed: string;
    beforeAll(async () => {
      deployed = (await client.getConfig(production)).id;
      await s.close();
    });

    it("serves the last known value as stale", async () => {
      await sleep(30);
      expect((await client.getConfig({ ...production, ttlMs: 20 })).id).toBe(deployed);
      await client.settled();
      expect(recorder.requests.at(-1)!.status).toBe("unreachable");
      expect(await client.getConfig({ ...production, ttlMs: 20 })).toMatchObject({ id: deployed, version: "2", source: "stale" });
    });

    it("serves a fresh client from the snapshot on disk", async () => {
      const cold = new TesseraClient({ baseUrl: s.baseUrl, apiKey: s.project.key, snapshot: fileSnapshot(join(dir, "configs.json")) });
      const config = await cold.getConfig(production);
      expect(config).toMatchObject({ id: deployed, version: "2", source: "snapshot" });
      expect(config.data.url).toBe(`${s.baseUrl}/services/completion/v0`);
      expect((await cold.getConfig(production)).source).toBe("snapshot");
    });

    it("returns the caller's fallback when nothing is cached, and a TesseraNetworkError without one", async () => {
      const cold = new TesseraClient({ baseUrl: s.baseUrl, apiKey: s.project.key, timeoutMs: 2_000 });
      const fallback = { parameters: { prompt: { messages: [], llm_config: { model: "local" } } } };
      expect(await cold.getConfig({ ...production, fallback })).toEqual({ id: null, version: null, data: fallback, source: "fallback" });
      const error = await cold.getConfig(production).catch((e) => e);
      expect(error).toBeInstanceOf(TesseraNetworkError);
      expect(error.message).toContain("/api/applications/revisions/retrieve");
    });
  });
});
