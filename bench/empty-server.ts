import Fastify from "fastify";

// The baseline of the hot path: a bare Fastify app whose one route does nothing, on the same machine,
// at the path the hot path's requests are sent to.
const app = Fastify({ logger: false });
app.post("/api/applications/revisions/retrieve", async () => ({}));
// The baselines of the tracing query lines (bench/tracing.ts).
app.get("/api/tracing/traces/:trace_id", async () => ({}));
app.post("/api/tracing/spans/query", async () => ({}));
app.get("/health", async () => ({ status: "ok" }));
await app.listen({ port: Number(process.env.PORT), host: process.env.HOST ?? "127.0.0.1" });
process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
