/**
 * The configurations of a side-by-side run. The first column runs the draft being edited; any other runs the
 * draft or a committed revision (of any variant), optionally on another model. All run on the same inputs.
 */
import type { InvokeTarget } from "../invoke.ts";
import type { Revision } from "../revisions.ts";

export interface Column {
  /** Stable across edits, so that a column keeps its output when another is removed. */
  key: number;
  /** `"draft"`, or the id of a committed revision. */
  source: string;
  /** Another model than the configuration's own; empty keeps it. */
  model: string;
}

/**
 * What a column runs: the revision to invoke and, when it differs from what is stored, its parameters inline.
 * `revisions` are the revisions fetched with their data (a model override needs the revision's parameters).
 */
export function columnCall(
  column: Column, base: Revision, draft: { parameters: Record<string, any>; changed: boolean }, revisions: Revision[],
): { target: InvokeTarget; parameters?: Record<string, any> } {
  const isDraft = column.source === "draft";
  const revision = isDraft ? base : revisions.find((r) => r.id === column.source);
  const model = column.model.trim();
  if (!revision) return { target: { revisionId: column.source } };
  if (!model) {
    return { target: { revisionId: revision.id }, parameters: isDraft && draft.changed ? draft.parameters : undefined };
  }
  const parameters: Record<string, any> = (isDraft ? draft.parameters : revision.data?.parameters) ?? {};
  const prompt = parameters.prompt ?? {};
  return {
    target: { revisionId: revision.id },
    parameters: { ...parameters, prompt: { ...prompt, llm_config: { ...(prompt.llm_config ?? {}), model } } },
  };
}

/** The model a column's configuration names before any override (the placeholder of its model field). */
export function columnModel(column: Column, draftParameters: Record<string, any>, revisions: Revision[]): string {
  const parameters = column.source === "draft"
    ? draftParameters : revisions.find((r) => r.id === column.source)?.data?.parameters;
  const model = parameters?.prompt?.llm_config?.model;
  return typeof model === "string" ? model : "";
}
