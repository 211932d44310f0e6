import { useState } from "preact/hooks";
import type { Artifact } from "../artifacts.ts";
import { Link } from "../components/link.tsx";
import type { EnvironmentState } from "../environments.ts";
import type { Revision } from "../revisions.ts";
import { hrefOf } from "../router.ts";
import { DeployDialog } from "./environment-deploy.tsx";

/** The environments serving each revision of `application`, by revision id (in promotion order). */
export function servingByRevision(
  application: Artifact, environments: EnvironmentState[],
): Map<string, EnvironmentState[]> {
  const out = new Map<string, EnvironmentState[]>();
  for (const env of environments) {
    const live = env.deployed.get(application.id);
    if (live) out.set(live.application_revision.id, [...(out.get(live.application_revision.id) ?? []), env]);
  }
  return out;
}

/** One chip per environment serving this revision, named after it. */
export function EnvironmentChips(props: { serving: EnvironmentState[] }) {
  return (
    <>
      {props.serving.map((env) => (
        <span key={env.environment.id} class="badge badge-env" data-env={env.environment.slug}
          title={`${env.environment.slug} serves this revision`}>
          {env.environment.slug}
        </span>
      ))}
    </>
  );
}

/**
 * A timeline row's actions on an application revision: deploy it to an environment that does not serve it
 * (picked in a list, confirmed over the diff against what is live) and open it in the playground.
 */
export function RevisionEnvironmentActions(props: {
  application: Artifact; revision: Revision; environments: EnvironmentState[]; onDeployed: () => void;
}) {
  const { application, revision } = props;
  const [deploying, setDeploying] = useState<EnvironmentState | null>(null);
  const elsewhere = props.environments
    .filter((env) => env.deployed.get(application.id)?.application_revision.id !== revision.id);
  return (
    <span class="timeline-actions">
      {elsewhere.length > 0 && (
        <select aria-label={`Deploy v${revision.version} to`} value=""
          onChange={(e) => setDeploying(elsewhere.find((env) => env.environment.id === e.currentTarget.value) ?? null)}>
          <option value="">Deploy to…</option>
          {elsewhere.map((env) => (
            <option key={env.environment.id} value={env.environment.id}>{env.environment.slug}</option>
          ))}
        </select>
      )}
      <Link href={hrefOf("/playground", { app: application.id, revision: revision.id })}
        aria-label={`Open v${revision.version} in the playground`}>Playground</Link>
      {deploying && (
        <DeployDialog application={application} environment={deploying.environment} initial={revision.id}
          live={deploying.deployed.get(application.id)} onClose={() => setDeploying(null)} onDone={props.onDeployed} />
      )}
    </span>
  );
}
