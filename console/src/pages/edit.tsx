import { useEffect, useState } from "preact/hooks";
import { messageOf, singular, TesseraError, useApi } from "../api.ts";
import { fetchArtifact, KIND_TITLES } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { JsonEditor, parseJson } from "../components/json-editor.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";
import { promptOf } from "../prompt.ts";
import {
  commitRevision, fetchRevision, fetchVariant, issuesByField, latestRevision, type Revision, type WorkflowKind,
} from "../revisions.ts";
import { StaleBase } from "./stale-base.tsx";
import { hrefOf, navigate, type ViewProps } from "../router.ts";
import { draftOf, PromptForm, promptFieldOf, promptOfDraft, type PromptDraft } from "./prompt-form.tsx";

export const editHref = (kind: WorkflowKind, artifactId: string, variantId: string, query: Record<string, string | undefined> = {}) =>
  hrefOf(`/${kind}/${encodeURIComponent(artifactId)}/variants/${encodeURIComponent(variantId)}/edit`, query);

/**
 * `/{kind}/{id}/variants/{variantId}/edit[?revision=…]`: the variant's newest revision (or the one named) in a
 * form — a completion or chat prompt field by field, any other data as JSON — committed as the next revision
 * with a message. The server's validation errors are shown at their field.
 */
export function EditPage({ params, query, kind }: ViewProps & { kind: WorkflowKind }) {
  const revisionId = query.get("revision");
  const loaded = useApi(async (signal) => {
    const [artifact, variant, revision] = await Promise.all([
      fetchArtifact(kind, params.id, signal),
      fetchVariant(kind, params.variantId, signal),
      revisionId ? fetchRevision(kind, revisionId, signal) : latestRevision(kind, params.variantId, signal),
    ]);
    return { artifact, variant, revision };
  }, [kind, params.id, params.variantId, revisionId]);
  const titles = KIND_TITLES[kind];
  const crumbs = (
    <p class="crumbs">
      <Link href={`/registry?kind=${kind}`}>{titles.many}</Link> / {loaded.data ? <Link href={`/${kind}/${params.id}`}>{loaded.data.artifact.slug}</Link> : "…"}
      {loaded.data && <> / {loaded.data.variant.slug}</>}
    </p>
  );
  if (loaded.error) return <>{crumbs}<ErrorBanner message={loaded.error} onRetry={loaded.reload} /></>;
  if (!loaded.data) return <>{crumbs}<Loading /></>;
  const { artifact, variant, revision } = loaded.data;
  return (
    <>
      {crumbs}
      <h1>Edit {artifact.name || artifact.slug} <span class="muted">· {variant.name || variant.slug}</span></h1>
      {query.get("committed") && String(revision.id) === revisionId && (
        <p class="banner banner-success" role="status">Committed version {revision.version}{revision.message ? `: ${revision.message}` : ""}</p>
      )}
      <dl class="facts">
        <dt>Version</dt><dd>v{revision.version}{revision.message && <span class="muted"> · {revision.message}</span>}</dd>
        <dt>Revision</dt><dd><IdChip id={revision.id} label="revision id" /></dd>
        <dt>Committed</dt><dd><Time value={revision.created_at} /></dd>
        {kind === "applications" && <><dt>Try it</dt><dd><Link href={hrefOf("/playground", { app: artifact.id, revision: revision.id })}>Open in the playground</Link></dd></>}
      </dl>
      <EditForm key={revision.id} kind={kind} artifactId={artifact.id} variantId={variant.id} revision={revision} />
    </>
  );
}

type Mode = "form" | "json";

function EditForm(props: { kind: WorkflowKind; artifactId: string; variantId: string; revision: Revision }) {
  const { kind, revision } = props;
  const original = revision.data ?? {};
  const originalPrompt = promptOf(original);
  const [mode, setMode] = useState<Mode>(originalPrompt ? "form" : "json");
  const [draft, setDraft] = useState<PromptDraft | null>(originalPrompt ? draftOf(originalPrompt) : null);
  const [json, setJson] = useState(() => JSON.stringify(original, null, 2));
  const [message, setMessage] = useState("");
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [banner, setBanner] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [stale, setStale] = useState<{ newest: Revision | null } | null>(null);
  useEffect(() => setErrors({}), [mode]);

  /** The data the form holds now, or the problems that keep it from being committed. */
  const current = (): { data?: Record<string, any>; errors: Record<string, string> } => {
    if (mode === "json") {
      const parsed = parseJson(json);
      if (parsed.error) return { errors: { data: parsed.error } };
      if (!parsed.value || typeof parsed.value !== "object" || Array.isArray(parsed.value)) return { errors: { data: "The data must be a JSON object" } };
      return { data: parsed.value as Record<string, any>, errors: {} };
    }
    const base = promptOf(original) ?? {};
    const built = promptOfDraft(base, draft!);
    if (!built.prompt) return { errors: built.errors };
    return { data: { ...original, parameters: { ...(original.parameters ?? {}), prompt: built.prompt } }, errors: {} };
  };

  const switchTo = (next: Mode) => {
    if (next === mode) return;
    const now = current();
    if (!now.data) {
      setErrors(now.errors);
      setBanner("Fix the marked fields before switching.");
      return;
    }
    setBanner(null);
    if (next === "json") setJson(JSON.stringify(now.data, null, 2));
    else {
      const prompt = promptOf(now.data);
      if (!prompt) {
        setBanner("This data has no prompt with text messages (data.parameters.prompt.messages) to show as a form.");
        return;
      }
      setDraft(draftOf(prompt));
    }
    setMode(next);
  };

  const commit = async (event: Event, anyway = false) => {
    event.preventDefault();
    const now = current();
    setBanner(null);
    setStale(null);
    if (!now.data) {
      setErrors(now.errors);
      return;
    }
    setErrors({});
    setBusy(true);
    try {
      const expected = anyway ? undefined : revision.id;
      const committed = await commitRevision(kind, props.variantId, now.data, message.trim(), expected);
      navigate(editHref(kind, props.artifactId, props.variantId, { revision: committed.id, committed: "1" }));
    } catch (error) {
      if (!anyway && error instanceof TesseraError && error.status === 409) {
        // Someone committed on this variant since this revision was opened: say so rather than overwrite it.
        setStale({ newest: await latestRevision(kind, props.variantId).catch(() => null) });
        return;
      }
      const fieldOf = (path: (string | number)[]) =>
        path[0] === "message" ? "message" : mode === "form" ? promptFieldOf(path) : path[0] === "data" ? { field: "data", withPath: true as const } : null;
      const { fields, rest } = issuesByField(error, fieldOf);
      setErrors(fields);
      if (Object.keys(fields).length === 0) setBanner(messageOf(error));
      else if (rest.length) setBanner(rest.join("; "));
      else setBanner("The server refused the commit: see the marked fields.");
    } finally {
      setBusy(false);
    }
  };

  const messageError = errors.message;
  return (
    <form class="edit-form" onSubmit={commit} noValidate>
      {originalPrompt && (
        <div class="edit-mode" role="group" aria-label="Edit as">
          <button type="button" aria-pressed={mode === "form"} onClick={() => switchTo("form")}>Prompt</button>
          <button type="button" aria-pressed={mode === "json"} onClick={() => switchTo("json")}>JSON</button>
        </div>
      )}
      <ErrorBanner message={banner} />
      {stale && (
        <StaleBase kind={kind} artifactId={props.artifactId} base={revision} newest={stale.newest}
          onCommitAnyway={(event) => commit(event, true)}
          onOpenNewest={(newest) =>
            navigate(editHref(kind, props.artifactId, props.variantId, { revision: newest.id }))} />
      )}
      {mode === "form" && draft ? (
        <PromptForm draft={draft} errors={errors} onChange={setDraft} />
      ) : (
        <JsonEditor id="revision-data" label={`Revision data (${singular(kind)} data: uri, parameters, schemas …)`} value={json} onInput={setJson} error={errors.data} rows={20} />
      )}
      <div class={`field edit-commit${messageError ? " field-invalid" : ""}`}>
        <label for="commit-message">Commit message</label>
        <input id="commit-message" value={message} placeholder="What changed, and why" onInput={(e) => setMessage((e.target as HTMLInputElement).value)}
          aria-invalid={messageError ? "true" : undefined} aria-describedby={messageError ? "commit-message-error" : undefined} />
        {messageError && <p class="field-error" id="commit-message-error">{messageError}</p>}
      </div>
      <div class="edit-actions">
        <button type="submit" class="button-primary" disabled={busy}>{busy ? "Committing…" : `Commit version ${Number(revision.version) + 1}`}</button>
        <Link href={`/${kind}/${props.artifactId}`}>Cancel</Link>
      </div>
    </form>
  );
}
