import { useState } from "preact/hooks";
import { useApi, type ArtifactKind } from "../api.ts";
import { fetchArtifact, KIND_TITLES, queryVariants, type Artifact, type Variant } from "../artifacts.ts";
import { Author } from "../components/author.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Table } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { fetchRevision, isWorkflowKind, type Revision } from "../revisions.ts";
import { hrefOf, navigate, type ViewProps } from "../router.ts";
import { ArchiveButton, ForkButton, RevertButton } from "./artifact-actions.tsx";
import { Timeline } from "./artifact-timeline.tsx";
import { RevisionContent } from "./revision-content.tsx";
import { ServedBy } from "./served-by.tsx";
import { editHref } from "./edit.tsx";

/**
 * `/{kind}/{id}?variant=…&revision=…`: an artifact's facts and variants, the selected variant's timeline
 * (its revisions, newest first) and the selected revision with its actions (fork, revert, compare).
 */
export function ArtifactPage({ params, query, kind }: ViewProps & { kind: ArtifactKind }) {
  const titles = KIND_TITLES[kind];
  const [round, setRound] = useState(0);
  const loaded = useApi(async (signal) => {
    const [artifact, variants] = await Promise.all([fetchArtifact(kind, params.id, signal), queryVariants(kind, params.id, signal)]);
    return { artifact, variants };
  }, [kind, params.id, round]);
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
  const reload = () => setRound((r) => r + 1);
  const variantId = query.get("variant");
  const variant = variants.find((v) => v.id === variantId) ?? variants.find((v) => !v.deleted_at) ?? variants[0];
  const revisionId = query.get("revision");
  const page = `/${kind}/${artifact.id}`;
  return (
    <>
      <p class="crumbs"><Link href={back}>{titles.many}</Link> / {artifact.slug}</p>
      <div class="page-head">
        <h1>
          {artifact.name || artifact.slug}
          {artifact.deleted_at && <span class="badge">archived</span>}
        </h1>
        <div class="page-actions">
          <ArchiveButton kind={kind} level="artifact" id={artifact.id} name={artifact.slug} archived={!!artifact.deleted_at} onDone={reload} />
        </div>
      </div>
      <dl class="facts">
        <dt>Kind</dt><dd>{titles.one}</dd>
        <dt>Slug</dt><dd><code>{artifact.slug}</code></dd>
        <dt>ID</dt><dd><IdChip id={artifact.id} label={`${titles.one.toLowerCase()} id`} /></dd>
        <dt>Created</dt><dd><Time value={artifact.created_at} /></dd>
        {artifact.description && <><dt>Description</dt><dd>{artifact.description}</dd></>}
      </dl>
      {kind === "testsets" && <p><Link href={`/testsets/${artifact.id}/rows`}>Rows of the latest revision</Link></p>}
      <h2>Variants</h2>
      {variants.length === 0 ? (
        <EmptyState title="No variants yet"><p>A variant is made by the first commit.</p></EmptyState>
      ) : (
        <Table<Variant> caption={`Variants of ${artifact.slug}`} rowKey={(v) => v.id} rows={variants} columns={[
          {
            title: "Variant",
            cell: (v) => (
              <>
                {v.id === variant?.id
                  ? <strong aria-current="true">{v.name || v.slug}</strong>
                  : <Link href={hrefOf(page, { variant: v.id })}>{v.name || v.slug}</Link>}
                {v.deleted_at && <span class="badge">archived</span>}
              </>
            ),
          },
          { title: "Slug", cell: (v) => <code>{v.slug}</code> },
          ...(isWorkflowKind(kind) ? [{ title: "Edit", cell: (v: Variant) => <Link href={editHref(kind, artifact.id, v.id)} aria-label={`Edit ${v.slug}`}>Edit</Link> }] : []),
          { title: "Created", cell: (v) => <Time value={v.created_at} />, wide: true },
          { title: "ID", cell: (v) => <IdChip id={v.id} label="variant id" />, wide: true },
          { title: "", cell: (v) => <ArchiveButton kind={kind} level="variant" id={v.id} name={v.slug} archived={!!v.deleted_at} onDone={reload} /> },
        ]} />
      )}
      {variant && (
        <>
          <h2>Timeline</h2>
          <p class="muted timeline-of">Revisions of the variant <code>{variant.slug}</code>, newest first.</p>
          {revisionId && (
            <SelectedRevision kind={kind} artifact={artifact} id={revisionId} round={round} page={page}
              onForked={(id) => { reload(); navigate(hrefOf(page, { variant: id })); }}
              onReverted={(r) => { reload(); navigate(hrefOf(page, { variant: r.variant_id, revision: r.id })); }} />
          )}
          <Timeline kind={kind} artifactId={artifact.id} variantId={variant.id} selected={revisionId} round={round}
            application={kind === "applications" ? artifact : undefined} onDeployed={reload} />
        </>
      )}
    </>
  );
}

/** The revision picked in the timeline: its facts and what can be done from it. */
function SelectedRevision(props: {
  kind: ArtifactKind; artifact: Artifact; id: string; round: number; page: string;
  onForked: (variantId: string) => void; onReverted: (r: Revision) => void;
}) {
  const loaded = useApi((signal) => fetchRevision(props.kind, props.id, signal), [props.kind, props.id, props.round]);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading the revision…" />;
  const r = loaded.data;
  return (
    <section class="revision-panel" aria-label={`Version ${r.version}`}>
      <h3>v{r.version} {r.deleted_at && <span class="badge">archived</span>}</h3>
      <dl class="facts">
        <dt>Message</dt><dd>{r.message || <span class="muted">—</span>}</dd>
        <dt>Author</dt><dd><Author id={r.author} /></dd>
        <dt>Date</dt><dd><Time value={r.date} /></dd>
        <dt>ID</dt><dd><IdChip id={r.id} label="revision id" /></dd>
      </dl>
      <RevisionContent kind={props.kind} artifactId={props.artifact.id} revision={r} />
      {props.kind === "applications" && <ServedBy application={props.artifact} revision={r} />}
      <div class="revision-actions">
        {r.parent_id && Number(r.version) > 1 && (
          <Link class="button-link" href={hrefOf(`${props.page}/diff`, { from: r.parent_id, to: r.id, variant: r.variant_id })}>Compare with previous</Link>
        )}
        <ForkButton kind={props.kind} revision={r} onDone={props.onForked} />
        <RevertButton kind={props.kind} revision={r} onDone={props.onReverted} />
        <Link href={hrefOf(props.page, { variant: r.variant_id })}>Close</Link>
      </div>
    </section>
  );
}
