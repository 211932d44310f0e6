import { useState } from "preact/hooks";
import { api, messageOf } from "../api.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { signIn, takeSignOutReason } from "../session.ts";

/** A key is checked with one cheap call before it is kept for this tab. */
export function SignInPage() {
  const [key, setKey] = useState("");
  const [error, setError] = useState<string | null>(takeSignOutReason);
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    const given = key.trim();
    if (!given) return setError("Enter an API key.");
    setBusy(true);
    setError(null);
    try {
      await api("GET", "/projects/current", undefined, { key: given });
      signIn(given);
    } catch (e) {
      setError(messageOf(e));
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Tessera</h1>
      <form onSubmit={submit} class="card">
        <h2>Sign in</h2>
        <p class="muted">
          With an API key of your project. The first start of the server prints one, and a link that signs you in;
          the key is also in <code>.tessera/api-key</code>. It is kept for this tab only.
        </p>
        <label for="api-key">API key</label>
        <input id="api-key" name="api-key" type="password" autoComplete="off" spellcheck={false} placeholder="tsk_…"
          value={key} onInput={(e) => setKey(e.currentTarget.value)} autoFocus />
        <ErrorBanner message={error} />
        <button type="submit" class="button-primary" disabled={busy}>{busy ? "Checking…" : "Sign in"}</button>
      </form>
    </main>
  );
}
