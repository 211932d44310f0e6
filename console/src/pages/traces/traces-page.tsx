/**
 * `/traces?app=…&env=…&status=ok|error&range=24h&session=…&user=…&q=…`: the project's traces (root spans),
 * newest first, a page at a time; the filters live in the URL. Rows can be selected and added to a testset.
 */
import { useState } from "preact/hooks";
import { useApi } from "../../api.ts";
import { queryArtifacts } from "../../artifacts.ts";
import { EmptyState } from "../../components/empty-state.tsx";
import { ErrorBanner } from "../../components/error-banner.tsx";
import { Link } from "../../components/link.tsx";
import { ListFooter } from "../../components/list-footer.tsx";
import { Loading } from "../../components/loading.tsx";
import { Table, type Column } from "../../components/table.tsx";
import { usePagedList } from "../../paged-list.ts";
import { setQuery, type ViewProps } from "../../router.ts";
import {
  costText, dataOf, filtersOf, metricOf, queryTraces, RANGES, type Span, type TraceFilters,
} from "../../traces.ts";
import { AddToTestset } from "./add-to-testset.tsx";
import { durationOf, preview, Tokens, TraceStatus, TraceTarget, TraceTime } from "./trace-cells.tsx";

const PAGE = 50;

/** The list's filters: each change replaces the URL's query, which the list reads. */
function Filters(props: { filters: TraceFilters }) {
  const f = props.filters;
  const apps = useApi((signal) => queryArtifacts("applications", { limit: 200 }, signal), []);
  const envs = useApi((signal) => queryArtifacts("environments", { limit: 200 }, signal), []);
  // A text filter holds what is typed until it is committed (Enter, or leaving the box): a controlled value would put
  // the URL's back at every render, and the lists arriving meanwhile would erase the typing. A new value in the URL
  // (a link, Clear filters) starts the box again.
  const text = (name: string, label: string, value: string, placeholder: string) => (
    <label class="ev-field">
      {label}
      <input
        key={value} type="search" name={name} defaultValue={value} placeholder={placeholder}
        onChange={(e) => setQuery({ [name]: e.currentTarget.value.trim() })}
      />
    </label>
  );
  const select = (name: string, label: string, value: string, options: [string, string][]) => (
    <label class="ev-field">
      {label}
      <select value={value} onChange={(e) => setQuery({ [name]: e.currentTarget.value })}>
        {options.map(([v, title]) => <option value={v}>{title}</option>)}
      </select>
    </label>
  );
  const slugs = (items: { slug: string; name: string | null }[] | undefined, chosen: string): [string, string][] => {
    const list: [string, string][] = (items ?? []).map((a) => [a.slug, a.name || a.slug]);
    if (chosen && !list.some(([slug]) => slug === chosen)) list.push([chosen, chosen]);
    return [["", "Any"], ...list];
  };
  const ranges = Object.entries(RANGES).map(([key, range]): [string, string] => [key, range.title]);
  return (
    <form class="ob-filters" role="search" aria-label="Filter traces" onSubmit={(e) => e.preventDefault()}>
      {text("q", "Search inputs and outputs", f.q, "words in inputs, outputs…")}
      {select("app", "Application", f.app, slugs(apps.data?.items, f.app))}
      {select("env", "Environment", f.env, slugs(envs.data?.items, f.env))}
      {select("status", "Status", f.status, [["", "Any"], ["ok", "OK"], ["error", "Error"]])}
      {select("range", "Time", f.range, [["", "Any time"], ...ranges])}
      {text("session", "Session id", f.session, "session id")}
      {text("user", "User id", f.user, "user id")}
    </form>
  );
}

/** Where to send spans, for a project that has none yet. */
function HowToSend() {
  return (
    <EmptyState title="No traces yet">
      <p>
        Point any OpenTelemetry OTLP/HTTP exporter at <code>{window.location.origin}/api/otlp/v1/traces</code> with
        the header <code>Authorization: ApiKey &lt;your key&gt;</code> (see “Traces” in the README and
        the <a href="/api/docs">API reference</a>). Runs from the playground, the API and evaluations appear here too.
      </p>
    </EmptyState>
  );
}

export function TracesPage({ query }: ViewProps) {
  const filters = filtersOf(query);
  const key = JSON.stringify(filters);
  const list = usePagedList((from, signal) => queryTraces(filters, from, PAGE, signal), [key]);
  const { items, loading, error, reload } = list;
  const [selected, setSelected] = useState<Map<string, Span>>(new Map());
  const [adding, setAdding] = useState(false);
  const filtered = Object.values(filters).some(Boolean);

  const toggle = (span: Span, on: boolean) => setSelected((s) => {
    const next = new Map(s);
    if (on) next.set(span.trace_id, span);
    else next.delete(span.trace_id);
    return next;
  });
  const allShown = items.length > 0 && items.every((s) => selected.has(s.trace_id));
  const toggleAll = (on: boolean) => setSelected((s) => {
    const next = new Map(s);
    for (const span of items) on ? next.set(span.trace_id, span) : next.delete(span.trace_id);
    return next;
  });

  const columns: Column<Span>[] = [
    {
      title: (
        <input
          type="checkbox" checked={allShown} aria-label="Select all shown"
          onChange={(e) => toggleAll(e.currentTarget.checked)}
        />
      ),
      cell: (s) => (
        <input
          type="checkbox" checked={selected.has(s.trace_id)}
          aria-label={`Select the trace ${s.span_name} of ${s.start_time}`}
          onChange={(e) => toggle(s, e.currentTarget.checked)}
        />
      ),
    },
    { title: "Time", cell: (s) => <span class="ob-nowrap"><TraceTime value={s.start_time} /></span> },
    { title: "Name", cell: (s) => <Link href={`/traces/${s.trace_id}`} class="ob-name">{s.span_name}</Link> },
    { title: "Application", cell: (s) => <TraceTarget span={s} /> },
    { title: "Status", cell: (s) => <TraceStatus span={s} /> },
    { title: "Duration", cell: (s) => <span class="ob-num">{durationOf(s)}</span> },
    { title: "Tokens", cell: (s) => <span class="ob-num"><Tokens tokens={metricOf(s, "tokens")} /></span>, wide: true },
    { title: "Cost", cell: (s) => <span class="ob-num">{costText(metricOf(s, "costs")?.total)}</span>, wide: true },
    { title: "Input", cell: (s) => <code class="ob-preview">{preview(dataOf(s, "inputs"), 80)}</code>, wide: true },
    { title: "Output", cell: (s) => <code class="ob-preview">{preview(dataOf(s, "outputs"), 80)}</code>, wide: true },
  ];

  let body;
  if (error && items.length === 0) body = <ErrorBanner message={error} onRetry={reload} />;
  else if (loading && items.length === 0) body = <Loading label="Loading traces…" />;
  else if (items.length === 0 && !filtered) body = <HowToSend />;
  else if (items.length === 0) {
    body = <EmptyState title="No matching traces"><p>Change or clear the filters to see more.</p></EmptyState>;
  } else {
    body = (
      <div class="ob-list">
        <Table caption="Traces, newest first" columns={columns} rows={items} rowKey={(s) => s.trace_id} />
        <ListFooter list={list} />
      </div>
    );
  }
  return (
    <>
      <h1>Traces</h1>
      <Filters filters={filters} />
      <div class="ob-selection" aria-live="polite">
        {selected.size > 0 && (
          <>
            <span><strong>{selected.size}</strong> selected</span>
            {!adding && (
              <button type="button" class="button-primary" onClick={() => setAdding(true)}>Add to testset</button>
            )}
            <button type="button" class="button-quiet" onClick={() => setSelected(new Map())}>Clear selection</button>
          </>
        )}
        {filtered && (
          <button type="button" class="button-quiet ob-clear" onClick={() => clearFilters()}>Clear filters</button>
        )}
      </div>
      {adding && <AddToTestset traces={[...selected.values()]} onCancel={() => setAdding(false)} />}
      {body}
    </>
  );
}

const clearFilters = () =>
  setQuery({ app: null, env: null, status: null, range: null, session: null, user: null, q: null });
