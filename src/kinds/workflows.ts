import { schemasForUri } from "../catalog/lookup.ts";
import { unprocessable } from "../errors.ts";
import type { CommitInput, Kind, PreparedData, ReadContext } from "../versioning/kind.ts";
import type { RevisionRow } from "../versioning/rows.ts";
import { headerProblem } from "../runtime/net/header-text.ts";
import { checkHookUrl } from "../workflows/hook-url.ts";
import { isHosted, parseUri, serviceUrl } from "../workflows/uri.ts";
import { applyWorkflowDelta, type WorkflowDelta } from "./workflow-delta.ts";

export interface WorkflowData {
  uri?: string | null;
  url?: string | null;
  headers?: Record<string, unknown> | null;
  runtime?: string | null;
  script?: string | null;
  schemas?: Record<string, unknown> | null;
  parameters?: Record<string, unknown> | null;
}

/**
 * Workflow revision data: the handler's URI, its schemas (from the catalog template when the client
 * sends none) and its parameters. Hosted handlers get `data.url` on every read, never from clients,
 * so the address follows the server's public URL.
 */
function prepare(wrapper: string) {
  return (commit: CommitInput): PreparedData => {
    const data = { ...((commit.data ?? {}) as WorkflowData) };
    const headers = data.headers && typeof data.headers === "object" ? headerProblem(data.headers) : null;
    if (headers) {
      throw unprocessable([{ loc: ["body", wrapper, "data", "headers", headers.name], msg: headers.detail, type: "value_error" }]);
    }
    if (!data.uri) return { data: Object.keys(data).length ? data : null, flags: {} };
    const uri = parseUri(data.uri);
    if (!uri) throw unprocessable([{ loc: ["body", wrapper, "data", "uri"], msg: `Malformed URI "${data.uri}": expected provider:kind:key:version`, type: "value_error" }]);
    if (isHosted(uri)) delete data.url;
    if (uri.kind === "custom" && uri.key === "hook") {
      checkHookUrl(data.url, commit.config?.allowPrivateHooks ?? false, ["body", wrapper, "data", "url"]);
    }
    data.schemas ??= schemasForUri(data.uri) ?? undefined;
    if (data.schemas === undefined) delete data.schemas;
    return {
      data,
      flags: {
        is_custom: uri.kind === "custom",
        is_llm: uri.kind === "builtin" && (uri.key === "completion" || uri.key === "chat"),
        is_chat: uri.key === "chat",
        is_hook: uri.kind === "custom" && uri.key === "hook",
        is_code: uri.kind === "custom" && uri.key === "code",
        has_url: !!data.url || isHosted(uri),
        has_script: !!data.script,
      },
    };
  };
}

/**
 * Adds the hosted runtime's address to what was stored: built-in handlers are served at
 * `/services/{key}/{version}` (the mock too); custom code at its revision's own address, since the script that
 * runs is part of the revision rather than of the request.
 */
export function presentWorkflowData(row: RevisionRow, read: Pick<ReadContext, "config">): unknown {
  const data = row.data as WorkflowData | null;
  if (!data?.uri) return data;
  const uri = parseUri(data.uri);
  if (!uri || !isHosted(uri)) return data;
  const url = uri.kind === "custom" && uri.key === "code" ? `${read.config.publicUrl}/services/revisions/${row.id}` : serviceUrl(read.config.publicUrl, uri);
  return { ...data, url };
}

function workflowKind(name: string, plural: string, flags: Record<string, boolean>): Kind {
  const wrapper = `${name}_revision`;
  return {
    name,
    plural,
    family: "workflow",
    aliases: name === "workflow" ? [] : ["workflow"],
    flags,
    prepare: prepare(wrapper),
    present: presentWorkflowData,
    applyDelta: (base, delta) => applyWorkflowDelta(base, delta as WorkflowDelta, wrapper),
  };
}

export const applications = workflowKind("application", "applications", { is_application: true });
export const evaluators = workflowKind("evaluator", "evaluators", { is_evaluator: true });
export const workflows = workflowKind("workflow", "workflows", {});
