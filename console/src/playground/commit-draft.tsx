import { useState } from "preact/hooks";
import { messageOf, TesseraError } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { promptFieldOf } from "../pages/prompt-form.tsx";
import { StaleBase } from "../pages/stale-base.tsx";
import { commitRevision, issuesByField, latestRevision, type Revision } from "../revisions.ts";

/**
 * Commits the draft as the next revision of the variant it was opened from, with a message. The commit names the
 * revision it was opened from as the expected base, so a commit that came first is a warning, not an overwrite.
 */
export function CommitDraft(props: {
  base: Revision; changed: boolean;
  /** The revision data the draft describes, or null after marking the form's problems. */
  data: () => Record<string, any> | null;
  onErrors: (errors: Record<string, string>) => void;
  onCommitted: (revision: Revision) => void;
  onOpen: (revision: Revision) => void;
}) {
  const { base } = props;
  const [message, setMessage] = useState("");
  const [busy, setBusy] = useState(false);
  const [banner, setBanner] = useState<string | null>(null);
  const [stale, setStale] = useState<{ newest: Revision | null } | null>(null);

  const commit = async (event: Event, anyway = false) => {
    event.preventDefault();
    setBanner(null);
    setStale(null);
    const data = props.data();
    if (!data) return;
    setBusy(true);
    try {
      const expected = anyway ? undefined : base.id;
      props.onCommitted(await commitRevision("applications", base.variant_id, data, message.trim(), expected));
    } catch (error) {
      if (!anyway && error instanceof TesseraError && error.status === 409) {
        setStale({ newest: await latestRevision("applications", base.variant_id).catch(() => null) });
        return;
      }
      const { fields, rest } = issuesByField(error, (path) => (path[0] === "message" ? null : promptFieldOf(path)));
      props.onErrors(fields);
      const marked = "The server refused the commit: see the marked fields.";
      setBanner(Object.keys(fields).length === 0 ? messageOf(error) : rest.join("; ") || marked);
    } finally {
      setBusy(false);
    }
  };

  return (
    <form class="pg-commit" onSubmit={commit} aria-label="Commit the draft" noValidate>
      <ErrorBanner message={banner} />
      {stale && (
        <StaleBase kind="applications" artifactId={base.artifact_id} base={base} newest={stale.newest}
          onCommitAnyway={(event) => commit(event, true)} onOpenNewest={props.onOpen} />
      )}
      {props.changed ? (
        <div class="pg-commit-row">
          <label class="visually-hidden" for="pg-commit-message">Commit message</label>
          <input id="pg-commit-message" value={message} placeholder="What changed, and why"
            onInput={(e) => setMessage((e.target as HTMLInputElement).value)} />
          <button type="submit" class="button-primary" disabled={busy}>
            {busy ? "Committing…" : `Commit as v${Number(base.version) + 1} of ${base.variant_slug}`}
          </button>
        </div>
      ) : (
        <p class="muted pg-commit-hint">
          Edit the prompt or its settings to run a draft; commit it here as v{Number(base.version) + 1}.
        </p>
      )}
    </form>
  );
}
