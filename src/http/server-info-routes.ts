import { readFileSync } from "node:fs";
import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { cellLimit, inlineLimit, rowLimit, uploadLimit } from "../testsets/limits.ts";

const VERSION: string = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")).version;

const Limit = Type.Object({
  name: Type.String({ description: "What is bounded" }),
  value: Type.Integer(),
  unit: Type.Union([Type.Literal("bytes"), Type.Literal("rows"), Type.Literal("steps")]),
  variable: Type.String({ description: "The environment variable that sets it" }),
});
const ServerInfo = Type.Object({
  version: Type.String({ description: "The server's version (package.json)" }),
  limits: Type.Array(Limit, { description: "The settable limits in force for every project of this server" }),
});

/** `GET /api/server/info`: the server's version and the limits in force, read-only, for any valid key. */
export async function serverInfoRoutes(app: FastifyInstance, ctx: AppContext) {
  app.get("/server/info", {
    schema: { tags: ["Health"], summary: "The server's version and its limits", response: { 200: ServerInfo } },
  }, async () => ({
    version: VERSION,
    limits: [
      { name: "JSON request body", value: ctx.config.bodyLimit, unit: "bytes", variable: "TESSERA_BODY_LIMIT" },
      { name: "Testset file upload", value: uploadLimit(), unit: "bytes", variable: "TESSERA_UPLOAD_LIMIT" },
      { name: "One row of an uploaded file", value: rowLimit(), unit: "bytes", variable: "TESSERA_ROW_LIMIT" },
      { name: "One cell of an uploaded file", value: cellLimit(), unit: "bytes", variable: "TESSERA_CELL_LIMIT" },
      { name: "Testcases inlined in one answer", value: inlineLimit(), unit: "rows",
        variable: "TESSERA_TESTSET_INLINE_LIMIT" },
      { name: "Rendered prompt", value: ctx.config.templateMaxBytes, unit: "bytes",
        variable: "TESSERA_TEMPLATE_MAX_BYTES" },
      { name: "Template work", value: ctx.config.templateMaxSteps, unit: "steps",
        variable: "TESSERA_TEMPLATE_MAX_STEPS" },
    ],
  }));
}
