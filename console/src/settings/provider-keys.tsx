import { useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import type { OkAnswer } from "../api-types.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";

type Secret = OkAnswer<"/api/secrets/", "get">[number];
type Provider = "openai" | "anthropic" | "compatible";

const PROVIDERS: { id: Provider; title: string }[] = [
  { id: "openai", title: "OpenAI" },
  { id: "anthropic", title: "Anthropic" },
  { id: "compatible", title: "OpenAI-compatible (any base URL)" },
];

/** How a stored secret reads in the list: its provider, and the base URL of an OpenAI-compatible one. */
function describe(s: Secret): { provider: string; url: string | null } {
  const data = s.data as Record<string, any>;
  if (s.kind === "custom_provider") return { provider: "OpenAI-compatible", url: data.provider?.url ?? null };
  return { provider: PROVIDERS.find((p) => p.id === data.kind)?.title ?? String(data.kind), url: null };
}

/** The body of `POST /secrets/` for the form (the older, flat shape: a base URL makes it a custom provider). */
function secretBody(provider: Provider, key: string, name: string, url: string) {
  if (provider !== "compatible") return { secret: { provider, api_key: key } };
  return { secret: { provider: "openai", api_key: key, slug: name, name, base_url: url } };
}

/**
 * Provider keys, stored as the project's secrets (`/api/secrets/`, encrypted by the server): listed with their
 * key hidden (the server never sends it back), added, replaced (adding the same provider again) and deleted.
 */
export function ProviderKeys() {
  const loaded = useApi((signal) => api<Secret[]>("GET", "/secrets/", undefined, { signal }), []);
  const [provider, setProvider] = useState<Provider>("openai");
  const [key, setKey] = useState("");
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Secret | null>(null);

  const save = async (event: Event) => {
    event.preventDefault();
    setError(null);
    setSaved(null);
    if (!key.trim()) return setError("Paste the provider's API key.");
    if (provider === "compatible" && !/^[A-Za-z0-9_-]{1,64}$/.test(name)) {
      return setError("Name it with letters, digits, dashes or underscores: models are then named <name>/<model>.");
    }
    if (provider === "compatible" && !/^https?:\/\/\S+$/.test(url.trim())) {
      return setError("The base URL starts with http:// or https://.");
    }
    const existing = (loaded.data ?? []).find((s) => s.slug === (provider === "compatible" ? name : provider));
    setBusy(true);
    try {
      const body = secretBody(provider, key.trim(), name, url.trim());
      if (existing) await api("PUT", `/secrets/${encodeURIComponent(existing.id)}`, body);
      else await api("POST", "/secrets/", body);
      setKey("");
      setSaved(`${PROVIDERS.find((p) => p.id === provider)!.title} key ${existing ? "replaced" : "saved"}.`);
      loaded.reload();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };

  const columns: Column<Secret>[] = [
    { title: "Name", cell: (s) => <strong>{s.slug}</strong> },
    { title: "Provider", cell: (s) => describe(s).provider },
    {
      title: "Base URL",
      cell: (s) => (describe(s).url ? <code>{describe(s).url}</code> : <span class="muted">provider's own</span>),
      wide: true,
    },
    { title: "Key", cell: () => <span class="muted" title="Stored encrypted; never shown again">hidden</span> },
    { title: "Updated", cell: (s) => <Time value={s.lifecycle.updated_at ?? s.lifecycle.created_at} />, wide: true },
    {
      title: "",
      cell: (s) => (
        <button type="button" class="button-small" onClick={() => setDeleting(s)} aria-label={`Delete ${s.slug}`}>
          Delete
        </button>
      ),
    },
  ];

  return (
    <section aria-labelledby="provider-keys-title" class="settings-section">
      <h2 id="provider-keys-title">Provider keys</h2>
      <p class="muted">
        Keys the runtime uses to call model providers for this project. They are stored encrypted and never shown again.
      </p>
      {loaded.error && <ErrorBanner message={loaded.error} onRetry={loaded.reload} />}
      {!loaded.data && !loaded.error && <Loading />}
      {loaded.data && loaded.data.length === 0 && (
        <EmptyState title="No provider keys yet">
          <p>Add one below to run prompts in the playground and in evaluations.</p>
        </EmptyState>
      )}
      {loaded.data && loaded.data.length > 0 && (
        <Table caption="Provider keys" columns={columns} rows={loaded.data} rowKey={(s) => s.id} />
      )}
      <form class="settings-form" noValidate onSubmit={save} aria-label="Add a provider key">
        <div class="field">
          <label for="provider">Provider</label>
          <select id="provider" value={provider} onChange={(e) => setProvider(e.currentTarget.value as Provider)}>
            {PROVIDERS.map((p) => <option value={p.id}>{p.title}</option>)}
          </select>
        </div>
        {provider === "compatible" && (
          <>
            <div class="field">
              <label for="provider-name">Name</label>
              <input id="provider-name" value={name} placeholder="local"
                onInput={(e) => setName(e.currentTarget.value)} />
              <p class="muted field-hint">Its models are then named <code>{name || "<name>"}/&lt;model&gt;</code>.</p>
            </div>
            <div class="field">
              <label for="provider-url">Base URL</label>
              <input id="provider-url" type="url" value={url} placeholder="https://llm.example.com/v1"
                onInput={(e) => setUrl(e.currentTarget.value)} />
              <p class="muted field-hint">
                An http:// or private address is refused unless the server runs with{" "}
                <code>TESSERA_ALLOW_PRIVATE_HOOKS=true</code>.
              </p>
            </div>
          </>
        )}
        <div class="field">
          <label for="provider-key">API key</label>
          <input id="provider-key" type="password" autocomplete="off" value={key}
            onInput={(e) => setKey(e.currentTarget.value)} />
        </div>
        {error && <div class="banner banner-error" role="alert">{error}</div>}
        {saved && <p role="status" class="settings-saved">{saved}</p>}
        <button type="submit" class="button-primary" disabled={busy}>Save key</button>
      </form>
      {deleting && (
        <ConfirmDialog title={`Delete ${deleting.slug}?`} confirmLabel="Delete" danger onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await api("DELETE", `/secrets/${encodeURIComponent(deleting.id)}`);
            loaded.reload();
          }}>
          <p>Prompts that use this provider stop running until a key is added again.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}
