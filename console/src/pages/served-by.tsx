import { useState } from "preact/hooks";
import { useApi } from "../api.ts";
import type { Artifact } from "../artifacts.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { loadEnvironments, type EnvironmentState } from "../environments.ts";
import type { Revision } from "../revisions.ts";
import { hrefOf } from "../router.ts";
import { DeployDialog } from "./environment-deploy.tsx";

/**
 * Which revision of the application each environment serves (this one marked), a deploy of this revision to
 * any of them (confirmed over the diff against what is live), and the playground on this revision.
 */
export function ServedBy(props: { application: Artifact; revision: Revision }) {
  const { application, revision } = props;
  const [round, setRound] = useState(0);
  const [deploying, setDeploying] = useState<EnvironmentState | null>(null);
  const loaded = useApi((signal) => loadEnvironments(signal), [round]);
  return (
    <div class="served-by">
      <h4>Environments</h4>
      {loaded.error && <ErrorBanner message={loaded.error} onRetry={loaded.reload} />}
      {!loaded.data && !loaded.error && <Loading label="Loading environments…" />}
      {loaded.data && (
        <ul class="served-list">
          {loaded.data.map((env) => {
            const live = env.deployed.get(application.id);
            const here = live?.application_revision.id === revision.id;
            const slug = env.environment.slug;
            return (
              <li data-env={slug}>
                <strong>{slug}</strong>{" "}
                {here ? <span class="badge badge-live">serves this revision</span>
                  : live ? <span class="muted">serves v{live.application_revision.version}</span>
                  : <span class="muted">serves nothing of it</span>}
                {!here && (
                  <button type="button" class="button-small" onClick={() => setDeploying(env)}>
                    Deploy v{revision.version} to {slug}
                  </button>
                )}
              </li>
            );
          })}
        </ul>
      )}
      <p>
        <Link class="button-link" href={hrefOf("/playground", { app: application.id, revision: revision.id })}>
          Open in the playground
        </Link>
      </p>
      {deploying && (
        <DeployDialog application={application} environment={deploying.environment} initial={revision.id}
          live={deploying.deployed.get(application.id)} onClose={() => setDeploying(null)}
          onDone={() => setRound((r) => r + 1)} />
      )}
    </div>
  );
}
