import type { ProjectEvent } from "../events/event.ts";

/** What `payload_fields` selectors read: the reference's `{event, subscription, scope}`. */
export interface PayloadContext {
  event: Record<string, unknown>;
  subscription: Record<string, unknown>;
  scope: { project_id: string };
}

/** The subscription fields a payload may show (never its data, URL, headers or secret). */
export interface SubscriptionContext {
  id: string;
  name?: string | null;
  tags?: Record<string, unknown> | null;
  meta?: Record<string, unknown> | null;
  created_at?: string | null;
  updated_at?: string | null;
}

const MAX_DEPTH = 10;

const present = (o: object) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** The payload context of one event for one subscription. */
export function payloadContext(
  event: ProjectEvent, subscription: SubscriptionContext, projectId: string,
): PayloadContext {
  const { id, name, tags, meta, created_at, updated_at } = subscription;
  return {
    event: present(event),
    subscription: present({ id, name, tags, meta, created_at, updated_at }),
    scope: { project_id: projectId },
  };
}

/**
 * The body of a delivery: the whole context, or `payload_fields` with each string leaf that is a selector (`$`,
 * `$.a.b`, `$.a[0]`, `$['a']`, or a JSON Pointer `/a/b`) replaced by what it selects (null when nothing), and every
 * other leaf kept as written. Templates nest at most ten levels; deeper parts are null.
 */
export function renderPayload(fields: unknown, context: PayloadContext): unknown {
  return fields === null || fields === undefined ? context : resolveTemplate(fields, context, 0);
}

function resolveTemplate(template: unknown, context: PayloadContext, depth: number): unknown {
  if (depth > MAX_DEPTH) return null;
  if (Array.isArray(template)) return template.map((t) => resolveTemplate(t, context, depth + 1));
  if (template !== null && typeof template === "object") {
    return Object.fromEntries(Object.entries(template).map(([k, v]) => [k, resolveTemplate(v, context, depth + 1)]));
  }
  if (typeof template !== "string") return template;
  if (template.startsWith("$")) return select(jsonPath(template), context);
  if (template.startsWith("/")) return select(jsonPointer(template), context);
  return template;
}

/** The steps of a `$`-path, or null when it is not one this resolver reads. */
function jsonPath(path: string): (string | number)[] | null {
  const steps: (string | number)[] = [];
  const step = /\.([A-Za-z_$][\w$-]*)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]/y;
  step.lastIndex = 1;
  while (step.lastIndex < path.length) {
    const at = step.lastIndex;
    const m = step.exec(path);
    if (!m || m.index !== at) return null;
    steps.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (m[3] ?? m[4]).replace(/\\(.)/g, "$1")));
  }
  return steps;
}

function jsonPointer(pointer: string): string[] {
  return pointer.slice(1).split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));
}

function select(steps: (string | number)[] | null, context: PayloadContext): unknown {
  if (steps === null) return null;
  let at: unknown = context;
  for (const step of steps) {
    if (Array.isArray(at) && /^\d+$/.test(String(step))) at = at[Number(step)];
    else if (at !== null && typeof at === "object" && !Array.isArray(at) && Object.hasOwn(at, step)) {
      at = (at as Record<string, unknown>)[step];
    } else return null;
  }
  return at === undefined ? null : at;
}

/** The body as the reference sends it: JSON with sorted keys and no spaces (what the signature covers). */
export function canonicalBody(value: unknown): string {
  return JSON.stringify(sortKeys(value));
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== "object") return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]));
}
