import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import Fastify from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { consoleRoutes, loadConsoleBuild } from "../src/http/console.ts";
import { startTestServer, type TestServer } from "./support/server.ts";

const HTML = { accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8" };

describe("web console", () => {
  let server: TestServer;
  let hash: string;

  beforeAll(async () => {
    const build = loadConsoleBuild(); // built by `npm ci` (prepare)
    if (!build) throw new Error("console/dist is missing: run `node scripts/build-console.ts`");
    hash = build.hash;
    server = await startTestServer();
  });
  afterAll(async () => server?.close());

  it("answers index.html at / naming the bundle and stylesheet of this build, revalidated each time", async () => {
    const res = await server.app.inject({ url: "/", headers: HTML });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(res.body).toContain(`<script type="module" src="/assets/${hash}/app.js"></script>`);
    expect(res.body).toContain(`<link rel="stylesheet" href="/assets/${hash}/styles.css">`);
    const again = await server.app.inject({ url: "/", headers: { ...HTML, "if-none-match": res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
    // curl's */* gets the page at / too
    expect((await server.app.inject({ url: "/" })).statusCode).toBe(200);
  });

  it("sends a strict Content-Security-Policy and the other security headers with every page answer", async () => {
    const csp = (value: unknown) =>
      new Map(String(value).split(/;\s*/).map((d) => [d.split(" ")[0], d.split(" ").slice(1)]));
    const page = await server.app.inject({ url: "/", headers: HTML });
    const deep = await server.app.inject({ url: "/projects/p/testsets", headers: HTML });
    const revalidated = { ...HTML, "if-none-match": page.headers.etag as string };
    const cached = await server.app.inject({ url: "/", headers: revalidated });
    for (const [name, res] of Object.entries({ page, deep, cached })) {
      const policy = csp(res.headers["content-security-policy"]);
      expect(policy.get("default-src"), name).toEqual(["'self'"]);
      expect(policy.get("script-src"), name).toEqual(["'self'"]);
      expect(policy.get("style-src"), name).toEqual(["'self'"]);
      expect(policy.get("frame-ancestors"), name).toEqual(["'none'"]);
      expect(res.headers["x-frame-options"], name).toBe("DENY");
      expect(res.headers["x-content-type-options"], name).toBe("nosniff");
      expect(res.headers["referrer-policy"], name).toBe("no-referrer");
    }
    // Nothing inline that the policy would refuse: the page's one script and stylesheet are files.
    expect(page.body).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>|<style|\sstyle=|\son[a-z]+=/i);
    // The API's answers keep their own shape.
    const health = await server.app.inject({ url: "/api/health" });
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: "ok" });
  });

  it("serves assets under the build hash, immutable, typed, compressed when asked", async () => {
    const app = await server.app.inject({ url: `/assets/${hash}/app.js`, headers: { "accept-encoding": "gzip" } });
    expect(app.statusCode).toBe(200);
    expect(app.headers["content-type"]).toBe("text/javascript; charset=utf-8");
    expect(app.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(app.headers["content-encoding"]).toBe("gzip");
    expect(app.headers.vary).toContain("accept-encoding");
    const plain = await server.app.inject({
      url: `/assets/${hash}/app.js`, headers: { "accept-encoding": "identity" },
    });
    expect(plain.headers["content-encoding"]).toBeUndefined();
    expect(gunzipSync(app.rawPayload).equals(plain.rawPayload)).toBe(true);
    // Preact and the client are bundled: the only imports left are this build's chunks
    expect(plain.body).not.toMatch(/\bfrom\s*["'](preact|@tessera\/client|\.\/(?!chunks\/))/);
    expect(plain.body).not.toContain("node:");
    expect(plain.body).toMatch(/\/\/# sourceMappingURL=app\.js\.map\s*$/);
    const map = await server.app.inject({ url: `/assets/${hash}/app.js.map` });
    expect(map.headers["content-type"]).toBe("application/json; charset=utf-8");
    expect(map.json().sources).toContain("../../src/main.tsx"); // relative: no path of the machine that built it
    const css = await server.app.inject({ url: `/assets/${hash}/styles.css` });
    expect(css.headers["content-type"]).toBe("text/css; charset=utf-8");
  });

  it("loads the first view's chunks with app.js and leaves the traces pages out of it", async () => {
    const page = await server.app.inject({ url: "/", headers: HTML });
    const app = (await server.app.inject({ url: `/assets/${hash}/app.js` })).body;
    const imported = [...app.matchAll(/\bfrom\s*"\.\/(chunks\/[^"]+\.js)"/g)].map((m) => m[1]!);
    expect(imported.length).toBeGreaterThan(0);
    const firstView = [app];
    for (const chunk of imported) {
      // preloaded by index.html, so the browser does not wait for app.js to find them
      expect(page.body).toContain(`<link rel="modulepreload" href="/assets/${hash}/${chunk}">`);
      const res = await server.app.inject({ url: `/assets/${hash}/${chunk}` });
      expect(res.statusCode, chunk).toBe(200);
      firstView.push(res.body);
    }
    const lazy = [...app.matchAll(/import\("\.\/(chunks\/trace[^"]+\.js)"\)/g)].map((m) => m[1]!);
    const names = lazy.map((path) => path.replace(/-[A-Z0-9]+\.js$/, ""));
    expect(names).toEqual(["chunks/traces-page", "chunks/trace-page"]);
    for (const chunk of lazy) {
      const res = await server.app.inject({ url: `/assets/${hash}/${chunk}` });
      expect(res.statusCode, chunk).toBe(200);
      expect(res.body).toContain("ob-");
    }
    // what only the traces pages use is downloaded when one is opened
    for (const text of ["ob-waterfall", "Expected answer column", "Search inputs and outputs"]) {
      expect(firstView.join("\n"), text).not.toContain(text);
    }
  });

  it("answers 404 for an unknown asset or another build's hash, never cached", async () => {
    for (const url of [`/assets/${hash}/nothing.js`, `/assets/0000deadbeef/app.js`]) {
      const res = await server.app.inject({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers["cache-control"], url).toBe("no-store");
      expect(res.json().detail, url).toMatch(/^No console asset/);
    }
    const outside = await server.app.inject({ url: `/assets/${hash}/../../build.json` });
    expect(outside.statusCode).toBe(404);
    expect(outside.body).not.toContain(hash);
  });

  it("answers index.html for deep links a browser opens, and JSON 404 to other clients", async () => {
    for (const url of ["/registry?kind=testsets&q=x", "/applications/0190a7c2-1111-7000-8000-000000000000", "/a/b/c"]) {
      const res = await server.app.inject({ url, headers: HTML });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers["content-type"], url).toBe("text/html; charset=utf-8");
      expect(res.body, url).toContain('<div id="app">');
    }
    const json = await server.app.inject({ url: "/registry", headers: { accept: "application/json" } });
    expect(json.statusCode).toBe(404);
    expect(json.json().detail).toBe("Not found: GET /registry");
    const post = await server.app.inject({ method: "POST", url: "/registry", headers: HTML });
    expect(post.statusCode).toBe(404);
  });

  it("leaves /api and /services alone: a key is still demanded, unknown paths are JSON 404s", async () => {
    for (const url of ["/api", "/api/applications/query", "/api/no-such-route"]) {
      const res = await server.app.inject({ url, headers: HTML });
      expect(res.statusCode, url).toBe(401);
      expect(res.headers["content-type"], url).toMatch(/^application\/json/);
    }
    const project = await server.project();
    const unknown = await project.call("GET", "/no-such-route", undefined, HTML);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().detail).toBe("Not found: GET /api/no-such-route");
    const services = await server.app.inject({ url: "/services/nothing", headers: HTML });
    expect(services.statusCode).toBe(404);
    expect(services.headers["content-type"]).toMatch(/^application\/json/);
    const health = await server.app.inject({ url: "/api/health", headers: HTML });
    expect(health.json()).toEqual({ status: "ok" });
  });

  it("finds artifacts by part of the name or the slug, in any case (the registry's search)", async () => {
    const project = await server.project();
    for (const [slug, name] of [["geo-capitals", "Geo capitals"], ["summariser", "Text summary"], ["odds", "Odds: 100%_sure"]]) {
      await project.ok("POST", "/applications/", { application: { slug, name } });
    }
    const found = async (search: string) =>
      (await project.ok("POST", "/applications/query", { application: { search } })).applications.map((a: any) => a.slug).sort();
    expect(await found("CAPITAL")).toEqual(["geo-capitals"]);
    expect(await found("summar")).toEqual(["summariser"]); // the slug, not the name
    expect(await found("SUMMARY")).toEqual(["summariser"]); // the name, not the slug
    expect(await found("%")).toEqual(["odds"]); // LIKE's wildcards match themselves
    expect(await found("0%_s")).toEqual(["odds"]);
    expect(await found("nothing-like-it")).toEqual([]);
    const variants = await project.ok("POST", "/applications/variants/query", { application_variant: { search: "GEO" } });
    expect(variants.application_variants).toEqual([]); // artifacts made this way have no variant yet
    const bad = await project.call("POST", "/applications/query", { application: { search: 42 } });
    expect(bad.statusCode).toBe(422);
  });

  it("says how to build the console when console/dist is missing", async () => {
    const empty = mkdtempSync(join(tmpdir(), "console-dist-"));
    try {
      expect(loadConsoleBuild(empty)).toBeNull();
      const app = Fastify();
      await app.register(consoleRoutes, { dist: empty });
      for (const url of ["/", "/registry"]) {
        const res = await app.inject({ url, headers: HTML });
        expect(res.statusCode, url).toBe(503);
        expect(res.body, url).toContain("node scripts/build-console.ts");
      }
      await app.close();
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});
