/*
 * The attribute conventions other instrumentations speak, chained in the reference's order (its
 * AdapterRegistry): OpenLLMetry, OpenInference, the GenAI semantic conventions, the Vercel AI SDK. A later one
 * overrides an earlier one on the same `ag.*` key, and the span's own `ag.*` attributes override them all.
 */

import { genAi } from "./gen-ai.ts";
import type { Attributes } from "./mapping.ts";
import { openInference } from "./openinference.ts";
import { openLlmetry } from "./openllmetry.ts";
import { vercelAi } from "./vercel-ai.ts";

const CONVENTIONS = [openLlmetry, openInference, genAi, vercelAi];

/**
 * The `ag.*` attributes the span's other conventions stand for, then its own `ag.*` ones, in one object whose
 * key order is that of first appearance (dotted keys meeting at a prefix resolve in that order). Other keys may
 * be there too: callers read the `ag.*` ones.
 */
export function agAttributes(attributes: Attributes): Attributes {
  // Spans of the reference's SDK carry ag.* keys only: nothing to map.
  if (Object.keys(attributes).every((key) => key.startsWith("ag."))) return attributes;
  const out: Attributes = {};
  for (const convention of CONVENTIONS) Object.assign(out, convention(attributes));
  for (const [key, value] of Object.entries(attributes)) if (key.startsWith("ag.")) out[key] = value;
  return out;
}
