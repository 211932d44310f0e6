import { useState } from "preact/hooks";
import { useApi } from "../api.ts";
import type { Artifact } from "../artifacts.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { RevisionDiff } from "../diff/revision-diff.tsx";
import { applicationRevisions, deployRevision, type Deployed } from "../environments.ts";

/** What a deploy or a promotion would change: the live revision against the one to deploy. */
function Preview(props: { environment: Artifact; live: Deployed | undefined; revisionId: string | null }) {
  const { live, revisionId, environment } = props;
  if (!revisionId) return null;
  if (!live) return <p>Nothing of this application is live in <strong>{environment.slug}</strong> yet.</p>;
  if (live.application_revision.id === revisionId) return <p>This revision is already live in <strong>{environment.slug}</strong>.</p>;
  return <RevisionDiff kind="applications" from={live.application_revision.id} to={revisionId} beforeTitle={`Live in ${environment.slug}`} afterTitle="To deploy" />;
}

/**
 * Deploy an application revision to an environment: pick the revision (or take the one being promoted),
 * read the diff against what is live, confirm.
 */
export function DeployDialog(props: {
  application: Artifact; environment: Artifact; live: Deployed | undefined; promote?: { from: Artifact; revision: Deployed };
  /** The revision picked at first (the newest when absent). */
  initial?: string;
  onClose: () => void; onDone: () => void;
}) {
  const { application, environment, promote } = props;
  const [picked, setRevisionId] = useState<string | null>(
    promote?.revision.application_revision.id ?? props.initial ?? null,
  );
  const revisions = useApi((signal) => (promote ? Promise.resolve([]) : applicationRevisions(application.id, signal)), [application.id, !!promote]);
  // The newest revision until one is picked.
  const revisionId = picked ?? revisions.data?.[0]?.id ?? null;
  const name = application.name || application.slug;
  const title = promote
    ? `Promote ${name} from ${promote.from.slug} to ${environment.slug}?`
    : `Deploy ${name} to ${environment.slug}`;
  const message = promote
    ? `Promote ${application.slug} v${promote.revision.application_revision.version} from ${promote.from.slug} to ${environment.slug}`
    : undefined;
  return (
    <ConfirmDialog title={title} confirmLabel={promote ? "Promote" : "Deploy"} wide onClose={props.onClose} ready={!!revisionId}
      onConfirm={async () => {
        if (!revisionId) throw new Error("Pick a revision to deploy");
        await deployRevision(revisionId, environment.id, message);
        props.onDone();
      }}>
      {promote ? (
        <p>{environment.slug} will serve v{promote.revision.application_revision.version}
          {promote.revision.application_variant && <> of <code>{promote.revision.application_variant.slug}</code></>}, as {promote.from.slug} does.</p>
      ) : revisions.error ? (
        <ErrorBanner message={revisions.error} onRetry={revisions.reload} />
      ) : !revisions.data ? (
        <Loading label="Loading revisions…" />
      ) : revisions.data.length === 0 ? (
        <p>This application has no revision to deploy yet.</p>
      ) : (
        <label class="field">Revision
          <select value={revisionId ?? ""} onChange={(e) => setRevisionId((e.target as HTMLSelectElement).value)}>
            {revisions.data.map((r) => <option value={r.id}>v{r.version} · {r.variant_slug}{r.message ? ` — ${r.message}` : ""}</option>)}
          </select>
        </label>
      )}
      <Preview environment={environment} live={props.live} revisionId={revisionId} />
    </ConfirmDialog>
  );
}
