import { Type, type TSchema } from "typebox";

/*
 * Request and response schemas of the catalog routes, named after the reference's components.
 * Objects that carry free JSON (schemas, parameters, capabilities) allow any keys, so response
 * serialization passes them through whole.
 */

const Json = Type.Record(Type.String(), Type.Unknown());

export const Flags = Type.Object(
  {
    is_application: Type.Boolean(),
    is_evaluator: Type.Boolean(),
    is_snippet: Type.Boolean(),
    is_archived: Type.Boolean(),
    is_recommended: Type.Boolean(),
  },
  { title: "WorkflowCatalogFlags" },
);

export const RevisionData = Type.Object(
  {
    uri: Type.Optional(Type.String()),
    url: Type.Optional(Type.String()),
    headers: Type.Optional(Type.Record(Type.String(), Type.String())),
    runtime: Type.Optional(Type.Union([Type.Literal("python"), Type.Literal("typescript"), Type.Literal("javascript")])),
    script: Type.Optional(Type.String()),
    schemas: Type.Optional(
      Type.Object({ parameters: Type.Optional(Json), inputs: Type.Optional(Json), outputs: Type.Optional(Json) }, { title: "JsonSchemas" }),
    ),
    parameters: Type.Optional(Json),
  },
  { title: "WorkflowRevisionData", additionalProperties: true },
);

const entryFields = {
  key: Type.String(),
  name: Type.Optional(Type.String()),
  description: Type.Optional(Type.String()),
  categories: Type.Optional(Type.Array(Type.String())),
  flags: Type.Optional(Flags),
  data: Type.Optional(RevisionData),
};

export const Template = Type.Object(entryFields, { title: "WorkflowCatalogTemplate" });
export const Preset = Type.Object(entryFields, { title: "WorkflowCatalogPreset" });

export const CatalogTypeSchema = Type.Object(
  { key: Type.String(), name: Type.Optional(Type.String()), description: Type.Optional(Type.String()), json_schema: Json },
  { title: "WorkflowCatalogType" },
);

export const Harness = Type.Object(
  { key: Type.String(), name: Type.Optional(Type.String()), description: Type.Optional(Type.String()), capabilities: Type.Optional(Json) },
  { title: "WorkflowCatalogHarness" },
);

export const LegacyEvaluatorTemplateSchema = Type.Object(
  {
    name: Type.String(),
    key: Type.String(),
    direct_use: Type.Boolean(),
    settings_template: Json,
    settings_presets: Type.Union([Type.Array(Json), Type.Null()]),
    outputs_schema: Type.Union([Json, Type.Null()]),
    description: Type.Union([Type.String(), Type.Null()]),
    oss: Type.Boolean(),
    requires_llm_api_keys: Type.Boolean(),
    tags: Type.Array(Type.String()),
    archived: Type.Boolean(),
  },
  { title: "EvaluatorTemplate" },
);

/** `{count, <name>: [...]}` */
export const listOf = (name: string, item: TSchema, title: string) =>
  Type.Object({ count: Type.Integer(), [name]: Type.Array(item) }, { title });

/** `{count: 1, <name>: {...}}`, or `{count: 0}` when nothing matched. */
export const single = (name: string, item: TSchema, title: string) =>
  Type.Object({ count: Type.Integer({ description: "1 when found, 0 otherwise." }), [name]: Type.Optional(item) }, { title });

const flag = (description: string) => Type.Optional(Type.Boolean({ description }));

export const ArchivedQuery = Type.Object({ include_archived: flag("Include archived entries.") });

export const WorkflowTemplatesQuery = Type.Object({
  include_archived: flag("Include archived templates."),
  is_application: flag("Only templates that are (true) or are not (false) applications."),
  is_evaluator: flag("Only templates that are (true) or are not (false) evaluators."),
  is_snippet: flag("Only templates that are (true) or are not (false) snippets."),
});

export const TemplateParams = Type.Object({ template_key: Type.String() });
export const PresetParams = Type.Object({ template_key: Type.String(), preset_key: Type.String() });
export const TypeParams = Type.Object({ ag_type: Type.String() });
export const HarnessParams = Type.Object({ ag_harness: Type.String() });
