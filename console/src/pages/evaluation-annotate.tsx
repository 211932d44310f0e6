import { api, useApi } from "../api.ts";
import type { Queue } from "../annotation/queue-api.ts";
import { Link } from "../components/link.tsx";
import type { Run } from "../evaluations.ts";

/** A run with human evaluator steps: a link to annotate it, through its default queue (or the list of queues). */
export function AnnotateRun(props: { run: Run }) {
  const human = (props.run.data?.steps ?? []).some((s) => s.type === "annotation" && s.origin === "human");
  const queue = useApi(async (signal) => {
    if (!human) return null;
    const path = `/evaluations/runs/${props.run.id}/queues/default`;
    const answer = await api<{ queue?: Queue | null }>("GET", path, undefined, { signal });
    return answer.queue ?? null;
  }, [props.run.id, human]);
  // Shown once its queue is known: a click before that would open the list of queues instead of the run's.
  if (!human || (queue.loading && queue.data === undefined)) return null;
  const href = queue.data ? `/annotations/${queue.data.id}` : "/annotations?all=1";
  return <Link class="button-link" href={href}>Annotate</Link>;
}
