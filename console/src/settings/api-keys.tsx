import { useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import type { OkAnswer } from "../api-types.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { apiKey } from "../session.ts";

type ApiKey = OkAnswer<"/api/keys/", "get">[number];

const prefixOf = (key: string | null) => key?.replace(/^tsk_/, "").split(".")[0] ?? null;

/**
 * The project's API keys (`/api/keys/`): listed by prefix and status, created with a name and an optional
 * expiry (the key is shown once, here, to copy), and revoked after a confirmation.
 */
export function ApiKeys() {
  const loaded = useApi((signal) => api<ApiKey[]>("GET", "/keys/", undefined, { signal }), []);
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [created, setCreated] = useState<string | null>(null);
  const [copied, setCopied] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const own = prefixOf(apiKey());

  const create = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setBusy(true);
    try {
      const key = await api<string>("POST", "/keys/", { name: name.trim() || null, expiration_date: expires || null });
      setCreated(key);
      setCopied(false);
      setName("");
      setExpires("");
      loaded.reload();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(created!);
      setCopied(true);
    } catch {
      setCopied(false); // the key stays selectable in the box
    }
  };

  const columns: Column<ApiKey>[] = [
    {
      title: "Name",
      cell: (k) => (
        <>
          {k.name ?? <span class="muted">unnamed</span>}
          {k.prefix === own && <span class="badge">this tab</span>}
        </>
      ),
    },
    { title: "Key", cell: (k) => <code>tsk_{k.prefix}.…</code> },
    { title: "Status", cell: (k) => <span class={`badge key-${k.status}`}>{k.status}</span> },
    { title: "Created", cell: (k) => <Time value={k.created_at} />, wide: true },
    {
      title: "Expires",
      cell: (k) => (k.expiration_date ? <Time value={k.expiration_date} /> : <span class="muted">never</span>),
      wide: true,
    },
    {
      title: "",
      cell: (k) => k.status === "active" && (
        <button type="button" class="button-small" onClick={() => setRevoking(k)}
          aria-label={`Revoke ${k.name ?? k.prefix}`}>Revoke</button>
      ),
    },
  ];

  return (
    <section aria-labelledby="api-keys-title" class="settings-section">
      <h2 id="api-keys-title">API keys</h2>
      <p class="muted">Keys that clients, the command line and this console use to reach this project.</p>
      {loaded.error && <ErrorBanner message={loaded.error} onRetry={loaded.reload} />}
      {!loaded.data && !loaded.error && <Loading />}
      {loaded.data && <Table caption="API keys" columns={columns} rows={loaded.data} rowKey={(k) => k.id} />}
      {created && (
        <div class="card key-created" role="status">
          <p><strong>Copy the new key now: it is not shown again.</strong></p>
          <input readOnly class="code-input" aria-label="New API key" value={created}
            onFocus={(e) => e.currentTarget.select()} />
          <p><button type="button" onClick={copy}>{copied ? "Copied" : "Copy key"}</button>
            <button type="button" class="button-quiet" onClick={() => setCreated(null)}>Done</button></p>
        </div>
      )}
      <form class="settings-form" noValidate onSubmit={create} aria-label="Create an API key">
        <div class="field">
          <label for="key-name">Name</label>
          <input id="key-name" value={name} placeholder="ci" onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="key-expires">Expires on (optional)</label>
          <input id="key-expires" type="date" value={expires} onInput={(e) => setExpires(e.currentTarget.value)} />
        </div>
        {error && <div class="banner banner-error" role="alert">{error}</div>}
        <button type="submit" class="button-primary" disabled={busy}>Create key</button>
      </form>
      {revoking && (
        <ConfirmDialog title={`Revoke ${revoking.name ?? `tsk_${revoking.prefix}`}?`} confirmLabel="Revoke" danger
          onClose={() => setRevoking(null)}
          onConfirm={async () => {
            await api("DELETE", `/keys/${encodeURIComponent(revoking.prefix)}`);
            loaded.reload();
          }}>
          <p>
            Every client using it is refused from now on.
            {revoking.prefix === own && " This tab uses it: you will be signed out."}
          </p>
        </ConfirmDialog>
      )}
    </section>
  );
}
