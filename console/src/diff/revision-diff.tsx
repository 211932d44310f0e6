import { useApi, type ArtifactKind } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";
import { diffRevisions, fetchRevision, revisionLabel, type Revision } from "../revisions.ts";
import { JsonChanges } from "./json-changes.tsx";
import { SplitDiff } from "./split-view.tsx";
import { TestsetRowsDiff } from "./testset-rows.tsx";

/** Every `messages` list under `parameters` (a prompt's), with its JSON path. */
export function promptMessages(value: unknown, path = "/parameters"): { path: string; messages: unknown[] }[] {
  if (!value || typeof value !== "object") return [];
  if (Array.isArray(value)) return value.flatMap((item, i) => promptMessages(item, `${path}/${i}`));
  return Object.entries(value).flatMap(([key, item]) =>
    key === "messages" && Array.isArray(item) ? [{ path: `${path}/messages`, messages: item }] : promptMessages(item, `${path}/${key}`));
}

/** Messages as text: a `[role]` line, then the content (parts that are not text as JSON). */
export function messagesText(messages: unknown[]): string {
  return messages.map((m: any) => {
    const content = typeof m?.content === "string" ? m.content : JSON.stringify(m?.content ?? null, null, 1);
    const extra = Object.fromEntries(Object.entries(m ?? {}).filter(([k]) => k !== "role" && k !== "content"));
    return `[${m?.role ?? "?"}]\n${content}${Object.keys(extra).length ? `\n${JSON.stringify(extra)}` : ""}`;
  }).join("\n\n");
}

const without = (data: Record<string, any> | null | undefined, ...keys: string[]) =>
  Object.fromEntries(Object.entries(data ?? {}).filter(([k]) => !keys.includes(k)));

function Side(props: { revision: Revision; title: string }) {
  const r = props.revision;
  return (
    <div class="diff-side">
      <h3>{props.title}: {revisionLabel(r)}</h3>
      <p>{r.message || <span class="muted">No message</span>}</p>
      <p class="muted"><Time value={r.date} /></p>
    </div>
  );
}

/** Two revisions of a kind compared: prompt messages as a line diff, parameters and schemas by path, testset rows. */
export function RevisionDiff(props: { kind: ArtifactKind; from: string; to: string; beforeTitle?: string; afterTitle?: string }) {
  const { kind, from, to } = props;
  const loaded = useApi(async (signal) => {
    const [before, after, server] = await Promise.all([
      fetchRevision(kind, from, signal), fetchRevision(kind, to, signal), kind === "testsets" ? diffRevisions(kind, from, to, signal) : null,
    ]);
    return { before, after, server };
  }, [kind, from, to]);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data || loaded.loading) return <Loading label="Comparing…" />; // never the previous pair's diff
  const { before, after, server } = loaded.data;
  const beforeTitle = props.beforeTitle ?? "From";
  const afterTitle = props.afterTitle ?? "To";
  const left = `${beforeTitle} v${before.version}`;
  const right = `${afterTitle} v${after.version}`;
  if (kind === "testsets" && server) {
    return (
      <section class="revision-diff" aria-label="Differences">
        <div class="diff-sides"><Side revision={before} title={beforeTitle} /><Side revision={after} title={afterTitle} /></div>
        <TestsetRowsDiff diff={server.data} />
      </section>
    );
  }
  const a = before.data ?? {};
  const b = after.data ?? {};
  const promptsA = promptMessages(a.parameters);
  const promptsB = promptMessages(b.parameters);
  const paths = [...new Set([...promptsA, ...promptsB].map((p) => p.path))];
  const underMessages = (path: string) => paths.some((p) => path === p || path.startsWith(`${p}/`));
  return (
    <section class="revision-diff" aria-label="Differences">
      <div class="diff-sides"><Side revision={before} title={beforeTitle} /><Side revision={after} title={afterTitle} /></div>
      {paths.map((path) => (
        <>
          <h3>Prompt messages <code class="muted">{path}</code></h3>
          <SplitDiff caption={`Prompt messages at ${path}`} beforeTitle={left} afterTitle={right}
            before={messagesText(promptsA.find((p) => p.path === path)?.messages ?? [])}
            after={messagesText(promptsB.find((p) => p.path === path)?.messages ?? [])} />
        </>
      ))}
      <h3>Parameters</h3>
      <JsonChanges caption="Parameter changes" before={a.parameters} after={b.parameters}
        skip={(path) => underMessages(`/parameters${path === "/" ? "" : path}`)} />
      <h3>Schemas</h3>
      <JsonChanges caption="Schema changes" before={a.schemas} after={b.schemas} />
      <h3>Other fields</h3>
      <JsonChanges caption="Other data changes" before={without(a, "parameters", "schemas")} after={without(b, "parameters", "schemas")} />
    </section>
  );
}
