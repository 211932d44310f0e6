/**
 * Shapes of the read-only catalog: templates (blueprints a workflow, application or evaluator is
 * created from), their presets (named parameter sets), shared types and harnesses.
 * Field names follow the reference's `WorkflowCatalog*` schemas.
 */

/** A JSON Schema (or fragment) as plain data. */
export type JsonSchema = Record<string, unknown>;

export interface CatalogFlags {
  is_application: boolean;
  is_evaluator: boolean;
  is_snippet: boolean;
  is_archived: boolean;
  is_recommended: boolean;
}

// Type aliases rather than interfaces: they stay assignable to `Record<string, unknown>`, which is
// how revision data is typed where templates are committed.
export type CatalogSchemas = {
  parameters?: JsonSchema;
  inputs?: JsonSchema;
  outputs?: JsonSchema;
};

/** The revision data a template stands for (the reference's `WorkflowRevisionData`). */
export type CatalogData = {
  uri: string;
  url?: string;
  headers?: Record<string, string>;
  runtime?: "python" | "typescript" | "javascript";
  script?: string;
  schemas?: CatalogSchemas;
  parameters?: Record<string, unknown>;
};

export interface CatalogTemplate {
  key: string;
  name: string;
  description: string;
  categories: string[];
  flags: CatalogFlags;
  data: CatalogData;
}

export interface CatalogPreset {
  key: string;
  name: string;
  description: string;
  categories: string[];
  flags: CatalogFlags;
  data: CatalogData;
}

/** A template with the presets defined against it; presets are served on their own routes. */
export interface CatalogEntry {
  template: CatalogTemplate;
  presets: CatalogPreset[];
}

export interface CatalogType {
  key: string;
  name: string;
  description: string;
  json_schema: JsonSchema;
}

export interface CatalogHarness {
  key: string;
  name: string;
  description: string;
  capabilities: Record<string, unknown>;
}

export function catalogFlags(set: Partial<CatalogFlags>): CatalogFlags {
  return { is_application: false, is_evaluator: false, is_snippet: false, is_archived: false, is_recommended: false, ...set };
}

/** A preset of `template` whose data is the template's uri plus `data` (parameters, script, …). */
export function presetOf(
  template: Pick<CatalogTemplate, "data" | "flags" | "categories">,
  preset: { key: string; name: string; description: string; data: Omit<CatalogData, "uri"> },
): CatalogPreset {
  return {
    key: preset.key,
    name: preset.name,
    description: preset.description,
    categories: [...template.categories],
    flags: { ...template.flags, is_recommended: false },
    data: { uri: template.data.uri, ...preset.data },
  };
}

/** Freezes a value and everything reachable from it, so shared catalog data cannot be altered in place. */
export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === "object" && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const child of Object.values(value)) deepFreeze(child);
  }
  return value;
}
