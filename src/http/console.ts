import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";

/** Where `npm ci` (scripts/build-console.ts) puts the built console. */
export const CONSOLE_DIST = fileURLToPath(new URL("../../console/dist/", import.meta.url));

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".map": "application/json; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".woff2": "font/woff2",
};

/** Paths the console never answers: the API and the hosted services keep their own 404s (and key checks). */
const SERVER_PATHS = /^\/(api|services)(\/|\?|$)/;

interface Asset {
  body: Buffer;
  type: string;
  /**
   * The body gzipped once at startup (text over 1 KB, but not source maps, which only developer tools fetch), so
   * a cold page load does not compress it again.
   */
  gzip?: Buffer;
}

interface Build {
  hash: string;
  html: Buffer;
  etag: string;
  assets: Map<string, Asset>;
}

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)]));
}

/** The built console, read once into memory (it is small), or null when it has not been built. */
export function loadConsoleBuild(dist = CONSOLE_DIST): Build | null {
  if (!existsSync(join(dist, "index.html")) || !existsSync(join(dist, "build.json"))) return null;
  try {
    return readBuild(dist);
  } catch {
    return null; // replaced while being read (a build running now): served as not built until the next start
  }
}

function readBuild(dist: string): Build {
  const { hash } = JSON.parse(readFileSync(join(dist, "build.json"), "utf8")) as { hash: string };
  const assets = new Map<string, Asset>();
  for (const file of walk(join(dist, "assets"))) {
    const body = readFileSync(file);
    const type = TYPES[extname(file)] ?? "application/octet-stream";
    const compressible = body.length > 1024 && /^(text\/|application\/json)/.test(type) && !file.endsWith(".map");
    const gzip = compressible ? gzipSync(body, { level: 9 }) : undefined;
    assets.set(relative(join(dist, "assets"), file).split("\\").join("/"), { body, type, gzip });
  }
  const html = readFileSync(join(dist, "index.html"));
  return { hash, html, etag: `"${createHash("sha256").update(html).digest("base64url").slice(0, 16)}"`, assets };
}

const NOT_BUILT = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Tessera</title></head>
<body>
<h1>Tessera</h1>
<p>The web console has not been built. <code>npm ci</code> builds it; in a checkout where dependencies are installed, run
<code>node scripts/build-console.ts</code> and restart the server.</p>
<p>The API is served under <a href="/api/docs">/api</a>.</p>
</body></html>
`;

/**
 * The page holds an API key: it runs only its own script and stylesheet (no inline script or style, so
 * injected markup cannot run), talks only to this server, is never framed (clickjacking), and sends no
 * referrer (its deep links name projects and revisions). `data:` images are the page's empty favicon.
 */
export const CONSOLE_SECURITY_HEADERS: Record<string, string> = {
  "content-security-policy": [
    "default-src 'self'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "connect-src 'self'",
    "object-src 'none'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
  ].join("; "),
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

/** A page request (a browser navigating): GET/HEAD of a non-server path that accepts HTML. */
const pageConstraint: Parameters<FastifyInstance["addConstraintStrategy"]>[0] = {
  name: "consolePage",
  storage() {
    const handlers = new Map<string, any>();
    return { get: (value: string) => handlers.get(value) ?? null, set: (value: string, store: any) => void handlers.set(value, store) };
  },
  deriveConstraint(request) {
    const accept = request.headers.accept;
    return !SERVER_PATHS.test(request.url ?? "") && typeof accept === "string" && accept.includes("text/html") ? "page" : "other";
  },
  mustMatchWhenDerived: false,
};

/**
 * The web console at `/`: `/assets/<build hash>/…` (immutable: the hash changes with any file), and
 * index.html (revalidated each time) for `/` and for any other page path a browser opens (deep links).
 * `/api` and `/services` are never answered here, so their 404s and key checks stay as they are.
 */
export async function consoleRoutes(app: FastifyInstance, options: { dist?: string } = {}): Promise<void> {
  const build = loadConsoleBuild(options.dist);
  if (!app.hasConstraintStrategy(pageConstraint.name)) app.addConstraintStrategy(pageConstraint);

  const page = async (request: FastifyRequest, reply: FastifyReply) => {
    reply.headers(CONSOLE_SECURITY_HEADERS).header("cache-control", "no-cache");
    if (!build) return reply.status(503).type("text/html; charset=utf-8").send(NOT_BUILT);
    reply.header("etag", build.etag);
    if (request.headers["if-none-match"] === build.etag) return reply.status(304).send();
    return reply.type("text/html; charset=utf-8").send(build.html);
  };
  const hide = { schema: { hide: true } };
  app.get("/", hide, page);
  app.get("/*", { ...hide, constraints: { consolePage: "page" } }, page);
  app.get("/assets/:hash/*", hide, async (request, reply) => {
    const { hash, "*": path } = request.params as { hash: string; "*": string };
    const asset = build && hash === build.hash ? build.assets.get(path) : undefined;
    if (!asset) {
      return reply.status(404).header("cache-control", "no-store").send({ detail: `No console asset ${request.url.split("?")[0]}` });
    }
    reply.header("cache-control", "public, max-age=31536000, immutable").header("x-content-type-options", "nosniff").type(asset.type);
    if (!asset.gzip) return reply.send(asset.body);
    reply.header("vary", "accept-encoding");
    const accepted = String(request.headers["accept-encoding"] ?? "");
    return /\bgzip\b/.test(accepted) ? reply.header("content-encoding", "gzip").send(asset.gzip) : reply.send(asset.body);
  });
}
