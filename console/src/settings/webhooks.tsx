import { useState } from "preact/hooks";
import { api, messageOf, useApi } from "../api.ts";
import type { OkAnswer } from "../api-types.ts";
import { ConfirmDialog } from "../components/confirm-dialog.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Loading } from "../components/loading.tsx";
import { Table, type Column } from "../components/table.tsx";
import { Time } from "../components/time.tsx";

type Subscription = OkAnswer<"/api/webhooks/subscriptions/query", "post">["subscriptions"][number];
type Delivery = OkAnswer<"/api/webhooks/deliveries/query", "post">["deliveries"][number];

/** The events a commit sends, as the form offers them (applications and evaluators commit as workflows). */
const EVENTS = [
  ["environments.revisions.committed", "Deploys and other environment commits"],
  ["workflows.revisions.committed", "Application, evaluator and workflow commits"],
  ["testsets.revisions.committed", "Testset commits"],
] as const;

const urlOf = (s: Subscription) => String((s.data as { url?: string }).url ?? "");
const eventsOf = (s: Subscription) => ((s.data as { event_types?: string[] }).event_types ?? null);

/** A subscription's state in a word: stopped, paused (after failing too long), failing, or active. */
function stateOf(s: Subscription): { label: string; tone: string; title?: string } {
  if (s.status?.code === "paused") return { label: "paused", tone: "failure", title: s.status.message };
  if (!s.flags.is_active) return { label: "stopped", tone: "cancelled" };
  if (s.status?.code === "failing") return { label: "failing", tone: "errors", title: s.status.message };
  return { label: "active", tone: "success" };
}

/** A delivery's outcome from its last attempt: the receiver's status code, or why there was none. */
function outcomeOf(d: Delivery): string {
  const last = d.attempts.at(-1);
  if (!last) return d.status.message;
  return last.status_code != null ? `${last.status_code}` : (last.error ?? d.status.message);
}

/** A delivery in a word: delivered (a 2xx), failed, or waiting for its first attempt. */
function deliveryState(d: Delivery): { label: string; tone: string } {
  if (/^2\d\d$/.test(d.status.code)) return { label: "delivered", tone: "success" };
  if (d.attempts.length === 0) return { label: "waiting", tone: "queued" };
  return { label: "failed", tone: "failure" };
}

/**
 * Webhook subscriptions (`/api/webhooks/…`): listed with their state, created with a URL, the events to send and how
 * to authenticate (the generated secret is shown once), tested, stopped and started, deleted; and each one's
 * delivery log, every attempt with its answer, with redeliver.
 */
export function Webhooks() {
  const loaded = useApi((signal) => api<OkAnswer<"/api/webhooks/subscriptions/query", "post">>(
    "POST", "/webhooks/subscriptions/query", {}, { signal },
  ), []);
  const [name, setName] = useState("");
  const [url, setUrl] = useState("");
  const [events, setEvents] = useState<string[]>(EVENTS.map(([type]) => type));
  const [mode, setMode] = useState<"signature" | "authorization">("signature");
  const [secret, setSecret] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [deleting, setDeleting] = useState<Subscription | null>(null);
  const [open, setOpen] = useState<Subscription | null>(null);

  const act = async (work: () => Promise<string | void>) => {
    setError(null);
    setNotice(null);
    setBusy(true);
    try {
      const said = await work();
      if (said) setNotice(said);
      loaded.reload();
    } catch (e) {
      setError(messageOf(e));
    } finally {
      setBusy(false);
    }
  };
  const create = (event: Event) => {
    event.preventDefault();
    void act(async () => {
      const data = { url: url.trim(), event_types: events, auth_mode: mode };
      const subscription = { name: name.trim() || null, data };
      const answer = await api<{ subscription: Subscription & { secret?: string } }>(
        "POST", "/webhooks/subscriptions/", { subscription },
      );
      setSecret(answer.subscription.secret ?? null);
      setName("");
      setUrl("");
    });
  };
  const test = (s: Subscription) => act(async () => {
    const body = { subscription_id: s.id };
    const { delivery } = await api<{ delivery: Delivery }>("POST", "/webhooks/subscriptions/test", body);
    setOpen(s);
    return `Test sent to ${urlOf(s)}: ${outcomeOf(delivery)}`;
  });
  const toggle = (s: Subscription) => act(() =>
    api("POST", `/webhooks/subscriptions/${s.id}/${s.flags.is_active ? "stop" : "start"}`).then(() => {}));

  const columns: Column<Subscription>[] = [
    { title: "Name", cell: (s) => s.name || <span class="muted">unnamed</span> },
    { title: "URL", cell: (s) => <code>{urlOf(s)}</code> },
    {
      title: "Events",
      cell: (s) => eventsOf(s)?.map((e) => <span key={e} class="badge">{e.split(".")[0]}</span>) ?? "every event",
      wide: true,
    },
    {
      title: "State",
      cell: (s) => {
        const state = stateOf(s);
        return <span class={`badge ev-status-${state.tone}`} title={state.title}>{state.label}</span>;
      },
    },
    {
      title: "",
      cell: (s) => (
        <span class="webhook-actions">
          <button type="button" class="button-small" disabled={busy} onClick={() => test(s)}
            aria-label={`Send a test to ${s.name || urlOf(s)}`}>Send test</button>
          <button type="button" class="button-small" onClick={() => setOpen(s)}
            aria-label={`Deliveries of ${s.name || urlOf(s)}`}>Deliveries</button>
          <button type="button" class="button-small" disabled={busy} onClick={() => toggle(s)}>
            {s.flags.is_active ? "Stop" : "Start"}</button>
          <button type="button" class="button-small" onClick={() => setDeleting(s)}
            aria-label={`Delete ${s.name || urlOf(s)}`}>Delete</button>
        </span>
      ),
    },
  ];

  return (
    <section aria-labelledby="webhooks-title" class="settings-section">
      <h2 id="webhooks-title">Webhooks</h2>
      <p class="muted">
        Tell other systems when a prompt, a testset or a deployment changes: each commit is sent, signed, to every
        subscription that wants it, and retried until it is received.
      </p>
      {loaded.error && <ErrorBanner message={loaded.error} onRetry={loaded.reload} />}
      {!loaded.data && !loaded.error && <Loading />}
      {loaded.data && (loaded.data.subscriptions.length
        ? <Table caption="Webhook subscriptions" columns={columns} rows={loaded.data.subscriptions}
          rowKey={(s) => s.id} />
        : <p class="muted">No subscriptions yet: add one below with the URL that should receive the events.</p>)}
      {notice && <div class="banner" role="status">{notice}</div>}
      {secret && (
        <div class="card key-created" role="status">
          <p><strong>Copy the signing secret now: it is shown here once.</strong> Receivers check
            <code> X-Agenta-Signature</code> with it (see the README's Webhooks section).</p>
          <input readOnly class="code-input" aria-label="Webhook secret" value={secret}
            onFocus={(e) => e.currentTarget.select()} />
          <p><button type="button" class="button-quiet" onClick={() => setSecret(null)}>Done</button></p>
        </div>
      )}
      <form class="settings-form" noValidate onSubmit={create} aria-label="Add a webhook">
        <div class="field">
          <label for="webhook-name">Name</label>
          <input id="webhook-name" value={name} placeholder="cache purge"
            onInput={(e) => setName(e.currentTarget.value)} />
        </div>
        <div class="field">
          <label for="webhook-url">URL</label>
          <input id="webhook-url" type="url" required value={url} placeholder="https://example.com/hooks/tessera"
            onInput={(e) => setUrl(e.currentTarget.value)} />
        </div>
        <fieldset class="ev-field webhook-events">
          <legend>Events</legend>
          {EVENTS.map(([type, label]) => (
            <label key={type} class="checkbox">
              <input type="checkbox" checked={events.includes(type)}
                onChange={(e) => setEvents(e.currentTarget.checked
                  ? [...events, type] : events.filter((t) => t !== type))} />
              {label}
            </label>
          ))}
        </fieldset>
        <div class="field">
          <label for="webhook-auth">Authentication</label>
          <select id="webhook-auth" value={mode} onChange={(e) => setMode(e.currentTarget.value as typeof mode)}>
            <option value="signature">Signature (HMAC-SHA256 of the body)</option>
            <option value="authorization">Authorization header (the secret as is)</option>
          </select>
        </div>
        {error && <div class="banner banner-error" role="alert">{error}</div>}
        <button type="submit" class="button-primary" disabled={busy || !url.trim() || events.length === 0}>
          Add webhook</button>
      </form>
      {open && <DeliveryLog subscription={open} onClose={() => setOpen(null)} />}
      {deleting && (
        <ConfirmDialog title={`Delete ${deleting.name || urlOf(deleting)}?`} confirmLabel="Delete" danger
          onClose={() => setDeleting(null)}
          onConfirm={async () => {
            await api("DELETE", `/webhooks/subscriptions/${deleting.id}`);
            if (open?.id === deleting.id) setOpen(null);
            loaded.reload();
          }}>
          <p>Nothing more is sent to it, and its delivery log goes with it.</p>
        </ConfirmDialog>
      )}
    </section>
  );
}

/** One subscription's deliveries, newest first: each with its attempts, and redeliver. */
function DeliveryLog({ subscription, onClose }: { subscription: Subscription; onClose: () => void }) {
  const loaded = useApi((signal) => api<OkAnswer<"/api/webhooks/deliveries/query", "post">>(
    "POST", "/webhooks/deliveries/query", { delivery: { subscription_id: subscription.id } }, { signal },
  ), [subscription.id]);
  const [error, setError] = useState<string | null>(null);
  const redeliver = async (d: Delivery) => {
    setError(null);
    try {
      await api("POST", `/webhooks/deliveries/${d.id}/redeliver`);
      loaded.reload();
    } catch (e) {
      setError(messageOf(e));
    }
  };
  const columns: Column<Delivery>[] = [
    { title: "Sent", cell: (d) => <Time value={d.created_at} /> },
    {
      title: "Event",
      cell: (d) => <code>{String((d.data as { event_type?: string } | undefined)?.event_type ?? "")}</code>,
    },
    {
      title: "Status",
      cell: (d) => {
        const state = deliveryState(d);
        return <span class={`badge ev-status-${state.tone}`} title={d.status.message}>{state.label}</span>;
      },
    },
    { title: "Answer", cell: (d) => outcomeOf(d) },
    { title: "Attempts", cell: (d) => d.attempts.length },
    {
      title: "Latency",
      cell: (d) => (d.attempts.length ? `${d.attempts.at(-1)!.latency_ms} ms` : ""),
      wide: true,
    },
    {
      title: "",
      cell: (d) => <button type="button" class="button-small" onClick={() => redeliver(d)}
        aria-label={`Redeliver ${d.id}`}>Redeliver</button>,
    },
  ];
  return (
    <div class="card delivery-log">
      <h3>Deliveries to {subscription.name || urlOf(subscription)}</h3>
      {error && <div class="banner banner-error" role="alert">{error}</div>}
      {loaded.error && <ErrorBanner message={loaded.error} onRetry={loaded.reload} />}
      {!loaded.data && !loaded.error && <Loading />}
      {loaded.data && (loaded.data.deliveries.length
        ? <Table caption="Webhook deliveries" columns={columns} rows={loaded.data.deliveries} rowKey={(d) => d.id} />
        : <p class="muted">Nothing sent yet: commit or deploy something, or send a test.</p>)}
      <p>
        <button type="button" class="button-quiet" onClick={loaded.reload}>Refresh</button>
        <button type="button" class="button-quiet" onClick={onClose}>Close</button>
      </p>
    </div>
  );
}
