import { useApi, type ArtifactKind } from "../api.ts";
import { fetchArtifact, KIND_TITLES } from "../artifacts.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { Link } from "../components/link.tsx";
import { RevisionDiff } from "../diff/revision-diff.tsx";
import { hrefOf, type ViewProps } from "../router.ts";

/** `/{kind}/{id}/diff?from=…&to=…`: two revisions side by side. */
export function ArtifactDiffPage({ params, query, kind }: ViewProps & { kind: ArtifactKind }) {
  const titles = KIND_TITLES[kind];
  const from = query.get("from");
  const to = query.get("to");
  const variant = query.get("variant");
  const artifact = useApi((signal) => fetchArtifact(kind, params.id, signal), [kind, params.id]);
  const page = `/${kind}/${params.id}`;
  const back = kind === "environments" ? "/environments" : `/registry?kind=${kind}`;
  return (
    <>
      <p class="crumbs">
        <Link href={back}>{titles.many}</Link> / <Link href={hrefOf(page, { variant })}>{artifact.data?.slug ?? "…"}</Link> / diff
      </p>
      <h1>
        Compare revisions
        {from && to && <span class="heading-actions"><Link class="button-link" href={hrefOf(`${page}/diff`, { from: to, to: from, variant })}>Swap</Link></span>}
      </h1>
      {from && to
        ? <RevisionDiff kind={kind} from={from} to={to} />
        : <EmptyState title="Two revisions are needed"><p>Pick two revisions in the artifact's timeline and press Compare.</p></EmptyState>}
    </>
  );
}
