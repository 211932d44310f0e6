import type { ArtifactKind } from "../api.ts";
import { KIND_TITLES, queryArtifacts, type Artifact } from "../artifacts.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { ListFooter } from "../components/list-footer.tsx";
import { Loading } from "../components/loading.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { usePagedList } from "../paged-list.ts";

const PAGE = 50;

/** What an empty list tells a new user to do. */
const START: Record<ArtifactKind, string> = {
  applications:
    "Click “New application” to start from a template: a completion or chat prompt, your own service, or code.",
  workflows: "Click “New workflow” to start from a template: a prompt, your own service, or code.",
  evaluators: "Click “New evaluator” to pick a check (exact match, regex, JSON field, similarity, LLM-as-a-judge …).",
  testsets: "Click “New testset” to upload a CSV, JSON or JSON Lines file, or to start from an empty grid.",
  environments: "Every project starts with development, staging and production.",
};

/** A kind's artifacts, a page at a time ("Load more"), each linking to its page `/{kind}/{id}`. */
export function ArtifactList(props: { kind: ArtifactKind; search: string; archived: boolean }) {
  const { kind, search, archived } = props;
  const list = usePagedList(
    (from, signal) => queryArtifacts(kind, { search, archived, next: from, limit: PAGE }, signal),
    [kind, search, archived],
  );
  const { items, loading, error, reload } = list;

  const titles = KIND_TITLES[kind];
  const columns: Column<Artifact>[] = [
    {
      title: "Name",
      cell: (a) => (
        <>
          <Link href={`/${kind}/${a.id}`}>{a.name || a.slug}</Link>
          {a.deleted_at && <span class="badge">archived</span>}
        </>
      ),
    },
    { title: "Slug", cell: (a) => <code>{a.slug}</code> },
    { title: "Created", cell: (a) => <Time value={a.created_at} />, wide: true },
    { title: "ID", cell: (a) => <IdChip id={a.id} label={`${titles.one.toLowerCase()} id`} />, wide: true },
  ];

  if (error && items.length === 0) return <ErrorBanner message={error} onRetry={reload} />;
  if (loading && items.length === 0) return <Loading />;
  if (items.length === 0) {
    return search ? (
      <EmptyState title={`No ${titles.many.toLowerCase()} match “${search}”`}>
        <p>The search looks for part of the name or the slug{archived ? "" : " among those not archived"}.</p>
      </EmptyState>
    ) : (
      <EmptyState title={`No ${titles.many.toLowerCase()} yet`}>
        <p>{START[kind]}</p>
        <p><Link class="button-link button-primary" href={`/${kind}/new`}>New {titles.one.toLowerCase()}</Link></p>
      </EmptyState>
    );
  }
  return (
    <>
      <Table caption={titles.many} columns={columns} rows={items} rowKey={(a) => a.id} />
      <ListFooter list={list} />
    </>
  );
}
