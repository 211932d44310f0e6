import { useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { navigate } from "../router.ts";

interface Revision {
  id: string;
  version: string;
  artifact_slug: string;
  variant_slug: string;
}

type Family = "testsets" | "applications" | "evaluators";

/** The newest revisions of a kind (up to 200), the commits that hold something (version 0 is a variant's empty start). */
async function revisions(kind: Family, signal: AbortSignal): Promise<Revision[]> {
  const answer = await api<Record<string, Revision[]>>("POST", `/${kind}/revisions/query`, { windowing: { limit: 200, order: "descending" } }, { signal });
  return (answer[`${kind.slice(0, -1)}_revisions`] ?? []).filter((r) => r.version !== "0");
}

const label = (r: Revision) => `${r.artifact_slug} v${r.version}${r.variant_slug.endsWith(".default") || r.variant_slug === "default" ? "" : ` (${r.variant_slug})`}`;

/** Starts an evaluation from revisions picked in the registry (`POST /simple/evaluations/`) and opens its page. */
export function NewEvaluation(props: { onCancel: () => void }) {
  const loaded = useApi(async (signal) => {
    const [testsets, applications, evaluators] = await Promise.all([
      revisions("testsets", signal), revisions("applications", signal), revisions("evaluators", signal),
    ]);
    return { testsets, applications, evaluators };
  }, []);
  const [name, setName] = useState("");
  const [testset, setTestset] = useState("");
  const [application, setApplication] = useState("");
  const [evaluators, setEvaluators] = useState<string[]>([]);
  const [reuse, setReuse] = useState(true);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);

  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading revisions…" />;
  const data = loaded.data;
  const chosenTestset = testset || data.testsets[0]?.id || "";

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const created = await api<{ evaluation: { id: string } }>("POST", "/simple/evaluations/", {
        evaluation: {
          name: name.trim() || null,
          flags: { is_cached: reuse },
          data: {
            testset_steps: chosenTestset ? [chosenTestset] : [],
            application_steps: application ? [application] : [],
            evaluator_steps: Object.fromEntries(evaluators.map((id) => [id, "auto"])),
          },
        },
      });
      navigate(`/evaluations/${created.evaluation.id}`);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  const toggle = (id: string, on: boolean) => setEvaluators((list) => (on ? [...list, id] : list.filter((x) => x !== id)));

  return (
    <form class="card ev-new" onSubmit={submit} aria-labelledby="ev-new-title">
      <h2 id="ev-new-title">New evaluation</h2>
      <label class="ev-field">
        Name
        <input type="text" value={name} placeholder="nightly" onInput={(e) => setName(e.currentTarget.value)} />
      </label>
      <label class="ev-field">
        Testset revision
        <select value={chosenTestset} onChange={(e) => setTestset(e.currentTarget.value)} required>
          {data.testsets.length === 0 && <option value="">No testsets yet</option>}
          {data.testsets.map((r) => <option value={r.id}>{label(r)}</option>)}
        </select>
        {data.testsets.length === 0 && (
          <span class="muted">No testsets yet: <Link href="/testsets/new">create one</Link> first.</span>
        )}
      </label>
      <label class="ev-field">
        Application revision
        <select value={application} onChange={(e) => setApplication(e.currentTarget.value)}>
          <option value="">None: grade the testset's own outputs</option>
          {data.applications.map((r) => <option value={r.id}>{label(r)}</option>)}
        </select>
      </label>
      <fieldset class="ev-field">
        <legend>Evaluators</legend>
        {data.evaluators.length === 0 && (
          <p class="muted">No evaluators yet: <Link href="/evaluators/new">create one</Link> first.</p>
        )}
        {data.evaluators.map((r) => (
          <label class="checkbox">
            <input type="checkbox" checked={evaluators.includes(r.id)} onChange={(e) => toggle(r.id, e.currentTarget.checked)} />
            {label(r)}
          </label>
        ))}
      </fieldset>
      <label class="checkbox">
        <input type="checkbox" checked={reuse} onChange={(e) => setReuse(e.currentTarget.checked)} />
        Reuse earlier results of the same revisions and testcases
      </label>
      <ErrorBanner message={error} />
      <div class="ev-actions">
        <button type="submit" class="button-primary" disabled={busy || !chosenTestset || evaluators.length === 0}>
          {busy ? "Starting…" : "Start evaluation"}
        </button>
        <button type="button" onClick={props.onCancel}>Cancel</button>
      </div>
    </form>
  );
}
