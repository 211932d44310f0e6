/**
 * A revision's rows, fetched a page at a time through `POST /testcases/query` with `windowing.offset`
 * (so a jump to row 900,000 reads one page, not the 899,999 rows before it) and kept in a small
 * least-recently-used cache of pages. `want(first, last)` asks for the pages covering rows
 * [first, last]; fetches of pages no longer wanted are aborted, so dragging the scrollbar across a
 * million rows leaves only the last view's pages in flight.
 */
import { api, messageOf } from "../api.ts";

export const PAGE_ROWS = 100;
const MAX_PAGES = 60;

export interface Testcase {
  id: string;
  data: Record<string, unknown>;
  flags?: unknown;
  tags?: unknown;
  meta?: unknown;
}

interface QueryAnswer {
  count: number;
  testcases: Testcase[];
  testcase_count?: number;
}

export class RowPages {
  private pages = new Map<number, Testcase[]>();
  private pending = new Map<number, AbortController>();
  /** The revision's row count, once the first page answered. */
  total: number | null = null;
  error: string | null = null;

  constructor(private revisionId: string, private changed: () => void) {}

  /** Row `index` when its page is loaded (and marks the page recently used). */
  row(index: number): Testcase | undefined {
    const n = Math.floor(index / PAGE_ROWS);
    const page = this.pages.get(n);
    if (!page) return undefined;
    this.pages.delete(n);
    this.pages.set(n, page);
    return page[index - n * PAGE_ROWS];
  }

  /** The pages loaded now, in row order (for the column names). */
  loaded(): Testcase[][] {
    return [...this.pages.entries()].sort((a, b) => a[0] - b[0]).map((e) => e[1]);
  }

  /** Fetches the missing pages covering rows [first, last]; aborts the fetches of other pages unless `abortOthers` is false. */
  want(first: number, last: number, abortOthers = true): void {
    const from = Math.floor(Math.max(first, 0) / PAGE_ROWS);
    const to = Math.floor(Math.max(last, 0) / PAGE_ROWS);
    for (const [n, controller] of this.pending) {
      if (abortOthers && (n < from || n > to)) {
        controller.abort();
        this.pending.delete(n);
      }
    }
    for (let n = from; n <= to; n++) {
      if (this.total !== null && n * PAGE_ROWS >= this.total && n > 0) break;
      if (!this.pages.has(n) && !this.pending.has(n)) void this.fetch(n);
    }
  }

  private async fetch(n: number): Promise<void> {
    const controller = new AbortController();
    this.pending.set(n, controller);
    try {
      const answer = await api<QueryAnswer>("POST", "/testcases/query", {
        testset_revision_ref: { id: this.revisionId },
        windowing: { offset: n * PAGE_ROWS, limit: PAGE_ROWS },
      }, { signal: controller.signal });
      if (controller.signal.aborted) return;
      this.pages.set(n, answer.testcases);
      this.total = answer.testcase_count ?? this.total;
      this.error = null;
      while (this.pages.size > MAX_PAGES) this.pages.delete(this.pages.keys().next().value!);
    } catch (error) {
      if (controller.signal.aborted) return;
      this.error = messageOf(error);
    } finally {
      if (this.pending.get(n) === controller) this.pending.delete(n);
    }
    this.changed();
  }

  /** Stops every fetch (the view is gone or shows another revision). */
  close(): void {
    for (const controller of this.pending.values()) controller.abort();
    this.pending.clear();
  }
}
