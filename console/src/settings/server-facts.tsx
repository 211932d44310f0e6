import { api, useApi } from "../api.ts";
import type { OkAnswer } from "../api-types.ts";
import { ErrorBanner } from "../components/error-banner.tsx";
import { IdChip } from "../components/id-chip.tsx";
import { Loading } from "../components/loading.tsx";

type Info = OkAnswer<"/api/server/info", "get">;
type Project = OkAnswer<"/api/projects/current", "get">;

/** A limit as a person reads it: 10 MiB, 10,000 rows. */
function amount(value: number, unit: Info["limits"][number]["unit"]): string {
  if (unit !== "bytes") return `${value.toLocaleString("en")} ${unit}`;
  const units = ["bytes", "KiB", "MiB", "GiB"];
  let n = value;
  let i = 0;
  while (n >= 1024 && i < units.length - 1 && n % 1024 === 0) {
    n /= 1024;
    i++;
  }
  return `${n.toLocaleString("en")} ${units[i]}`;
}

/** The project (name, id), the server's version, and the limits in force (`GET /api/server/info`). */
export function ServerFacts() {
  const loaded = useApi(async (signal) => {
    const [info, project] = await Promise.all([
      api<Info>("GET", "/server/info", undefined, { signal }),
      api<Project>("GET", "/projects/current", undefined, { signal }),
    ]);
    return { info, project };
  }, []);
  if (loaded.error) return <ErrorBanner message={loaded.error} onRetry={loaded.reload} />;
  if (!loaded.data) return <Loading />;
  const { info, project } = loaded.data;
  return (
    <section aria-labelledby="server-title" class="settings-section">
      <h2 id="server-title">Project and server</h2>
      <dl class="facts">
        <dt>Project</dt>
        <dd>{project.project_name ?? "—"} <IdChip id={project.project_id} label="project id" /></dd>
        <dt>Server version</dt>
        <dd data-testid="server-version">{info.version}</dd>
      </dl>
      <table class="settings-limits">
        <caption>Limits (set by the server's environment)</caption>
        <thead><tr><th scope="col">What</th><th scope="col">Limit</th><th scope="col"
          class="wide">Variable</th></tr></thead>
        <tbody>
          {info.limits.map((l) => (
            <tr><td>{l.name}</td><td>{amount(l.value, l.unit)}</td><td class="wide"><code>{l.variable}</code></td></tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}
