import { unprocessable } from "../errors.ts";
import { deepMerge, dotPath, getIn, setIn, type Json } from "../versioning/json-path.ts";
import type { RevisionRow } from "../versioning/rows.ts";

export interface WorkflowDelta {
  set?: Record<string, Json> | null;
  remove?: string[] | null;
  operations?: { operation: string; target: (string | number)[]; value?: Json }[] | null;
}

/**
 * A workflow delta edits the base revision's data: `set` deep-merges, `remove` drops dotted paths,
 * `operations` apply one by one (set, merge, remove, add_item, replace_item, remove_item).
 */
export function applyWorkflowDelta(base: RevisionRow | null, delta: WorkflowDelta, wrapper: string): Json {
  let data = (base?.data ?? {}) as Json;
  if (delta.set) data = deepMerge(data, delta.set);
  for (const path of delta.remove ?? []) data = setIn(data, dotPath(path), undefined);
  for (const [i, op] of (delta.operations ?? []).entries()) {
    const fail = (msg: string) => unprocessable([{ loc: ["body", wrapper, "delta", "operations", i], msg, type: "value_error" }]);
    const current = getIn(data, op.target);
    switch (op.operation) {
      case "set":
        data = setIn(data, op.target, op.value ?? null);
        break;
      case "merge":
        data = setIn(data, op.target, deepMerge(current ?? {}, op.value ?? {}));
        break;
      case "remove":
        data = setIn(data, op.target, undefined);
        break;
      case "add_item":
        if (current !== undefined && !Array.isArray(current)) throw fail("add_item needs a list at target");
        data = setIn(data, op.target, [...((current as Json[]) ?? []), op.value ?? null]);
        break;
      case "replace_item":
      case "remove_item": {
        const parent = getIn(data, op.target.slice(0, -1));
        if (!Array.isArray(parent) || typeof op.target.at(-1) !== "number" || (op.target.at(-1) as number) >= parent.length) {
          throw fail(`${op.operation} needs an existing list index at target`);
        }
        data = setIn(data, op.target, op.operation === "remove_item" ? undefined : op.value ?? null);
        break;
      }
      default:
        throw fail(`Unsupported operation ${op.operation}`);
    }
  }
  return data;
}
