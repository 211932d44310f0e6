import { useState } from "preact/hooks";
import { useApi } from "../api.ts";
import type { Artifact } from "../artifacts.ts";
import { Author } from "../components/author.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Time } from "../components/time.tsx";
import { environmentHistory, loadBoard, type Deployed, type EnvironmentState } from "../environments.ts";
import { hrefOf, type ViewProps } from "../router.ts";
import { DeployDialog } from "./environment-deploy.tsx";
import { NewEnvironment } from "./environment-new.tsx";

interface Pending {
  application: Artifact;
  environment: Artifact;
  live: Deployed | undefined;
  promote?: { from: Artifact; revision: Deployed };
}

/**
 * `/environments?env=…`: a board of applications × environments showing the revision each environment
 * serves, with deploy and promote (each confirmed over a diff against what is live), and the history of
 * the environment picked.
 */
export function EnvironmentsPage({ query }: ViewProps) {
  const [round, setRound] = useState(0);
  const board = useApi((signal) => loadBoard(signal), [round]);
  const [pending, setPending] = useState<Pending | null>(null);
  const selected = query.get("env");
  if (board.error) return <><h1>Environments</h1><ErrorBanner message={board.error} onRetry={board.reload} /></>;
  if (!board.data) return <><h1>Environments</h1><Loading /></>;
  const { applications, environments } = board.data;
  const history = environments.find((e) => e.environment.id === selected || e.environment.slug === selected) ?? null;
  return (
    <>
      <div class="page-head">
        <h1>Environments</h1>
        <NewEnvironment onDone={() => setRound((r) => r + 1)} />
      </div>
      <p class="muted">Which revision of each application every environment serves. Deploy a revision, or promote what one environment serves to the next.</p>
      {environments.length === 0 ? (
        <EmptyState title="No environments"><p>Click “New environment” to create one, then deploy to it here.</p></EmptyState>
      ) : applications.length === 0 ? (
        <EmptyState title="No applications yet"><p>Create an application, then deploy its revisions here.</p></EmptyState>
      ) : (
        <div class="table-wrap">
          <table class="env-board">
            <caption class="visually-hidden">Applications by environment</caption>
            <thead>
              <tr>
                <th scope="col">Application</th>
                {environments.map((e) => (
                  <th scope="col">
                    <Link href={hrefOf("/environments", { env: e.environment.slug })} aria-label={`History of ${e.environment.slug}`}>{e.environment.slug}</Link>
                    {e.environment.flags?.is_guarded === true && <span class="badge">guarded</span>}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {applications.map((app) => (
                <tr key={app.id}>
                  <th scope="row"><Link href={`/applications/${app.id}`}>{app.name || app.slug}</Link></th>
                  {environments.map((env, i) => (
                    <td data-env={env.environment.slug}>
                      <Cell app={app} env={env} next={environments[i + 1]} open={setPending} />
                    </td>
                  ))}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {history && <History state={history} round={round} />}
      {!history && environments.length > 0 && <p class="muted env-history">Pick an environment's name above to see its history.</p>}
      {pending && (
        <DeployDialog {...pending} onClose={() => setPending(null)} onDone={() => setRound((r) => r + 1)} />
      )}
      <h2>All environments</h2>
      <ul class="env-list">
        {environments.map((e) => <li><Link href={`/environments/${e.environment.id}`}>{e.environment.name || e.environment.slug}</Link></li>)}
      </ul>
    </>
  );
}

/** One application in one environment: the revision served, deploy, and promote to the next environment. */
function Cell(props: { app: Artifact; env: EnvironmentState; next: EnvironmentState | undefined; open: (p: Pending) => void }) {
  const { app, env, next } = props;
  const live = env.deployed.get(app.id);
  const nextLive = next?.deployed.get(app.id);
  const where = `${app.slug} in ${env.environment.slug}`;
  return (
    <div class="env-cell">
      {live ? (
        <span>
          <Link href={hrefOf(`/applications/${app.id}`, { variant: live.application_variant?.id, revision: live.application_revision.id })}
            aria-label={`${where}: version ${live.application_revision.version}`}>v{live.application_revision.version}</Link>
          {live.application_variant && <span class="muted"> · {live.application_variant.slug}</span>}
        </span>
      ) : <span class="muted" aria-label={`${where}: nothing deployed`}>—</span>}
      <span class="env-actions">
        <button type="button" class="button-small" aria-label={`Deploy ${where}`}
          onClick={() => props.open({ application: app, environment: env.environment, live })}>Deploy…</button>
        {live && next && nextLive?.application_revision.id !== live.application_revision.id && (
          <button type="button" class="button-small" aria-label={`Promote ${app.slug} from ${env.environment.slug} to ${next.environment.slug}`}
            onClick={() => props.open({ application: app, environment: next.environment, live: nextLive, promote: { from: env.environment, revision: live } })}>
            → {next.environment.slug}
          </button>
        )}
      </span>
    </div>
  );
}

/** An environment's pointer history: who changed what it serves, and when. */
function History(props: { state: EnvironmentState; round: number }) {
  const env = props.state.environment;
  const loaded = useApi((signal) => environmentHistory(env.id, signal), [env.id, props.round]);
  return (
    <section class="env-history" aria-label={`History of ${env.slug}`}>
      <h2>History of {env.slug}</h2>
      {loaded.error ? <ErrorBanner message={loaded.error} onRetry={loaded.reload} /> : !loaded.data ? <Loading /> : (
        <div class="table-wrap">
          <table class="env-log">
            <caption class="visually-hidden">{`Changes to ${env.slug}, newest first`}</caption>
            <thead><tr><th scope="col">Version</th><th scope="col">Change</th><th scope="col">Who</th><th scope="col">When</th><th scope="col" class="wide">Diff</th></tr></thead>
            <tbody>
              {loaded.data.map((r) => (
                <tr key={r.id}>
                  <td>v{r.version}</td>
                  <td>{r.message || <span class="muted">—</span>}</td>
                  <td><Author id={r.author} /></td>
                  <td><Time value={r.date} /></td>
                  <td class="wide">{r.parent_id && Number(r.version) > 1 && (
                    <Link href={hrefOf(`/environments/${env.id}/diff`, { from: r.parent_id, to: r.id })}>changes</Link>
                  )}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}
