import type { ViewProps } from "../router.ts";
import { ArtifactList } from "./artifact-list.tsx";
import { ListControls } from "./registry.tsx";

/** `/environments?q=…&archived=1`: the project's environments, each linking to its page. */
export function EnvironmentsPage({ query }: ViewProps) {
  const search = query.get("q") ?? "";
  const archived = query.get("archived") === "1";
  return (
    <>
      <h1>Environments</h1>
      <ListControls kind="environments" search={search} archived={archived} />
      <ArtifactList kind="environments" search={search} archived={archived} />
    </>
  );
}
