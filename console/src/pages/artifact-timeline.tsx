import { useEffect, useState } from "preact/hooks";
import { useApi, type ArtifactKind } from "../api.ts";
import type { Artifact } from "../artifacts.ts";
import { Author } from "../components/author.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { ListFooter } from "../components/list-footer.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";
import { usePagedList } from "../paged-list.ts";
import { queryRevisions, type Revision } from "../revisions.ts";
import { loadEnvironments } from "../environments.ts";
import { hrefOf, navigate } from "../router.ts";
import { EnvironmentChips, RevisionEnvironmentActions, servingByRevision } from "./timeline-environments.tsx";

const PAGE = 20;

/**
 * A variant's revisions, newest first, a page at a time: version, message, author, date. A row's version
 * selects it (`?revision=`); ticking two rows and "Compare" opens their diff. An application's timeline marks the
 * revisions environments serve (a chip per environment) and offers deploy and the playground on each row.
 */
export function Timeline(props: {
  kind: ArtifactKind; artifactId: string; variantId: string; selected: string | null; round: number;
  /** The application whose timeline this is (environments serve applications only). */
  application?: Artifact;
  onDeployed?: () => void;
}) {
  const { kind, artifactId, variantId, application } = props;
  const [deploys, setDeploys] = useState(0);
  const environments = useApi(
    (signal) => (application ? loadEnvironments(signal) : Promise.resolve([])),
    [application?.id, props.round, deploys],
  );
  const serving = application && environments.data ? servingByRevision(application, environments.data) : new Map();
  const deployed = () => {
    setDeploys((n) => n + 1);
    props.onDeployed?.();
  };
  const [picked, setPicked] = useState<string[]>([]);
  const list = usePagedList(
    (from, signal) => queryRevisions(kind, variantId, { next: from, limit: PAGE }, signal),
    [kind, variantId, props.round],
  );
  const { items, loading, error, reload } = list;
  useEffect(() => setPicked([]), [kind, variantId, props.round]);

  const toggle = (id: string, on: boolean) => setPicked((p) => (on ? [...p.filter((x) => x !== id), id].slice(-2) : p.filter((x) => x !== id)));
  const compare = () => {
    const [a, b] = picked.map((id) => items.find((r) => r.id === id)!).sort((x, y) => Number(x.version) - Number(y.version));
    navigate(hrefOf(`/${kind}/${artifactId}/diff`, { from: a.id, to: b.id, variant: variantId }));
  };
  const here = (query: Record<string, string>) => hrefOf(`/${kind}/${artifactId}`, { variant: variantId, ...query });

  if (error && items.length === 0) return <ErrorBanner message={error} onRetry={reload} />;
  if (loading && items.length === 0) return <Loading label="Loading revisions…" />;
  return (
    <>
      <div class="controls timeline-controls">
        <span class="muted">{picked.length === 2 ? "Two revisions picked." : "Pick two revisions to compare them."}</span>
        <button type="button" class="button-primary" disabled={picked.length !== 2} onClick={compare}>Compare</button>
      </div>
      <div class="table-wrap">
        <table class="timeline">
          <caption class="visually-hidden">Revisions, newest first</caption>
          <thead>
            <tr>
              <th scope="col">Pick</th><th scope="col">Version</th><th scope="col">Message</th>
              <th scope="col">Author</th><th scope="col">Date</th><th scope="col" class="wide">Changes</th>
              {application && <th scope="col">Actions</th>}
            </tr>
          </thead>
          <tbody>
            {items.map((r) => (
              <tr key={r.id} class={r.id === props.selected ? "selected" : undefined} aria-current={r.id === props.selected ? "true" : undefined}>
                <td>
                  <input type="checkbox" checked={picked.includes(r.id)} aria-label={`Pick version ${r.version} to compare`}
                    onChange={(e) => toggle(r.id, (e.target as HTMLInputElement).checked)} />
                </td>
                <td>
                  <Link href={here({ revision: r.id })} aria-label={`Version ${r.version}`}>v{r.version}</Link>
                  {r.deleted_at && <span class="badge">archived</span>}
                  <EnvironmentChips serving={serving.get(r.id) ?? []} />
                </td>
                <td>{r.message || <span class="muted">—</span>}</td>
                <td><Author id={r.author} /></td>
                <td><Time value={r.date} /></td>
                <td class="wide">
                  {r.parent_id && Number(r.version) > 1 && (
                    <Link href={hrefOf(`/${kind}/${artifactId}/diff`, { from: r.parent_id, to: r.id, variant: variantId })}>vs. previous</Link>
                  )}
                </td>
                {application && (
                  <td>
                    <RevisionEnvironmentActions application={application} revision={r}
                      environments={environments.data ?? []} onDeployed={deployed} />
                  </td>
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <ListFooter list={list} />
    </>
  );
}
