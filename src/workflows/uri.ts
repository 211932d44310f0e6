/**
 * Workflow URIs locate a handler: `provider:kind:key:version`.
 * The seed spells the provider `svc`; the reference system spells it `agenta`; both name the same
 * built-in and custom handlers. Short forms fill in from the right: `key` → `svc:builtin:key:latest`,
 * `kind:key` → `svc:kind:key:latest`, `provider:kind:key` → version `latest`.
 */
export interface WorkflowUri {
  provider: string;
  kind: string;
  key: string;
  version: string;
}

const HOSTED_PROVIDERS = new Set(["svc", "agenta"]);
const LATEST: Record<string, string> = { latest: "v0" };

export function parseUri(uri: string): WorkflowUri | null {
  const parts = uri.trim().split(":");
  if (parts.some((p) => p === "") || parts.length > 4) return null;
  const [provider, kind, key, version] =
    parts.length === 1 ? ["svc", "builtin", parts[0], "latest"]
    : parts.length === 2 ? ["svc", parts[0], parts[1], "latest"]
    : parts.length === 3 ? [...parts, "latest"]
    : parts;
  return { provider: HOSTED_PROVIDERS.has(provider) ? "svc" : provider, kind, key, version: LATEST[version] ?? version };
}

/** The canonical (seed) spelling of a URI, e.g. `agenta:builtin:chat:v0` → `svc:builtin:chat:v0`. */
export function formatUri(u: WorkflowUri): string {
  return `${u.provider}:${u.kind}:${u.key}:${u.version}`;
}

/** Handlers that the hosted runtime serves itself (built-in prompts, custom code and the mock). */
export function isHosted(u: WorkflowUri): boolean {
  if (u.provider !== "svc") return false;
  return u.kind === "builtin" || (u.kind === "custom" && (u.key === "code" || u.key === "mock"));
}

/** The address of a hosted handler: `{publicUrl}/services/{key}/{version}`. */
export function serviceUrl(publicUrl: string, u: WorkflowUri): string {
  return `${publicUrl.replace(/\/+$/, "")}/services/${u.key}/${u.version}`;
}
