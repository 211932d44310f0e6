import { deepFreeze, type JsonSchema } from "./entry.ts";
import { EVALUATOR_ENTRIES, EVALUATORS, type EvaluatorDefinition } from "./evaluator-templates.ts";

/**
 * The reference's older evaluator template list (`GET /simple/evaluators/templates`), rebuilt from
 * the same definitions as the catalog: `settings_template` is the parameters schema in the form the
 * older UI reads (`{label, type, default, description, required, advanced, …}` per setting).
 */
export interface LegacyEvaluatorTemplate {
  name: string;
  key: string;
  direct_use: boolean;
  settings_template: Record<string, Record<string, unknown>>;
  settings_presets: { key: string; name: string; values: Record<string, unknown> }[] | null;
  outputs_schema: JsonSchema | null;
  description: string | null;
  oss: boolean;
  requires_llm_api_keys: boolean;
  tags: string[];
  archived: boolean;
}

const LEGACY_TYPE: Record<string, string> = {
  regex: "regex",
  code: "code",
  hidden: "hidden",
  llm_response_schema: "llm_response_schema",
  choice: "multiple_choice",
  bool: "boolean",
  float: "number",
  text: "string",
};

function settingType(p: JsonSchema): { type: string; options?: unknown[] } {
  if (p["x-ag-type-ref"] === "messages") return { type: "messages" };
  if (p["x-ag-type-ref"] === "model") {
    const groups = (p.choices ?? {}) as Record<string, string[]>;
    return { type: "multiple_choice", options: Object.values(groups).flat() };
  }
  const hinted = typeof p["x-ag-type"] === "string" ? LEGACY_TYPE[p["x-ag-type"]] : undefined;
  if (hinted === "multiple_choice") return { type: hinted, options: (p.enum as unknown[]) ?? [] };
  if (hinted) return { type: hinted };
  return { type: p.type === "integer" ? "number" : String(p.type ?? "string") };
}

function settingsTemplate(parameters: JsonSchema): LegacyEvaluatorTemplate["settings_template"] {
  const properties = (parameters.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set((parameters.required ?? []) as string[]);
  const settings: LegacyEvaluatorTemplate["settings_template"] = {};
  for (const [name, p] of Object.entries(properties)) {
    const setting: Record<string, unknown> = { label: p.title ?? name, ...settingType(p) };
    if (p.default !== undefined) setting.default = p.default;
    if (p.description !== undefined) setting.description = p.description;
    if (p.minimum !== undefined) setting.min = p.minimum;
    if (p.maximum !== undefined) setting.max = p.maximum;
    setting.required = required.has(name);
    setting.advanced = p["x-ag-ui-advanced"] === true;
    // The older UI shows this column of the testset as the ground truth.
    if (name === "correct_answer_key") setting.ground_truth_key = true;
    settings[name] = setting;
  }
  return settings;
}

function legacyOf(def: EvaluatorDefinition): LegacyEvaluatorTemplate {
  const entry = EVALUATOR_ENTRIES.find((e) => e.template.key === def.key);
  const presets = entry?.presets ?? [];
  return {
    name: def.name,
    key: def.key,
    direct_use: def.direct_use,
    settings_template: settingsTemplate(def.parameters),
    settings_presets: presets.length > 0 ? presets.map((p) => ({ key: p.key, name: p.name, values: p.data.parameters ?? {} })) : null,
    outputs_schema: def.outputs,
    description: def.description,
    oss: true,
    requires_llm_api_keys: def.requires_llm_api_keys,
    tags: [...def.tags],
    archived: def.archived ?? false,
  };
}

export const LEGACY_EVALUATOR_TEMPLATES: readonly LegacyEvaluatorTemplate[] = deepFreeze(EVALUATORS.map(legacyOf));
