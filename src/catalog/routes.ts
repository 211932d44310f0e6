// Brings in @fastify/swagger's `tags`/`summary`/`operationId` route-schema fields (types only).
import type {} from "@fastify/swagger";
import type { FastifyInstance } from "fastify";
import {
  harnessByKey,
  listHarnesses,
  listLegacyEvaluatorTemplates,
  listPresets,
  listTemplates,
  listTypes,
  presetByKey,
  templateByKey,
  typeByKey,
  type CatalogFamily,
  type TemplateFilter,
} from "./lookup.ts";
import {
  ArchivedQuery,
  CatalogTypeSchema,
  Harness,
  HarnessParams,
  LegacyEvaluatorTemplateSchema,
  Preset,
  PresetParams,
  Template,
  TemplateParams,
  TypeParams,
  WorkflowTemplatesQuery,
  listOf,
  single,
} from "./schemas.ts";

/*
 * The global, read-only catalog. Unknown keys answer 200 with `{count: 0}`, as the reference does.
 * Paths keep the reference's trailing slashes.
 */

interface FamilyNames {
  family: CatalogFamily;
  tag: string;
  /** Singular, as in the reference's operation names (`list_application_catalog_templates`). */
  noun: string;
  title: string;
}

const FAMILIES: FamilyNames[] = [
  { family: "applications", tag: "Applications", noun: "application", title: "Application" },
  { family: "workflows", tag: "Workflows", noun: "workflow", title: "Workflow" },
  { family: "evaluators", tag: "Evaluators", noun: "evaluator", title: "Evaluator" },
];

function familyRoutes(app: FastifyInstance, { family, tag, noun, title }: FamilyNames): void {
  const base = `/${family}/catalog`;

  app.get<{ Querystring: TemplateFilter }>(`${base}/templates/`, {
    schema: {
      tags: [tag],
      summary: `List ${title} Catalog Templates`,
      operationId: `list_${noun}_catalog_templates`,
      querystring: family === "workflows" ? WorkflowTemplatesQuery : ArchivedQuery,
      response: { 200: listOf("templates", Template, `${title}CatalogTemplatesResponse`) },
    },
    handler: async (request) => {
      const templates = listTemplates(family, request.query);
      return { count: templates.length, templates };
    },
  });

  app.get<{ Params: { template_key: string } }>(`${base}/templates/:template_key`, {
    schema: {
      tags: [tag],
      summary: `Fetch ${title} Catalog Template`,
      operationId: `fetch_${noun}_catalog_template`,
      params: TemplateParams,
      response: { 200: single("template", Template, `${title}CatalogTemplateResponse`) },
    },
    handler: async (request) => {
      const template = templateByKey(family, request.params.template_key);
      return template ? { count: 1, template } : { count: 0 };
    },
  });

  app.get<{ Params: { template_key: string }; Querystring: { include_archived?: boolean } }>(`${base}/templates/:template_key/presets/`, {
    schema: {
      tags: [tag],
      summary: `List ${title} Catalog Presets`,
      operationId: `list_${noun}_catalog_presets`,
      params: TemplateParams,
      querystring: ArchivedQuery,
      response: { 200: listOf("presets", Preset, `${title}CatalogPresetsResponse`) },
    },
    handler: async (request) => {
      const presets = listPresets(family, request.params.template_key, request.query) ?? [];
      return { count: presets.length, presets };
    },
  });

  app.get<{ Params: { template_key: string; preset_key: string } }>(`${base}/templates/:template_key/presets/:preset_key`, {
    schema: {
      tags: [tag],
      summary: `Fetch ${title} Catalog Preset`,
      operationId: `fetch_${noun}_catalog_preset`,
      params: PresetParams,
      response: { 200: single("preset", Preset, `${title}CatalogPresetResponse`) },
    },
    handler: async (request) => {
      const preset = presetByKey(family, request.params.template_key, request.params.preset_key);
      return preset ? { count: 1, preset } : { count: 0 };
    },
  });

  app.get(`${base}/types/`, {
    schema: {
      tags: [tag],
      summary: `List ${title} Catalog Types`,
      operationId: `list_${noun}_catalog_types`,
      response: { 200: listOf("types", CatalogTypeSchema, `${title}CatalogTypesResponse`) },
    },
    handler: async () => {
      const types = listTypes();
      return { count: types.length, types };
    },
  });
}

export async function catalogRoutes(app: FastifyInstance): Promise<void> {
  for (const names of FAMILIES) familyRoutes(app, names);

  app.get<{ Params: { ag_type: string } }>("/workflows/catalog/types/:ag_type", {
    schema: {
      tags: ["Workflows"],
      summary: "Fetch Workflow Catalog Type",
      operationId: "fetch_workflow_catalog_type",
      params: TypeParams,
      response: { 200: single("type", CatalogTypeSchema, "WorkflowCatalogTypeResponse") },
    },
    handler: async (request) => {
      const type = typeByKey(request.params.ag_type);
      return type ? { count: 1, type } : { count: 0 };
    },
  });

  app.get("/workflows/catalog/harnesses/", {
    schema: {
      tags: ["Workflows"],
      summary: "List Workflow Catalog Harnesses",
      operationId: "list_workflow_catalog_harnesses",
      response: { 200: listOf("harnesses", Harness, "WorkflowCatalogHarnessesResponse") },
    },
    handler: async () => {
      const harnesses = listHarnesses();
      return { count: harnesses.length, harnesses };
    },
  });

  app.get<{ Params: { ag_harness: string } }>("/workflows/catalog/harnesses/:ag_harness", {
    schema: {
      tags: ["Workflows"],
      summary: "Fetch Workflow Catalog Harness",
      operationId: "fetch_workflow_catalog_harness",
      params: HarnessParams,
      response: { 200: single("harness", Harness, "WorkflowCatalogHarnessResponse") },
    },
    handler: async (request) => {
      const harness = harnessByKey(request.params.ag_harness);
      return harness ? { count: 1, harness } : { count: 0 };
    },
  });

  app.get<{ Querystring: { include_archived?: boolean } }>("/simple/evaluators/templates", {
    schema: {
      tags: ["Evaluators"],
      summary: "List Evaluator Templates",
      operationId: "list_evaluator_templates",
      querystring: ArchivedQuery,
      response: { 200: listOf("templates", LegacyEvaluatorTemplateSchema, "EvaluatorTemplatesResponse") },
    },
    handler: async (request) => {
      const templates = listLegacyEvaluatorTemplates(request.query.include_archived ?? false);
      return { count: templates.length, templates };
    },
  });
}
