import { useEffect, useMemo, useRef, useState } from "preact/hooks";
import { api, messageOf, TesseraError, useApi } from "../api.ts";
import { fetchArtifact } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";
import { hrefOf, navigate, setQuery, type ViewProps } from "../router.ts";
import {
  cellValue, columnsOf, delta, editCount, noEdits, renameColumn, renamedData, type Edits,
} from "../testset-grid/edits.ts";
import { RowPages } from "../testset-grid/row-pages.ts";
import { FileTransfer } from "../testset-grid/file-transfer.tsx";
import { formatCount, VirtualGrid, type GridRow } from "../testset-grid/virtual-grid.tsx";

interface Revision {
  id: string;
  version: string;
  message?: string | null;
  created_at?: string;
  testset_id: string;
  testset_variant_id: string;
  /** The data columns in order (the uploaded file's, then of creation), when the revision keeps them. */
  columns?: string[];
}

export const gridHref = (testsetId: string, revisionId: string, row?: number) =>
  hrefOf(`/testsets/${testsetId}/revisions/${revisionId}/rows`, { row });

/** `/testsets/{id}/rows`: the grid of the testset's latest revision (the address is replaced by the revision's). */
export function TestsetLatestRowsPage({ params }: ViewProps) {
  const loaded = useApi((signal) => api<{ testset_revision: Revision }>("POST", "/testsets/revisions/retrieve", {
    testset_ref: { id: params.id }, include_testcases: false, include_testcase_ids: false,
  }, { signal }), [params.id]);
  useEffect(() => {
    if (loaded.data) navigate(gridHref(params.id, loaded.data.testset_revision.id), { replace: true });
  }, [loaded.data]);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  return <Loading />;
}

/** `/testsets/{id}/revisions/{revisionId}/rows?row=n`: a revision's rows, edited and committed as one delta. */
export function TestsetGridPage({ params, query }: ViewProps) {
  const revisionId = params.revisionId;
  const loaded = useApi(async (signal) => {
    const [testset, answer] = await Promise.all([
      fetchArtifact("testsets", params.id, signal),
      api<{ testset_revision: Revision }>("POST", "/testsets/revisions/retrieve", {
        testset_revision_ref: { id: revisionId }, include_testcases: false, include_testcase_ids: false,
      }, { signal }),
    ]);
    return { testset, revision: answer.testset_revision };
  }, [params.id, revisionId]);
  const [round, setRound] = useState(0);
  const pages = useMemo(() => new RowPages(revisionId, () => setRound((r) => r + 1)), [revisionId]);
  useEffect(() => () => pages.close(), [pages]);
  const [edits, setEdits] = useState<Edits>(noEdits);
  useEffect(() => setEdits(noEdits()), [revisionId]);
  const wanted = Number(query.get("row"));
  const [jump, setJump] = useState<{ index: number; round: number } | null>(null);
  const [jumpText, setJumpText] = useState(query.get("row") ?? "");
  const [newColumn, setNewColumn] = useState("");
  const [renaming, setRenaming] = useState<{ from: string; to: string } | null>(null);
  const [message, setMessage] = useState("");
  const [status, setStatus] = useState<{ error?: string; note?: string; busy?: boolean }>({});
  const [stale, setStale] = useState<{ newest: Revision | null } | null>(null);
  const started = useRef(false);

  // The first page, for the row count; then the row the URL names.
  useEffect(() => {
    started.current = false;
    pages.want(0, 0);
    if (wanted > 0) pages.want(wanted - 1, wanted - 1, false);
  }, [pages]);
  const base = pages.total;
  const total = base === null ? 0 : base + edits.added.length;
  useEffect(() => {
    if (base === null || started.current) return;
    started.current = true;
    if (wanted > 0) setJump({ index: Math.min(wanted, total) - 1, round: 1 });
  }, [base]);

  // The revision's own order first; columns only rows show (revisions without an order) follow as rows show them.
  const columns = useMemo(() => {
    const stored = columnsOf(pages.loaded().flat().map((t) => t.data ?? {}), loaded.data?.revision.columns ?? [])
      .map((c) => edits.renamedColumns.get(c) ?? c);
    return [...stored.filter((c) => !edits.removedColumns.has(c)), ...edits.addedColumns.filter((c) => !stored.includes(c))];
  }, [round, edits, loaded.data]);

  if (loaded.error) {
    return (
      <>
        <p class="crumbs"><Link href={`/testsets/${params.id}`}>Testset</Link></p>
        <ErrorBanner message={loaded.error} onRetry={loaded.reload} />
      </>
    );
  }
  if (!loaded.data) return <Loading />;
  const { testset, revision } = loaded.data;

  const rowAt = (index: number): GridRow => {
    if (base === null) return { state: "loading" };
    if (index >= base) return { data: renamedData(edits, edits.added[index - base]), state: "added" };
    const row = pages.row(index);
    if (!row) return { state: "loading" };
    if (edits.removed.has(row.id)) return { id: row.id, data: renamedData(edits, row.data), state: "removed" };
    const edited = edits.replaced.get(row.id);
    const data = renamedData(edits, edited ?? row.data);
    return { id: row.id, data, state: edited ? "edited" : "stored" };
  };
  const onEdit = (index: number, column: string, text: string) => {
    const row = rowAt(index);
    const value = cellValue(text, row.data?.[column]);
    setEdits((e) => {
      if (row.state === "added") {
        const added = e.added.slice();
        added[index - base!] = { ...added[index - base!], [column]: value };
        return { ...e, added };
      }
      if (!row.id) return e;
      const replaced = new Map(e.replaced);
      replaced.set(row.id, { ...(replaced.get(row.id) ?? row.data), [column]: value });
      return { ...e, replaced };
    });
  };
  const onRemove = (index: number) => {
    const row = rowAt(index);
    setEdits((e) => {
      if (row.state === "added") return { ...e, added: e.added.filter((_, i) => i !== index - base!) };
      if (!row.id) return e;
      return { ...e, removed: new Set(e.removed).add(row.id) };
    });
  };
  const onRestore = (index: number) => {
    const row = rowAt(index);
    setEdits((e) => {
      const removed = new Set(e.removed);
      removed.delete(row.id!);
      return { ...e, removed };
    });
  };
  const goTo = (event: Event) => {
    event.preventDefault();
    const n = Math.round(Number(jumpText));
    if (!Number.isFinite(n) || n < 1 || n > total) {
      setStatus({ error: `Row numbers run from 1 to ${formatCount(total)}.` });
      return;
    }
    setStatus({});
    setJump({ index: n - 1, round: (jump?.round ?? 0) + 1 });
    setQuery({ row: String(n) });
  };
  const addRow = () => {
    setEdits((e) => ({ ...e, added: [...e.added, {}] }));
    setJump({ index: total, round: (jump?.round ?? 0) + 1 });
  };
  const addColumn = (event: Event) => {
    event.preventDefault();
    const name = newColumn.trim();
    if (!name) return;
    if (columns.includes(name)) {
      setStatus({ error: `There is already a column named ${name}.` });
      return;
    }
    setStatus({});
    setEdits((e) => {
      const removedColumns = new Set(e.removedColumns);
      removedColumns.delete(name);
      return { ...e, addedColumns: [...e.addedColumns, name], removedColumns };
    });
    setNewColumn("");
  };
  const rename = (event: Event) => {
    event.preventDefault();
    if (!renaming) return;
    const to = renaming.to.trim();
    if (!to || to === renaming.from) return setRenaming(null);
    if (columns.includes(to)) return setStatus({ error: `There is already a column named ${to}.` });
    setStatus({});
    setEdits((e) => renameColumn(e, renaming.from, to));
    setRenaming(null);
  };
  const removeColumn = (name: string) => setEdits((e) => e.addedColumns.includes(name)
    ? { ...e, addedColumns: e.addedColumns.filter((c) => c !== name) }
    : { ...e, removedColumns: new Set(e.removedColumns).add(name) });
  /**
   * Commits the edits as a delta on `base` (this revision, or the newest for a rebase). `checked`: with
   * If-Match, so that a revision committed meanwhile on the variant is reported (409) instead of overwritten.
   */
  const commit = async (event: Event, base = revision.id, checked = true) => {
    event.preventDefault();
    setStatus({ busy: true });
    setStale(null);
    try {
      const answer = await api<{ testset_revision: Revision }>("POST", "/testsets/revisions/commit", {
        testset_revision_commit: {
          testset_id: revision.testset_id, testset_revision_id: base,
          message: message.trim() || null, delta: delta(edits),
        },
        include_testcases: false, include_testcase_ids: false,
      }, { headers: checked ? { "if-match": `"${base}"` } : undefined });
      setMessage("");
      navigate(gridHref(params.id, answer.testset_revision.id));
    } catch (error) {
      if (checked && error instanceof TesseraError && error.status === 409) {
        const newest = await api<{ testset_revision: Revision }>("POST", "/testsets/revisions/retrieve", {
          testset_variant_ref: { id: revision.testset_variant_id },
          include_testcases: false, include_testcase_ids: false,
        }).then((a) => a.testset_revision, () => null);
        setStale({ newest });
        setStatus({});
        return;
      }
      setStatus({ error: messageOf(error) });
    }
  };
  const changes = editCount(edits);

  return (
    <div class="tg-page">
      <p class="crumbs">
        <Link href="/registry?kind=testsets">Testsets</Link> / <Link href={`/testsets/${params.id}`}>{testset.slug}</Link> / rows
      </p>
      <h1>{testset.name || testset.slug} <span class="badge">v{revision.version}</span></h1>
      <dl class="facts">
        <dt>Revision</dt><dd><IdChip id={revision.id} label="revision id" /></dd>
        <dt>Variant</dt><dd><IdChip id={revision.testset_variant_id} label="variant id" /></dd>
        {revision.message && <><dt>Message</dt><dd>{revision.message}</dd></>}
        {revision.created_at && <><dt>Committed</dt><dd><Time value={revision.created_at} /></dd></>}
        <dt>Rows</dt><dd data-testid="row-count">{base === null ? "…" : formatCount(base)}</dd>
      </dl>
      <div class="controls tg-controls">
        <form onSubmit={goTo} class="tg-inline">
          <label for="tg-row">Go to row</label>
          <input id="tg-row" type="text" inputMode="numeric" value={jumpText} onInput={(e) => setJumpText(e.currentTarget.value)} size={9} />
          <button type="submit">Go</button>
        </form>
        <button type="button" onClick={addRow} disabled={base === null}>Add row</button>
        <form onSubmit={addColumn} class="tg-inline">
          <label for="tg-column">New column</label>
          <input id="tg-column" type="text" value={newColumn} onInput={(e) => setNewColumn(e.currentTarget.value)} size={12} />
          <button type="submit">Add column</button>
        </form>
      </div>
      {columns.length > 0 && (
        <p class="tg-columns">
          Columns: {columns.map((c) => (
            <span class="badge tg-column" key={c}>{c}
              <button type="button" class="tg-x" onClick={() => setRenaming({ from: c, to: c })}
                aria-label={`Rename column ${c}`}>✎</button>
              <button type="button" class="tg-x" onClick={() => removeColumn(c)} aria-label={`Remove column ${c}`}>×</button>
            </span>
          ))}
        </p>
      )}
      {renaming && (
        <form class="tg-inline tg-rename" onSubmit={rename}>
          <label for="tg-rename">Rename column {renaming.from} to</label>
          <input id="tg-rename" type="text" value={renaming.to} size={14}
            onInput={(e) => setRenaming({ ...renaming, to: e.currentTarget.value })} />
          <button type="submit">Rename</button>
          <button type="button" class="button-quiet" onClick={() => setRenaming(null)}>Cancel</button>
        </form>
      )}
      {pages.error && <ErrorBanner message={pages.error} />}
      {status.error && <ErrorBanner message={status.error} />}
      {stale && (
        <div class="banner banner-warning stale-base" role="alert">
          <p>
            <strong>This testset has a newer revision{stale.newest ? ` (v${stale.newest.version})` : ""}</strong>
            {" "}than the one you are editing (v{revision.version}).
          </p>
          <p class="stale-actions">
            {stale.newest && (
              <button type="button" onClick={(e) => commit(e, stale.newest!.id)}>
                Apply my changes to v{stale.newest.version} and commit
              </button>
            )}
            <button type="button" class="button-quiet" onClick={(e) => commit(e, revision.id, false)}>
              Commit on v{revision.version} anyway
            </button>
          </p>
        </div>
      )}
      <VirtualGrid total={total} columns={columns} rowAt={rowAt} jump={jump} label={`Rows of ${testset.slug} v${revision.version}`}
        onRange={(first, last) => pages.want(first, Math.min(last, (base ?? 1) - 1))} onEdit={onEdit} onRemove={onRemove} onRestore={onRestore} />
      <form class="tg-commit" onSubmit={commit}>
        <span aria-live="polite">{changes === 0 ? "No changes" : `${changes} change${changes === 1 ? "" : "s"}`}</span>
        <label for="tg-message">Commit message</label>
        <input id="tg-message" type="text" value={message} onInput={(e) => setMessage(e.currentTarget.value)} placeholder="What changed" />
        <button type="submit" class="button-primary" disabled={changes === 0 || status.busy}>Commit changes</button>
        <button type="button" disabled={changes === 0 || status.busy} onClick={() => setEdits(noEdits())}>Discard</button>
      </form>
      <FileTransfer revisionId={revision.id} slug={testset.slug} version={revision.version}
        onUploaded={(id) => navigate(gridHref(params.id, id))} />
    </div>
  );
}
