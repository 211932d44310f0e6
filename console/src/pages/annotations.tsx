import { useApi } from "../api.ts";
import { currentUserId, listQueues, queueUsers, type Queue } from "../annotation/queue-api.ts";
import { EmptyState } from "../components/empty-state.tsx";
import { ErrorBanner } from "../components/error-banner.tsx";
import { Link } from "../components/link.tsx";
import { Loading } from "../components/loading.tsx";
import { Table } from "../components/table.tsx";
import { Time } from "../components/time.tsx";
import { hrefOf, setQuery, type ViewProps } from "../router.ts";

export const queueTitle = (queue: Queue) => queue.name || `Queue of run …${queue.run_id.slice(-8)}`;

/**
 * `/annotations?all=1`: the annotation queues a person works through: those that hand scenarios to the signed-in
 * user or to everyone (a run's default queue), or with `all` every queue of the project. Each opens its annotation
 * view.
 */
export function AnnotationsPage({ query }: ViewProps) {
  const all = query.get("all") === "1";
  const loaded = useApi(async (signal) => {
    const [queues, me] = await Promise.all([listQueues(signal), currentUserId(signal)]);
    return { queues, me };
  }, []);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading label="Loading queues…" />;
  const { queues, me } = loaded.data;
  const forMe = (q: Queue) => queueUsers(q).length === 0 || (!!me && queueUsers(q).includes(me.toLowerCase()));
  const shown = all ? queues : queues.filter(forMe);
  return (
    <>
      <h1>Annotations</h1>
      <p class="muted">
        Queues of scenarios for people to judge: open one to go through its scenarios and fill in each human
        evaluator's fields.
      </p>
      <div class="controls">
        <label class="checkbox">
          <input type="checkbox" checked={all}
            onChange={(e) => setQuery({ all: e.currentTarget.checked ? "1" : null })} />
          {" "}Every queue of the project
        </label>
      </div>
      {shown.length === 0 ? (
        <EmptyState title={all ? "No annotation queues" : "No queues for you"}>
          <p>
            A queue is made with an evaluation that has a human evaluator, or with
            {" "}<code>POST /api/simple/queues/</code>.
            {!all && queues.length > 0 && (
              <> Other queues exist: <Link href={hrefOf("/annotations", { all: "1" })}>show every queue</Link>.</>
            )}
          </p>
        </EmptyState>
      ) : (
        <Table<Queue> caption="Annotation queues" rowKey={(q) => q.id} rows={shown} columns={[
          { title: "Queue", cell: (q) => <Link href={`/annotations/${q.id}`}>{queueTitle(q)}</Link> },
          {
            title: "For",
            cell: (q) => queueUsers(q).length === 0 ? "everyone"
              : forMe(q) ? <strong>you{queueUsers(q).length > 1 ? ` and ${queueUsers(q).length - 1} more` : ""}</strong>
              : `${queueUsers(q).length} people`,
          },
          { title: "Run", cell: (q) => <Link href={`/evaluations/${q.run_id}`}>…{q.run_id.slice(-8)}</Link> },
          { title: "Created", cell: (q) => <Time value={q.created_at ?? null} />, wide: true },
        ]} />
      )}
    </>
  );
}
