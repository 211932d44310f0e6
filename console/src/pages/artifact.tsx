import { useApi, type ArtifactKind } from "../api.ts";
import { fetchArtifact, KIND_TITLES, queryVariants, type Variant } from "../artifacts.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Table } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import type { ViewProps } from "../router.ts";
import { isWorkflowKind } from "../revisions.ts";
import { editHref } from "./edit.tsx";

/** `/{kind}/{id}`: an artifact's name, slug, description and variants. */
export function ArtifactPage({ params, kind }: ViewProps & { kind: ArtifactKind }) {
  const titles = KIND_TITLES[kind];
  const loaded = useApi(async (signal) => {
    const [artifact, variants] = await Promise.all([fetchArtifact(kind, params.id, signal), queryVariants(kind, params.id, signal)]);
    return { artifact, variants };
  }, [kind, params.id]);
  const back = kind === "environments" ? "/environments" : `/registry?kind=${kind}`;
  if (loaded.error) {
    return (
      <>
        <p class="crumbs"><Link href={back}>{titles.many}</Link></p>
        <ErrorBanner message={loaded.error} onRetry={loaded.reload} />
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { artifact, variants } = loaded.data;
  return (
    <>
      <p class="crumbs"><Link href={back}>{titles.many}</Link> / {artifact.slug}</p>
      <h1>
        {artifact.name || artifact.slug}
        {artifact.deleted_at && <span class="badge">archived</span>}
      </h1>
      <dl class="facts">
        <dt>Kind</dt><dd>{titles.one}</dd>
        <dt>Slug</dt><dd><code>{artifact.slug}</code></dd>
        <dt>ID</dt><dd><IdChip id={artifact.id} label={`${titles.one.toLowerCase()} id`} /></dd>
        <dt>Created</dt><dd><Time value={artifact.created_at} /></dd>
        {artifact.description && <><dt>Description</dt><dd>{artifact.description}</dd></>}
      </dl>
      <h2>Variants</h2>
      {variants.length === 0 ? (
        <EmptyState title="No variants yet"><p>A variant is made by the first commit.</p></EmptyState>
      ) : (
        <Table<Variant> caption={`Variants of ${artifact.slug}`} rowKey={(v) => v.id} rows={variants} columns={[
          { title: "Variant", cell: (v) => <>{v.name || v.slug}{v.deleted_at && <span class="badge">archived</span>}</> },
          { title: "Slug", cell: (v) => <code>{v.slug}</code> },
          ...(isWorkflowKind(kind) ? [{ title: "Edit", cell: (v: Variant) => <Link href={editHref(kind, artifact.id, v.id)} aria-label={`Edit ${v.slug}`}>Edit</Link> }] : []),
          { title: "Created", cell: (v) => <Time value={v.created_at} />, wide: true },
          { title: "ID", cell: (v) => <IdChip id={v.id} label="variant id" />, wide: true },
        ]} />
      )}
    </>
  );
}
