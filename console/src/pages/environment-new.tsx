import { useState } from "preact/hooks";
import { api } from "../api.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { emptyNaming, NameFields, namingError } from "../create/name-fields.tsx";

/**
 * "New environment": a name and slug, and whether it starts guarded (no deploy until it is unguarded). The
 * environment starts serving nothing; deploys fill it from the board.
 */
export function NewEnvironment(props: { onDone: () => void }) {
  const [open, setOpen] = useState(false);
  const [naming, setNaming] = useState(emptyNaming);
  const [guarded, setGuarded] = useState(false);
  const create = async () => {
    const wrong = namingError(naming);
    if (wrong) throw new Error(wrong);
    const flags = guarded ? { is_guarded: true } : {};
    await api("POST", "/simple/environments/", {
      environment: { slug: naming.slug, name: naming.name.trim(), flags, data: { references: {} } },
    });
    setNaming(emptyNaming);
    setGuarded(false);
    props.onDone();
  };
  return (
    <>
      <button type="button" class="button-primary" onClick={() => setOpen(true)}>New environment</button>
      {open && (
        <ConfirmDialog title="New environment" confirmLabel="Create" onConfirm={create} onClose={() => setOpen(false)}>
          <NameFields naming={naming} onChange={setNaming} what="environment" />
          <label class="checkbox">
            <input type="checkbox" checked={guarded} onChange={(e) => setGuarded(e.currentTarget.checked)} />
            Guarded: refuse deploys until it is unguarded
          </label>
        </ConfirmDialog>
      )}
    </>
  );
}
