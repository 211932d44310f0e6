import { useState } from "preact/hooks";
import { useApi } from "../api.ts";
import { queryRuns, type Run } from "../evaluations.ts";
import { hrefOf, navigate } from "../router.ts";

/** "Compare with…": another recent run of the project, opened side by side with this one. */
export function CompareWith(props: { run: Run }) {
  const others = useApi(async (signal) => (await queryRuns({ limit: 50 }, signal)).items.filter((r) => r.id !== props.run.id), [props.run.id]);
  const [other, setOther] = useState("");
  if (!others.data || others.data.length === 0) return null;
  const chosen = other || others.data[0].id;
  return (
    <form class="ev-compare-with" onSubmit={(e) => { e.preventDefault(); navigate(hrefOf("/evaluations/compare", { runs: `${chosen},${props.run.id}` })); }}>
      <label class="ev-field ev-inline">
        Compare with
        <select value={chosen} onChange={(e) => setOther(e.currentTarget.value)}>
          {others.data.map((r) => <option value={r.id}>{r.name || `Run …${r.id.slice(-8)}`} ({r.status})</option>)}
        </select>
      </label>
      <button type="submit">Compare</button>
    </form>
  );
}
