import { useEffect, useState } from "preact/hooks";
import { api } from "../api.ts";

let profile: Promise<{ id: string; email: string } | null> | null = null;
/** The signed-in user (`GET /api/profile`), asked once per page load. */
const me = () => (profile ??= api<{ id: string; email: string }>("GET", "/profile").catch(() => null));

/** Who made a change: the signed-in user's email when it was them, else the user id's end. */
export function Author(props: { id: string | null | undefined }) {
  const [self, setSelf] = useState<{ id: string; email: string } | null>(null);
  useEffect(() => void me().then(setSelf), []);
  if (!props.id) return <span class="muted">—</span>;
  if (self && self.id === props.id) return <span title={props.id}>{self.email}</span>;
  return <code title={props.id}>user …{props.id.slice(-8)}</code>;
}
