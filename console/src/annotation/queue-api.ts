/**
 * Human annotation through the API: a run's queues (`/evaluations/queues/…`), their scenarios, what each scenario
 * shows the annotator (testcase inputs, traces' inputs and outputs through `/traces/query`), and an annotation
 * written as the reference's web app writes one: an annotation trace (`/annotations/`) linked to the invocation it
 * judges, the human step's result pointing at it (`/evaluations/results/`), then the scenario marked annotated.
 */
import { api } from "../api.ts";
import { testcaseInputs, type Result, type Run, type RunStep, type Scenario } from "../evaluations.ts";

export interface Queue {
  id: string;
  name: string | null;
  description?: string | null;
  run_id: string;
  status?: string | null;
  created_at?: string | null;
  flags: { is_default?: boolean; is_sequential?: boolean } | null;
  data: { user_ids?: string[][] | null; step_keys?: string[] | null; scenario_ids?: string[] | null } | null;
}

/** A field of a human evaluator's output schema (JSON Schema, one level of properties). */
export interface OutputField {
  name: string;
  type: "number" | "integer" | "boolean" | "string" | "json";
  choices?: unknown[];
  minimum?: number;
  maximum?: number;
  description?: string;
  required: boolean;
}

/** A human step of the run and the fields its evaluator's outputs have. */
export interface HumanStep {
  key: string;
  title: string;
  evaluatorId: string | null;
  revisionId: string;
  fields: OutputField[];
}

export interface TraceIO {
  trace_id: string;
  span_id: string;
  inputs: unknown;
  outputs: unknown;
}

/** What one scenario shows and holds: its inputs, the application's output, and its human results so far. */
export interface ScenarioView {
  inputs: Record<string, unknown> | null;
  invocation: TraceIO | null;
  source: TraceIO | null;
  /** Step key → the human result of repeat 0 and the outputs of its annotation, when annotated. */
  annotated: Map<string, { result: Result; outputs: Record<string, unknown> | null }>;
}

/** The user behind the key. */
export async function currentUserId(signal?: AbortSignal): Promise<string | null> {
  const profile = await api<{ id?: string }>("GET", "/profile", undefined, { signal });
  return profile.id ?? null;
}

/** Every queue of the project (the first thousand), newest first. */
export async function listQueues(signal?: AbortSignal): Promise<Queue[]> {
  const body = { windowing: { limit: 1000 } };
  const answer = await api<{ queues: Queue[] }>("POST", "/evaluations/queues/query", body, { signal });
  return answer.queues;
}

/** Users a queue hands scenarios to; none: everyone sees every scenario. */
export const queueUsers = (queue: Queue): string[] => (queue.data?.user_ids ?? []).flat().map((u) => u.toLowerCase());

function fieldOf(name: string, schema: Record<string, any>, required: string[]): OutputField {
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== "null") : schema.type;
  const known = ["number", "integer", "boolean", "string"].includes(type) ? type : "json";
  return {
    name, type: known, required: required.includes(name),
    ...(Array.isArray(schema.enum) ? { choices: schema.enum } : {}),
    ...(typeof schema.minimum === "number" ? { minimum: schema.minimum } : {}),
    ...(typeof schema.maximum === "number" ? { maximum: schema.maximum } : {}),
    ...(typeof schema.description === "string" ? { description: schema.description } : {}),
  };
}

// Stored schemas do not keep their properties' order: quick answers first, free text last.
const FIELD_RANK = (f: OutputField) => (f.required ? 0 : 10) + (f.type === "boolean" ? 0 : f.choices ? 1
  : f.type === "number" || f.type === "integer" ? 2 : f.type === "json" ? 3 : 4);

/** The fields of an evaluator's `schemas.outputs`, required ones first; without a schema, a free-text `comment`. */
export function outputFields(outputs: Record<string, any> | null | undefined): OutputField[] {
  const properties = outputs?.properties;
  if (!properties || typeof properties !== "object") return [{ name: "comment", type: "string", required: false }];
  const required: string[] = Array.isArray(outputs!.required) ? outputs!.required : [];
  const fields = Object.entries<Record<string, any>>(properties)
    .map(([name, schema]) => fieldOf(name, schema ?? {}, required));
  return fields.sort((a, b) => FIELD_RANK(a) - FIELD_RANK(b));
}

/** The queue, its run, and the human steps it asks for (the queue's `step_keys`, else all of the run's). */
export async function loadQueue(
  queueId: string, signal?: AbortSignal,
): Promise<{ queue: Queue; run: Run; steps: HumanStep[] } | null> {
  const { queue } = await api<{ queue?: Queue | null }>(
    "GET", `/evaluations/queues/${encodeURIComponent(queueId)}`, undefined, { signal });
  if (!queue) return null;
  const { run } = await api<{ run: Run }>("GET", `/evaluations/runs/${encodeURIComponent(queue.run_id)}`, undefined, {
    signal,
  });
  const wanted = queue.data?.step_keys;
  const human = (run.data?.steps ?? []).filter((s: RunStep) => s.type === "annotation" && s.origin === "human")
    .filter((s) => !wanted?.length || wanted.includes(s.key));
  const steps = await Promise.all(human.map(async (step): Promise<HumanStep> => {
    const revisionId = step.references.evaluator_revision?.id;
    const body = { evaluator_revision_ref: { id: revisionId } };
    const { evaluator_revision: revision } = await api<{ evaluator_revision: any }>(
      "POST", "/evaluators/revisions/retrieve", body, { signal });
    return {
      key: step.key,
      title: step.references.evaluator?.slug ?? revision?.evaluator_slug ?? step.key,
      evaluatorId: step.references.evaluator?.id ?? revision?.evaluator_id ?? null,
      revisionId,
      fields: outputFields(revision?.data?.schemas?.outputs),
    };
  }));
  return { queue, run, steps };
}

/** The queue's scenarios for `userId` (all of them when null), in order; at most 10,000. */
export async function queueScenarios(
  queueId: string, userId: string | null, signal?: AbortSignal,
): Promise<Scenario[]> {
  const out: Scenario[] = [];
  let next: string | null = null;
  do {
    const page: { scenarios: Scenario[]; windowing?: { next?: string | null } | null } = await api("POST",
      `/evaluations/queues/${encodeURIComponent(queueId)}/scenarios/query`,
      { queue: userId ? { user_id: userId } : null, windowing: { limit: 1000, next } }, { signal });
    out.push(...page.scenarios);
    next = page.windowing?.next ?? null;
  } while (next && out.length < 10_000);
  return out;
}

/**
 * The scenarios of the run every human step has a result for (repeat 0): annotated ones. A run's own scenario
 * status says whether its automatic steps ran, not whether a person judged it.
 */
export async function annotatedScenarios(
  runId: string, steps: HumanStep[], signal?: AbortSignal,
): Promise<Set<string>> {
  const counts = new Map<string, number>();
  for (const step of steps) {
    let next: string | null = null;
    do {
      const body = { result: { run_id: runId, step_key: step.key, repeat_idx: 0 }, windowing: { limit: 1000, next } };
      const page: { results: Result[]; windowing?: { next?: string | null } | null } =
        await api("POST", "/evaluations/results/query", body, { signal });
      for (const r of page.results) {
        if (r.status === "success") counts.set(r.scenario_id, (counts.get(r.scenario_id) ?? 0) + 1);
      }
      next = page.results.length ? page.windowing?.next ?? null : null;
    } while (next);
  }
  return new Set([...counts].filter(([, n]) => n >= steps.length).map(([id]) => id));
}

async function traces(ids: string[], signal?: AbortSignal): Promise<Map<string, TraceIO>> {
  if (ids.length === 0) return new Map();
  const answer = await api<{ traces: TraceIO[] }>("POST", "/traces/query", { trace_ids: ids }, { signal });
  return new Map(answer.traces.map((t) => [t.trace_id, t]));
}

/** One scenario as the annotator sees it. */
export async function loadScenario(
  run: Run, steps: HumanStep[], scenarioId: string, signal?: AbortSignal,
): Promise<ScenarioView> {
  const { results } = await api<{ results: Result[] }>("POST", "/evaluations/results/query", {
    result: { run_id: run.id, scenario_ids: [scenarioId], repeat_idx: 0 }, windowing: { limit: 1000 },
  }, { signal });
  const stepType = new Map((run.data?.steps ?? []).map((s) => [s.key, s.type]));
  const humanKeys = new Set(steps.map((s) => s.key));
  const testcaseId = results.find((r) => r.testcase_id)?.testcase_id;
  const invocationTrace = results.find((r) => stepType.get(r.step_key) === "invocation" && r.trace_id)?.trace_id;
  const sourceTrace = results.find((r) => stepType.get(r.step_key) === "input" && r.trace_id)?.trace_id;
  const human = results.filter((r) => humanKeys.has(r.step_key));
  const [testcases, found, annotations] = await Promise.all([
    testcaseId
      ? api<{ testcases: { data: Record<string, unknown> }[] }>(
        "POST", "/testcases/query", { testcase_ids: [testcaseId] }, { signal })
      : { testcases: [] },
    traces([invocationTrace, sourceTrace].filter((id): id is string => !!id), signal),
    Promise.all(human.map(async (r) => {
      if (!r.trace_id) return null;
      const answer = await api<{ annotation?: { data?: { outputs?: Record<string, unknown> } } }>(
        "GET", `/annotations/${r.trace_id}`, undefined, { signal });
      return answer.annotation?.data?.outputs ?? null;
    })),
  ]);
  return {
    inputs: testcases.testcases[0] ? testcaseInputs(testcases.testcases[0].data) : null,
    invocation: invocationTrace ? found.get(invocationTrace) ?? null : null,
    source: sourceTrace ? found.get(sourceTrace) ?? null : null,
    annotated: new Map(human.map((r, i) => [r.step_key, { result: r, outputs: annotations[i] }])),
  };
}

/**
 * Writes one human step's annotation of a scenario: the annotation trace (edited in place when the step has one)
 * and the step's result naming it.
 */
export async function submitAnnotation(options: {
  run: Run; scenarioId: string; step: HumanStep; view: ScenarioView; outputs: Record<string, unknown>;
}): Promise<void> {
  const { run, scenarioId, step, view, outputs } = options;
  const before = view.annotated.get(step.key);
  const judged = view.invocation ?? view.source;
  let traceId = before?.result.trace_id ?? null;
  if (traceId) {
    await api("PUT", `/annotations/${traceId}`, { annotation: { data: { outputs } } });
  } else {
    const { annotation } = await api<{ annotation: { trace_id: string } }>("POST", "/annotations/", {
      annotation: {
        origin: "human", kind: "eval", channel: "web", data: { outputs },
        references: {
          ...(step.evaluatorId ? { evaluator: { id: step.evaluatorId } } : {}),
          evaluator_revision: { id: step.revisionId },
        },
        links: judged ? { invocation: { trace_id: judged.trace_id, span_id: judged.span_id } } : {},
        meta: { run_id: run.id, scenario_id: scenarioId },
      },
    });
    traceId = annotation.trace_id;
  }
  // Results are set, one per scenario, step and repeat: a second annotation replaces the first's.
  await api("POST", "/evaluations/results/", {
    results: [{
      run_id: run.id, scenario_id: scenarioId, step_key: step.key, repeat_idx: 0, status: "success", trace_id: traceId,
    }],
  });
}

/** Marks a scenario annotated, once each of its human steps has its result. */
export async function closeScenario(scenarioId: string): Promise<void> {
  await api("PATCH", "/evaluations/scenarios/", { scenarios: [{ id: scenarioId, status: "success" }] });
}
