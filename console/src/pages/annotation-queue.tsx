import { useEffect, useState } from "preact/hooks";
import { messageOf, useApi } from "../api.ts";
import { AnnotationFields, draftOf, outputsOf, type Draft } from "../annotation/annotation-fields.tsx";
import {
  annotatedScenarios, closeScenario, currentUserId, loadQueue, loadScenario, queueScenarios, queueUsers,
  submitAnnotation, type HumanStep,
} from "../annotation/queue-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { brief, type Run, type Scenario } from "../evaluations.ts";
import { hrefOf, setQuery, type ViewProps } from "../router.ts";
import { queueTitle } from "./annotations.tsx";

/**
 * `/annotations/{queueId}?scenario=…&all=1`: a queue's scenarios one at a time (the signed-in user's when the queue
 * hands them out, else all; `all` shows every one): the inputs and the application's output, a form per human
 * evaluator built from its output schema, "Submit and next", and the queue's progress.
 */
export function AnnotationQueuePage({ params, query }: ViewProps) {
  const all = query.get("all") === "1";
  const [round, setRound] = useState(0);
  const loaded = useApi(async (signal) => {
    const [found, me] = await Promise.all([loadQueue(params.id, signal), currentUserId(signal)]);
    if (!found) return null;
    const mine = !all && !!me && queueUsers(found.queue).includes(me.toLowerCase());
    return { ...found, mine };
  }, [params.id, all]);
  const scenarios = useApi(async (signal) => {
    if (!loaded.data) return null;
    const { mine, run, steps } = loaded.data;
    const [list, annotated] = await Promise.all([
      queueScenarios(params.id, mine ? await currentUserId(signal) : null, signal),
      annotatedScenarios(run.id, steps, signal),
    ]);
    return { list, annotated };
  }, [loaded.data, round]);

  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (loaded.data === null) {
    return (
      <EmptyState title="No such queue">
        <p><Link href="/annotations">Back to the annotation queues</Link>.</p>
      </EmptyState>
    );
  }
  if (!loaded.data) return <Loading label="Loading the queue…" />;
  const { queue, run, steps, mine } = loaded.data;
  const list = scenarios.data?.list ?? [];
  const isDone = (s: Scenario) => !!scenarios.data?.annotated.has(s.id);
  const done = list.filter(isDone).length;
  const wanted = query.get("scenario");
  const current = list.find((s) => s.id === wanted) ?? list.find((s) => !isDone(s)) ?? list[0];
  const index = current ? list.indexOf(current) : -1;
  const open = (s: Scenario | undefined) => s && setQuery({ scenario: s.id }, { replace: false });
  const nextPending = (after: number) =>
    list.slice(after + 1).find((s) => !isDone(s)) ?? list.find((s, i) => i !== after && !isDone(s));

  return (
    <>
      <p class="crumbs"><Link href="/annotations">Annotations</Link> / {queueTitle(queue)}</p>
      <h1>{queueTitle(queue)}</h1>
      <p class="muted">
        {mine ? "The scenarios this queue hands you" : "Every scenario of this queue"}
        {queueUsers(queue).length > 0 && (all
          ? <> (<Link href={hrefOf(`/annotations/${queue.id}`, {})}>show mine only</Link>)</>
          : <> (<Link href={hrefOf(`/annotations/${queue.id}`, { all: "1" })}>show everyone's</Link>)</>)}
        . Run: <Link href={`/evaluations/${run.id}`}>{run.name || `…${run.id.slice(-8)}`}</Link>
      </p>
      {steps.length === 0 && (
        <ErrorBanner message="This queue's run has no human evaluator step: there is nothing to annotate." />
      )}
      {scenarios.error && <ErrorBanner message={scenarios.error} onRetry={scenarios.reload} />}
      {!scenarios.data && !scenarios.error && <Loading label="Loading scenarios…" />}
      {scenarios.data && (
        <div class="an-progress" role="status">
          <progress max={list.length || 1} value={done} aria-label="Annotated scenarios" />
          <span>{done} of {list.length} annotated{list.length > 0 && done === list.length ? ": all done" : ""}</span>
        </div>
      )}
      {scenarios.data && list.length === 0 && (
        <EmptyState title="No scenarios"><p>Nothing was sent to this queue{mine ? " for you" : ""} yet.</p></EmptyState>
      )}
      {current && steps.length > 0 && (
        <>
          <nav class="an-nav" aria-label="Scenarios">
            <button type="button" disabled={index <= 0} onClick={() => open(list[index - 1])}>Previous</button>
            <span>
              Scenario {index + 1} of {list.length}
              {isDone(current) && <span class="badge badge-live">annotated</span>}
            </span>
            <button type="button" disabled={index >= list.length - 1} onClick={() => open(list[index + 1])}>
              Next
            </button>
          </nav>
          <ScenarioAnnotation key={`${current.id} ${round}`} run={run} steps={steps} scenario={current}
            onSubmitted={() => {
              open(nextPending(index) ?? current);
              setRound((r) => r + 1);
            }} />
        </>
      )}
    </>
  );
}

/** One scenario: what it shows, and a form per human step, submitted together. */
function ScenarioAnnotation(props: { run: Run; steps: HumanStep[]; scenario: Scenario; onSubmitted: () => void }) {
  const { run, steps, scenario } = props;
  const view = useApi((signal) => loadScenario(run, steps, scenario.id, signal), [scenario.id]);
  const [drafts, setDrafts] = useState<Record<string, Draft>>({});
  const [state, setState] = useState<{ busy?: boolean; error?: string }>({});
  useEffect(() => {
    const annotated = view.data?.annotated;
    if (!annotated) return;
    setDrafts(Object.fromEntries(steps.map((s) => [s.key, draftOf(s.fields, annotated.get(s.key)?.outputs)])));
  }, [view.data]);
  if (view.error) return <ErrorBanner message={view.error} onRetry={view.reload} />;
  if (!view.data) return <Loading label="Loading the scenario…" />;
  const shown = view.data;
  const output = shown.invocation?.outputs ?? shown.source?.outputs;
  const inputs = shown.inputs ?? (shown.source?.inputs as Record<string, unknown> | null | undefined) ?? null;

  const submit = async (event: Event) => {
    event.preventDefault();
    const outputs = new Map<HumanStep, Record<string, unknown>>();
    for (const step of steps) {
      const checked = outputsOf(step.fields, drafts[step.key] ?? {});
      if (checked.problem) {
        return setState({ error: steps.length > 1 ? `${step.title}: ${checked.problem}` : checked.problem });
      }
      outputs.set(step, checked.outputs!);
    }
    setState({ busy: true });
    try {
      for (const [step, values] of outputs) {
        await submitAnnotation({ run, scenarioId: scenario.id, step, view: shown, outputs: values });
      }
      await closeScenario(scenario.id);
      setState({});
      props.onSubmitted();
    } catch (error) {
      setState({ error: messageOf(error) });
    }
  };

  return (
    <form class="an-scenario" onSubmit={submit} aria-label="Annotate this scenario">
      <section class="an-show">
        <h2>Inputs</h2>
        {inputs && Object.keys(inputs).length > 0 ? (
          <dl class="facts an-inputs">
            {Object.entries(inputs).map(([name, value]) => <><dt>{name}</dt><dd>{brief(value, 2000)}</dd></>)}
          </dl>
        ) : <p class="muted">This scenario has no inputs.</p>}
        <h2>Output</h2>
        {output === undefined || output === null
          ? <p class="muted">No application output for this scenario.</p>
          : <pre class="an-output">{typeof output === "string" ? output : JSON.stringify(output, null, 2)}</pre>}
      </section>
      <section class="an-form">
        {steps.map((step) => (
          <fieldset class="an-step" key={step.key}>
            <legend>{step.title}</legend>
            <AnnotationFields stepKey={step.key} fields={step.fields} draft={drafts[step.key] ?? {}}
              onChange={(d) => {
                setDrafts((all) => ({ ...all, [step.key]: d }));
                setState({});
              }} />
          </fieldset>
        ))}
        {state.error && <div class="banner banner-error" role="alert">{state.error}</div>}
        <div class="an-actions">
          <button type="submit" class="button-primary" disabled={state.busy}>
            {state.busy ? "Submitting…" : "Submit and next"}
          </button>
        </div>
      </section>
    </form>
  );
}
