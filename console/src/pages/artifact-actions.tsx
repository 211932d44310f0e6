import { useState } from "preact/hooks";
import { singular, type ArtifactKind } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { forkFrom, revertTo, setArchived, type Revision } from "../revisions.ts";

/** Archive or unarchive an artifact or a variant, after a confirmation. */
export function ArchiveButton(props: {
  kind: ArtifactKind; level: "artifact" | "variant"; id: string; name: string; archived: boolean; onDone: () => void;
}) {
  const [open, setOpen] = useState(false);
  const verb = props.archived ? "Unarchive" : "Archive";
  const what = props.level === "artifact" ? singular(props.kind) : "variant";
  return (
    <>
      <button type="button" class="button-small" onClick={() => setOpen(true)} aria-label={`${verb} ${what} ${props.name}`}>{verb}</button>
      {open && (
        <ConfirmDialog title={`${verb} ${what} ${props.name}?`} confirmLabel={verb} danger={!props.archived} onClose={() => setOpen(false)}
          onConfirm={async () => {
            await setArchived(props.kind, props.level, props.id, !props.archived);
            props.onDone();
          }}>
          <p>{props.archived
            ? `The ${what} comes back into lists and can be committed to again.`
            : `The ${what} leaves lists (“Show archived” finds it) and refuses new commits; its history stays.`}</p>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Fork a new variant from a revision: its lineage up to that revision, under a new slug. */
export function ForkButton(props: { kind: ArtifactKind; revision: Revision; onDone: (variantId: string) => void }) {
  const [open, setOpen] = useState(false);
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>Fork a variant…</button>
      {open && (
        <ConfirmDialog title={`Fork a variant from v${props.revision.version}`} confirmLabel="Fork" onClose={() => setOpen(false)}
          onConfirm={async () => {
            const variant = await forkFrom(props.kind, props.revision.id, { slug: slug.trim(), ...(name.trim() ? { name: name.trim() } : {}) });
            props.onDone(variant.id);
          }}>
          <p>The new variant of <code>{props.revision.artifact_slug}</code> holds the revisions of <code>{props.revision.variant_slug}</code> up to v{props.revision.version}.</p>
          <label class="field">Variant slug<input type="text" required value={slug} onInput={(e) => setSlug((e.target as HTMLInputElement).value)} /></label>
          <label class="field">Name (optional)<input type="text" value={name} onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
        </ConfirmDialog>
      )}
    </>
  );
}

/** Revert: a new revision on the variant whose data equals this one's (history is kept). */
export function RevertButton(props: { kind: ArtifactKind; revision: Revision; onDone: (revision: Revision) => void }) {
  const [open, setOpen] = useState(false);
  const [message, setMessage] = useState("");
  return (
    <>
      <button type="button" onClick={() => setOpen(true)}>Revert to this…</button>
      {open && (
        <ConfirmDialog title={`Revert ${props.revision.variant_slug} to v${props.revision.version}?`} confirmLabel="Revert" onClose={() => setOpen(false)}
          onConfirm={async () => props.onDone(await revertTo(props.kind, props.revision.id, message.trim() || undefined))}>
          <p>A new revision on <code>{props.revision.variant_slug}</code> takes the data of v{props.revision.version}; no revision is removed.</p>
          <label class="field">Message (optional)<input type="text" value={message} onInput={(e) => setMessage((e.target as HTMLInputElement).value)} /></label>
        </ConfirmDialog>
      )}
    </>
  );
}
