/*
 * A span's labels: the part of its attributes an equality filter is answered from through an index (`spans.labels`,
 * migration 036). They are the attributes without `ag.data` (inputs, outputs, parameters), `ag.metrics` (durations,
 * tokens, costs), `ag.references` (the span's `references` column holds them, indexed: a filter on `references`
 * finds them) and strings longer than `LABEL_CHARS`. What is mostly new in every span, and would give the index a
 * key of its own a span, is left out; the keys that repeat (types, meta, sessions, users, the original attributes'
 * names and short values) stay, and the row stays short. A containment `attributes @> x` holds exactly when
 * `labels @> x` does for every `x` of which `labelsHold(x)` is true; any other is answered from the attributes.
 */

import { isObject } from "./ag-attributes.ts";
import { setOwn } from "./own-property.ts";

/** Longest string a span's labels keep. */
export const LABEL_CHARS = 128;
const UNLABELLED = new Set(["data", "metrics", "references"]);

/** The labels of a span's attributes (null without attributes). */
export function spanLabels(attributes: Record<string, unknown> | null): Record<string, unknown> | null {
  if (attributes === null) return null;
  const labels: Record<string, unknown> = {};
  for (const key of Object.keys(attributes)) {
    const value = attributes[key];
    if (key === "ag" && isObject(value)) {
      const ag: Record<string, unknown> = {};
      for (const field of Object.keys(value)) {
        if (!UNLABELLED.has(field)) keep(ag, field, value[field]);
      }
      labels.ag = ag;
    } else keep(labels, key, value);
  }
  return labels;
}

function keep(into: Record<string, unknown>, key: string, value: unknown) {
  const kept = labelled(value);
  if (kept !== undefined) setOwn(into, key, kept);
}

/** `value` without its long strings (undefined when it is one). Containers stay, even emptied. */
function labelled(value: unknown): unknown {
  if (typeof value === "string") return value.length > LABEL_CHARS ? undefined : value;
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      const kept = labelled(item);
      if (kept !== undefined) items.push(kept);
    }
    return items;
  }
  if (isObject(value)) {
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(value)) keep(object, key, value[key]);
    return object;
  }
  return value;
}

/** Whether the containment of `x` (an attributes object) in a span's attributes can be read from its labels. */
export function labelsHold(x: Record<string, unknown>): boolean {
  const ag = x.ag;
  if (ag !== undefined && (!isObject(ag) || Object.keys(ag).some((field) => UNLABELLED.has(field)))) return false;
  return Object.values(x).every(short);
}

const short = (value: unknown): boolean => {
  if (typeof value === "string") return value.length <= LABEL_CHARS;
  if (Array.isArray(value)) return value.every(short);
  if (isObject(value)) return Object.values(value).every(short);
  return true;
};
