import type { PagedList } from "../paged-list.ts";
import { ErrorBanner } from "./error-banner.tsx";

/** Under a paged list: the error of its last read, how many rows it shows, and "Load more" while there are more. */
export function ListFooter(props: { list: PagedList<unknown> }) {
  const { items, next, loading, error, more } = props.list;
  return (
    <>
      <ErrorBanner message={error} onRetry={more} />
      <div class="list-footer">
        <span class="muted">{items.length} shown</span>
        {next && <button type="button" onClick={more} disabled={loading}>{loading ? "Loading…" : "Load more"}</button>}
      </div>
    </>
  );
}
