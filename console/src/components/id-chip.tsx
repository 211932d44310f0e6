import { useState } from "preact/hooks";

/** An id, shortened to its end (a UUIDv7 begins with its time, alike for ids made together), with a button that copies it whole. */
export function IdChip(props: { id: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.id);
      setCopied(true);
      setTimeout(() => setCopied(false), 1500);
    } catch {
      setCopied(false); // clipboard refused (insecure context): the full id is still in the title
    }
  };
  return (
    <span class="id-chip" title={props.id}>
      <code>…{props.id.slice(-8)}</code>
      <button type="button" class="chip-button" onClick={copy} aria-label={`Copy ${props.label ?? "id"} ${props.id}`}>
        {copied ? "Copied" : "Copy"}
      </button>
    </span>
  );
}
