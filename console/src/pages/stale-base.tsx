import { Link } from "../components/link.tsx";
import type { Revision, WorkflowKind } from "../revisions.ts";
import { hrefOf } from "../router.ts";

/**
 * The warning of a commit refused because its base is no longer the variant's newest revision (the server's
 * 409 to `If-Match`): compare the two, commit anyway (the newest's changes are replaced), or drop the edits and
 * open the newest.
 */
export function StaleBase(props: {
  kind: WorkflowKind; artifactId: string; base: Revision; newest: Revision | null;
  onCommitAnyway: (event: Event) => void;
  onOpenNewest: (newest: Revision) => void;
}) {
  const { kind, base, newest } = props;
  const diff = newest && hrefOf(`/${kind}/${props.artifactId}/diff`, { from: base.id, to: newest.id });
  return (
    <div class="banner banner-warning stale-base" role="alert">
      <p>
        <strong>This variant has a newer revision{newest ? ` (v${newest.version})` : ""}</strong> than the one you are
        editing (v{base.version}). Committing now replaces its changes with yours.
      </p>
      <p class="stale-actions">
        {diff && <Link href={diff}>Compare v{base.version} with v{newest.version}</Link>}
        <button type="button" onClick={props.onCommitAnyway}>Commit anyway</button>
        {newest && (
          <button type="button" class="button-quiet" onClick={() => props.onOpenNewest(newest)}>
            Discard my edits and open v{newest.version}
          </button>
        )}
      </p>
    </div>
  );
}
