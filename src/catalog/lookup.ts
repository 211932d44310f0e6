import { formatUri, parseUri } from "../workflows/uri.ts";
import { APPLICATION_ENTRIES } from "./application-templates.ts";
import type { CatalogEntry, CatalogFlags, CatalogHarness, CatalogPreset, CatalogSchemas, CatalogTemplate, CatalogType } from "./entry.ts";
import { EVALUATOR_ENTRIES } from "./evaluator-templates.ts";
import { HARNESSES } from "./harnesses.ts";
import { LEGACY_EVALUATOR_TEMPLATES, type LegacyEvaluatorTemplate } from "./legacy-evaluator-templates.ts";
import { CATALOG_TYPES } from "./types.ts";

/*
 * Reads of the catalog. The data is frozen; everything handed out is a copy, so a caller may
 * change what it gets (e.g. to commit it as a first revision) without touching the catalog.
 */

/** Which part of the API is asking: applications see application templates, evaluators evaluator templates, workflows all. */
export type CatalogFamily = "applications" | "evaluators" | "workflows";

export interface TemplateFilter {
  include_archived?: boolean;
  is_application?: boolean;
  is_evaluator?: boolean;
  is_snippet?: boolean;
}

const ENTRIES: readonly CatalogEntry[] = [...APPLICATION_ENTRIES, ...EVALUATOR_ENTRIES];

const copy = <T>(value: T): T => structuredClone(value);

function inFamily(flags: CatalogFlags, family: CatalogFamily): boolean {
  return family === "applications" ? flags.is_application : family === "evaluators" ? flags.is_evaluator : true;
}

function matches(flags: CatalogFlags, filter: TemplateFilter): boolean {
  if (!filter.include_archived && flags.is_archived) return false;
  if (filter.is_application !== undefined && flags.is_application !== filter.is_application) return false;
  if (filter.is_evaluator !== undefined && flags.is_evaluator !== filter.is_evaluator) return false;
  if (filter.is_snippet !== undefined && flags.is_snippet !== filter.is_snippet) return false;
  return true;
}

function entryByKey(family: CatalogFamily, key: string): CatalogEntry | undefined {
  return ENTRIES.find((e) => e.template.key === key && inFamily(e.template.flags, family));
}

export function listTemplates(family: CatalogFamily, filter: TemplateFilter = {}): CatalogTemplate[] {
  return ENTRIES.filter((e) => inFamily(e.template.flags, family) && matches(e.template.flags, filter)).map((e) => copy(e.template));
}

/** The template `key` as `family` sees it (archived ones included), or null. */
export function templateByKey(family: CatalogFamily, key: string): CatalogTemplate | null {
  const entry = entryByKey(family, key);
  return entry ? copy(entry.template) : null;
}

/** The presets of template `key`, or null when `family` has no such template. */
export function listPresets(family: CatalogFamily, key: string, filter: Pick<TemplateFilter, "include_archived"> = {}): CatalogPreset[] | null {
  const entry = entryByKey(family, key);
  return entry ? entry.presets.filter((p) => matches(p.flags, filter)).map(copy) : null;
}

export function presetByKey(family: CatalogFamily, key: string, presetKey: string): CatalogPreset | null {
  const preset = entryByKey(family, key)?.presets.find((p) => p.key === presetKey);
  return preset ? copy(preset) : null;
}

/**
 * The template that handles `uri`, in any spelling `parseUri` accepts (`agenta:builtin:chat:v0`,
 * `builtin:chat`, `completion`, …), or null for an unknown or user-defined handler.
 */
export function templateForUri(uri: string): CatalogTemplate | null {
  const wanted = parseUri(uri);
  if (!wanted) return null;
  const canonical = formatUri(wanted);
  const entry = ENTRIES.find((e) => {
    const own = parseUri(e.template.data.uri);
    return own !== null && formatUri(own) === canonical;
  });
  return entry ? copy(entry.template) : null;
}

/** The JSON Schemas (parameters, inputs, outputs) of the handler at `uri`, or null when the catalog has none. */
export function schemasForUri(uri: string): CatalogSchemas | null {
  return templateForUri(uri)?.data.schemas ?? null;
}

export function listTypes(): CatalogType[] {
  return CATALOG_TYPES.map(copy);
}

export function typeByKey(key: string): CatalogType | null {
  const type = CATALOG_TYPES.find((t) => t.key === key);
  return type ? copy(type) : null;
}

export function listHarnesses(): CatalogHarness[] {
  return HARNESSES.map(copy);
}

export function harnessByKey(key: string): CatalogHarness | null {
  const harness = HARNESSES.find((h) => h.key === key);
  return harness ? copy(harness) : null;
}

export function listLegacyEvaluatorTemplates(includeArchived = false): LegacyEvaluatorTemplate[] {
  return LEGACY_EVALUATOR_TEMPLATES.filter((t) => includeArchived || !t.archived).map(copy);
}
