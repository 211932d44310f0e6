import type { ComponentChildren } from "preact";
import { useEffect, useRef, useState } from "preact/hooks";
import { messageOf } from "../api.ts";
import { ErrorBanner } from "./error-banner.tsx";

/**
 * A modal confirmation (`<dialog>`: focus kept inside, Escape cancels). `onConfirm` runs the action; an error
 * keeps the dialog open with the server's `detail`, success closes it.
 */
export function ConfirmDialog(props: {
  title: string;
  confirmLabel: string;
  onConfirm: () => Promise<void>;
  onClose: () => void;
  children?: ComponentChildren;
  wide?: boolean;
  danger?: boolean;
  /** False while what the action needs is still loading (the confirm button waits). */
  ready?: boolean;
}) {
  const ref = useRef<HTMLDialogElement>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    const dialog = ref.current!;
    if (!dialog.open) dialog.showModal();
    const cancel = () => props.onClose();
    dialog.addEventListener("close", cancel);
    return () => dialog.removeEventListener("close", cancel);
  }, []);
  const confirm = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await props.onConfirm();
      ref.current?.close();
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  return (
    <dialog ref={ref} class={`confirm-dialog${props.wide ? " confirm-wide" : ""}`} aria-labelledby="confirm-title">
      <form method="dialog" onSubmit={confirm}>
        <h2 id="confirm-title">{props.title}</h2>
        <div class="confirm-body">{props.children}</div>
        <ErrorBanner message={error} />
        <div class="confirm-actions">
          <button type="button" onClick={() => ref.current?.close()}>Cancel</button>
          <button type="submit" class={props.danger ? "button-danger" : "button-primary"} disabled={busy || props.ready === false}>{busy ? "Working…" : props.confirmLabel}</button>
        </div>
      </form>
    </dialog>
  );
}
