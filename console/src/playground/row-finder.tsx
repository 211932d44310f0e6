import { useRef, useState } from "preact/hooks";
import { messageOf, useApi } from "../api.ts";
import { queryArtifacts } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import type { Revision } from "../revisions.ts";
import { EvaluateSelection } from "./evaluate-selection.tsx";
import { PAGE_ROWS, rowsFrom, rowText, searchRows, type TestsetRow } from "./testset-rows.ts";

/** What the list shows: a page from a row number on, or the matches of a search. */
type View =
  | { kind: "page"; from: number; rows: TestsetRow[]; total: number }
  | { kind: "search"; query: string; from: number; rows: TestsetRow[]; next: number | null; total: number };

const count = (n: number) => n.toLocaleString("en");
const preview = (data: Record<string, unknown>) => {
  const text = rowText(data);
  return text.length > 110 ? `${text.slice(0, 109)}…` : text;
};

/**
 * Finds testset rows (a page from any row number, or a search) to take inputs from, one at a time, and selects
 * rows to run together as an evaluation of `revision`.
 */
export function RowFinder(props: {
  revision: Revision; changed: boolean; onUse: (data: Record<string, unknown>) => void;
}) {
  const testsets = useApi((signal) => queryArtifacts("testsets", { limit: 200 }, signal), []);
  const [testsetId, setTestsetId] = useState("");
  const [view, setView] = useState<View | null>(null);
  const [rowNumber, setRowNumber] = useState("");
  const [query, setQuery] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<Map<string, TestsetRow>>(new Map());
  const controller = useRef<AbortController | null>(null);
  const testset = testsets.data?.items.find((t) => t.id === testsetId);
  if (testsets.data && testsets.data.items.length === 0) return null;

  const load = async (next: (signal: AbortSignal) => Promise<View>) => {
    controller.current?.abort();
    const abort = new AbortController();
    controller.current = abort;
    setBusy(true);
    setError(null);
    try {
      const shown = await next(abort.signal);
      if (!abort.signal.aborted) setView(shown);
    } catch (e) {
      if (!abort.signal.aborted) setError(messageOf(e));
    } finally {
      if (!abort.signal.aborted) setBusy(false);
    }
  };
  const page = (id: string, from: number) =>
    load(async (signal) => ({ kind: "page", from, ...(await rowsFrom(id, from, PAGE_ROWS, signal)) }));
  const search = (from: number) => {
    const text = query.trim();
    if (!text) return page(testsetId, 0);
    return load(async (signal) => ({
      kind: "search", query: text, from, ...(await searchRows(testsetId, text, from, signal)),
    }));
  };
  const choose = (id: string) => {
    setTestsetId(id);
    setSelected(new Map());
    setView(null);
    setQuery("");
    setRowNumber("");
    if (id) void page(id, 0);
  };
  const goTo = () => {
    const n = Number(rowNumber);
    if (!Number.isInteger(n) || n < 1) return setError("A row number is a whole number, 1 or more");
    if (view && n > view.total) return setError(`This testset has ${count(view.total)} rows`);
    void page(testsetId, n - 1);
  };
  const toggle = (row: TestsetRow, on: boolean) => {
    const next = new Map(selected);
    if (on) next.set(row.id, row);
    else next.delete(row.id);
    setSelected(next);
  };
  const onEnter = (action: () => void) => (e: KeyboardEvent) => {
    if (e.key === "Enter") {
      e.preventDefault();
      action();
    }
  };

  return (
    <fieldset class="pg-testcase">
      <legend>Inputs from a testset</legend>
      <ErrorBanner message={testsets.error ?? error} />
      <div class="pg-testcase-row">
        <label class="visually-hidden" for="pg-testset">Testset</label>
        <select id="pg-testset" value={testsetId} onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
          <option value="">Testset…</option>
          {testsets.data?.items.map((t) => <option value={t.id}>{t.name || t.slug}</option>)}
        </select>
        <span class="pg-find">
          <label class="visually-hidden" for="pg-row-number">Row number</label>
          <input id="pg-row-number" type="number" min="1" inputMode="numeric" placeholder="Row #" value={rowNumber}
            disabled={!testsetId} onKeyDown={onEnter(goTo)}
            onInput={(e) => setRowNumber((e.target as HTMLInputElement).value)} />
          <button type="button" onClick={goTo} disabled={!testsetId || !rowNumber}>Go</button>
        </span>
        <span class="pg-find">
          <label class="visually-hidden" for="pg-row-search">Search rows</label>
          <input id="pg-row-search" type="search" placeholder="Search rows" value={query} disabled={!testsetId}
            onInput={(e) => setQuery((e.target as HTMLInputElement).value)} onKeyDown={onEnter(() => search(0))} />
          <button type="button" onClick={() => search(0)} disabled={!testsetId}>Search</button>
        </span>
      </div>
      {view && <ViewStatus view={view} busy={busy} onPage={(from) => page(testsetId, from)} onSearchOn={search} />}
      {view && view.rows.length > 0 && (
        <table class="pg-rows">
          <thead>
            <tr>
              <th scope="col"><span class="visually-hidden">Selected</span></th>
              <th scope="col">Row</th><th scope="col">Data</th><th />
            </tr>
          </thead>
          <tbody>
            {view.rows.map((row) => (
              <tr key={row.id}>
                <td>
                  <input type="checkbox" checked={selected.has(row.id)} aria-label={`Select row ${row.index + 1}`}
                    onChange={(e) => toggle(row, (e.target as HTMLInputElement).checked)} />
                </td>
                <td class="pg-row-number">{row.index + 1}</td>
                <td class="pg-row-data">{preview(row.data)}</td>
                <td>
                  <button type="button" class="button-small" onClick={() => props.onUse(row.data)}
                    aria-label={`Use row ${row.index + 1}`}>Use</button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      {testset && selected.size > 0 && (
        <EvaluateSelection testset={testset} rows={[...selected.values()]} revision={props.revision}
          changed={props.changed}
          onClear={() => setSelected(new Map())} />
      )}
    </fieldset>
  );
}

function ViewStatus(props: {
  view: View; busy: boolean; onPage: (from: number) => void; onSearchOn: (from: number) => void;
}) {
  const { view } = props;
  if (view.kind === "search") {
    const end = view.next ?? view.total;
    return (
      <p class="pg-rows-status muted" role="status">
        {view.rows.length === 0 ? "No row" : `${view.rows.length} row${view.rows.length === 1 ? "" : "s"}`}
        {" "}with “{view.query}”
        {" "}in rows {count(view.from + 1)}–{count(end)} of {count(view.total)}
        {view.next !== null && (
          <button type="button" class="button-small" disabled={props.busy} onClick={() => props.onSearchOn(view.next!)}>
            Search on from row {count(view.next + 1)}
          </button>
        )}
      </p>
    );
  }
  const last = view.from + view.rows.length;
  return (
    <p class="pg-rows-status muted" role="status">
      {view.rows.length
        ? `Rows ${count(view.from + 1)}–${count(last)} of ${count(view.total)}`
        : `No rows (${count(view.total)} in all)`}
      <button type="button" class="button-small" disabled={props.busy || view.from === 0}
        onClick={() => props.onPage(Math.max(0, view.from - PAGE_ROWS))}>Previous</button>
      <button type="button" class="button-small" disabled={props.busy || last >= view.total}
        onClick={() => props.onPage(last)}>Next</button>
    </p>
  );
}
