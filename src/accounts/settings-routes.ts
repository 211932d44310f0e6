import type { FastifyInstance } from "fastify";
import { Type } from "typebox";
import type { AppContext } from "../context.ts";
import { Nullable } from "../schema-parts.ts";
import {
  changeProjectSettings, MAX_SPAN_RETENTION_DAYS, projectSettings, type ProjectSettings,
} from "./project-settings.ts";

const RetentionDays = Type.Integer({
  minimum: 0, maximum: MAX_SPAN_RETENTION_DAYS,
  description: "Days spans are kept (a trace goes once one of its spans is older); 0 keeps them for good, " +
    "null follows the server's TESSERA_SPAN_RETENTION_DAYS.",
});
const SettingsChange = Type.Object({ span_retention_days: Type.Optional(Nullable(RetentionDays)) }, {
  additionalProperties: false,
});
const SettingsAnswer = Type.Object({
  span_retention_days: Nullable(RetentionDays),
  server_span_retention_days: Type.Integer({ description: "The server's default (TESSERA_SPAN_RETENTION_DAYS)." }),
});

/** `GET` and `PATCH /projects/current/settings`: the caller's project settings (span retention). */
export async function projectSettingsRoutes(app: FastifyInstance, ctx: AppContext) {
  const answer = (settings: ProjectSettings) =>
    ({ ...settings, server_span_retention_days: ctx.config.spanRetention.days });
  const tags = ["Projects"];
  app.get("/projects/current/settings", {
    schema: { tags, summary: "The caller's project settings", response: { 200: SettingsAnswer } },
  }, async (req) => answer(await projectSettings(ctx.db, req.scope)));
  app.patch("/projects/current/settings", {
    schema: {
      tags, summary: "Change the caller's project settings (the fields sent)", body: SettingsChange,
      response: { 200: SettingsAnswer },
    },
  }, async (req) => answer(await changeProjectSettings(ctx.db, req.scope, req.body as Partial<ProjectSettings>)));
}
