/** A list read a page at a time, the state every "Load more" list of the console shares. */
import { useLayoutEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";

export interface Page<T> {
  items: T[];
  /** Where the following page starts; null on the last. */
  next: string | null;
}

/**
 * Reads the first page whenever `deps` change (answers for earlier deps are dropped), the following one on
 * `more()`; `reload()` starts again from the first. `error` is the server's message for the last read.
 * The first read starts right after the render (a layout effect), not after the next paint. With
 * `keepWhileReloading` (a live list polled by changing a dep), the rows shown stay until the new first page
 * replaces them.
 */
export function usePagedList<T>(
  fetchPage: (from: string | null, signal?: AbortSignal) => Promise<Page<T>>,
  deps: unknown[],
  options: { keepWhileReloading?: boolean } = {},
) {
  const [items, setItems] = useState<T[]>([]);
  const [next, setNext] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<string | null>(null);
  const [round, setRound] = useState(0);

  const load = async (from: string | null, signal?: AbortSignal) => {
    setLoading(true);
    setError(null);
    try {
      const page = await fetchPage(from, signal);
      if (signal?.aborted) return;
      setItems((before) => (from ? [...before, ...page.items] : page.items));
      setNext(page.next);
    } catch (e) {
      if (!signal?.aborted) setError(messageOf(e));
    } finally {
      if (!signal?.aborted) setLoading(false);
    }
  };
  useLayoutEffect(() => {
    const controller = new AbortController();
    if (!options.keepWhileReloading) {
      setItems([]);
      setNext(null);
    }
    void load(null, controller.signal);
    return () => controller.abort();
  }, [...deps, round]);

  return { items, next, loading, error, more: () => void load(next), reload: () => setRound((r) => r + 1) };
}

export type PagedList<T> = ReturnType<typeof usePagedList<T>>;
