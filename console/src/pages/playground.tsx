import { useEffect } from "preact/hooks";
import { api, useApi } from "../api.ts";
import { queryArtifacts, queryVariants } from "../artifacts.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Workbench } from "../playground/workbench.tsx";
import { queryArtifactRevisions, type Revision } from "../revisions.ts";
import { setQuery, type ViewProps } from "../router.ts";
import { editHref } from "./edit.tsx";

/**
 * `/playground?app=…&revision=…|env=…`: an application's revision (or what an environment deployed) as a draft
 * to edit, run without committing and commit; side by side with other revisions or models, on inputs typed in
 * or taken from any testset row, and on a selection of rows as an evaluation run.
 */
export function PlaygroundPage({ query }: ViewProps) {
  const app = query.get("app") ?? "";
  const revision = query.get("revision") ?? "";
  const env = query.get("env") ?? "";
  const apps = useApi((signal) => queryArtifacts("applications", { limit: 200 }, signal), []);
  const environments = useApi((signal) => queryArtifacts("environments", { limit: 200 }, signal), []);
  const versions = useApi(async (signal) => {
    if (!app) return null;
    const [variants, revisions] = await Promise.all([
      queryVariants("applications", app, signal), queryArtifactRevisions("applications", app, signal),
    ]);
    return { variants, revisions };
  }, [app]);
  // The revision that runs: the one picked, or the one the environment has deployed.
  const target = useApi(async (signal): Promise<Revision | null> => {
    if (!app || (!revision && !env)) return null;
    const ref = revision
      ? { application_revision_ref: { id: revision } }
      : { application_ref: { id: app }, environment_ref: { slug: env } };
    const answer = await api("POST", "/applications/revisions/retrieve", ref, { signal });
    return answer.application_revision ?? null;
  }, [app, revision, env]);

  // Without a choice yet, the newest revision of the application.
  useEffect(() => {
    const newest = versions.loading ? undefined : versions.data?.revisions[0];
    if (app && !revision && !env && newest?.artifact_id === app) setQuery({ revision: newest.id });
  }, [app, revision, env, versions.data, versions.loading]);

  const variantSlug = (id: string) => versions.data?.variants.find((v) => v.id === id)?.slug ?? "variant";
  const choice = revision ? `revision:${revision}` : env ? `env:${env}` : "";
  const choose = (value: string) => {
    const [what, id] = [value.slice(0, value.indexOf(":")), value.slice(value.indexOf(":") + 1)];
    setQuery({ revision: what === "revision" ? id : null, env: what === "env" ? id : null, committed: null });
  };

  return (
    <>
      <h1>Playground</h1>
      <ErrorBanner message={apps.error ?? environments.error}
        onRetry={() => { apps.reload(); environments.reload(); }} />
      <div class="pg-pick">
        <div class="field">
          <label for="pg-app">Application</label>
          <select id="pg-app" value={app} onChange={(e) =>
            setQuery({ app: (e.target as HTMLSelectElement).value, revision: null, env: null, committed: null })}>
            <option value="">Choose an application…</option>
            {apps.data?.items.map((a) => <option value={a.id}>{a.name || a.slug}</option>)}
          </select>
        </div>
        <div class="field">
          <label for="pg-version">Revision or environment</label>
          <select id="pg-version" value={choice} disabled={!app || !versions.data}
            onChange={(e) => choose((e.target as HTMLSelectElement).value)}>
            {!choice && <option value="">Choose…</option>}
            <optgroup label="Environments (what is deployed)">
              {environments.data?.items.map((e) => <option value={`env:${e.slug}`}>{e.name || e.slug}</option>)}
            </optgroup>
            <optgroup label="Revisions">
              {versions.data?.revisions.map((r) => (
                <option value={`revision:${r.id}`}>
                  {variantSlug(r.variant_id)} v{r.version}{r.message ? ` · ${r.message.slice(0, 60)}` : ""}
                </option>
              ))}
            </optgroup>
          </select>
        </div>
      </div>
      {apps.data && apps.data.items.length === 0 && (
        <EmptyState title="No applications yet">
          <p>Create one with the API or the <code>tessera</code> command line, then try it here.</p>
        </EmptyState>
      )}
      <ErrorBanner message={versions.error ?? target.error} onRetry={() => { versions.reload(); target.reload(); }} />
      {query.get("committed") && target.data?.id === revision && (
        <p class="banner banner-success" role="status">
          Committed v{target.data.version} of {target.data.variant_slug}
          {target.data.message ? `: ${target.data.message}` : ""}
          {" · "}
          <Link href={editHref("applications", app, target.data.variant_id, { revision })}>Open its edit page</Link>
        </p>
      )}
      {target.loading && (revision || env) && <Loading />}
      {!target.loading && target.data && target.data.artifact_id === app && (
        <Workbench key={target.data.id} revision={target.data} revisions={versions.data?.revisions ?? []}
          variantSlug={variantSlug}
          onCommitted={(next) => { versions.reload(); setQuery({ revision: next.id, env: null, committed: "1" }); }}
          onOpen={(next) => setQuery({ revision: next.id, env: null, committed: null })} />
      )}
    </>
  );
}
