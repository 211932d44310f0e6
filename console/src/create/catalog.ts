/** The catalog's templates and presets (`GET /api/{family}/catalog/…`), and creating a workflow from one. */
import { api } from "../api.ts";
import type { OkAnswer } from "../api-types.ts";

/** A catalog template: its key, name, description, flags and the data a new revision starts from. */
export type Template = OkAnswer<"/api/applications/catalog/templates/", "get">["templates"][number];
/** A template's preset: parameters ready to use (`data.parameters`). */
export type Preset = OkAnswer<"/api/evaluators/catalog/templates/{template_key}/presets/", "get">["presets"][number];

export type Family = "applications" | "workflows" | "evaluators";

/** The family's templates that are not archived, recommended ones first. */
export async function listTemplates(family: Family, signal?: AbortSignal): Promise<Template[]> {
  const answer = await api<{ templates: Template[] }>("GET", `/${family}/catalog/templates/`, undefined, { signal });
  const recommended = (t: Template) => (t.flags?.is_recommended ? 0 : 1);
  return answer.templates.filter((t) => !t.flags?.is_archived).sort((a, b) => recommended(a) - recommended(b));
}

/** A template's presets. */
export async function listPresets(family: Family, key: string, signal?: AbortSignal): Promise<Preset[]> {
  const path = `/${family}/catalog/templates/${encodeURIComponent(key)}/presets/`;
  return (await api<{ presets: Preset[] }>("GET", path, undefined, { signal })).presets;
}

/** Creates an application, workflow or evaluator with its first revision (`POST /simple/{family}/`); answers its id. */
export async function createWorkflow(
  family: Family, header: { slug: string; name: string; description?: string }, data: Record<string, unknown>,
): Promise<string> {
  const one = family.slice(0, -1);
  const answer = await api<Record<string, { id: string }>>("POST", `/simple/${family}/`, {
    [one]: { slug: header.slug, name: header.name, description: header.description || null, data },
  });
  return answer[one].id;
}
