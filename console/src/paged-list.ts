/** A list read a page at a time, the state every "Load more" list of the console shares. */
import { useLayoutEffect, useRef, useState } from "preact/hooks";
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
 * `keepWhileReloading` (a live list polled by changing a dep), the rows shown stay until the new pages
 * replace them, and as many pages are read again as were shown: "Load more" is not undone by a refresh.
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
  const shown = useRef(0);
  shown.current = items.length;

  /** The page from `from` (the first when null), or from the first until `atLeast` items are read. */
  const load = async (from: string | null, signal?: AbortSignal, atLeast = 0) => {
    setLoading(true);
    setError(null);
    try {
      let { items: read, next: after } = await fetchPage(from, signal);
      while (after && read.length < atLeast && !signal?.aborted) {
        const page = await fetchPage(after, signal);
        read = [...read, ...page.items];
        after = page.next;
      }
      if (signal?.aborted) return;
      setItems((before) => (from ? [...before, ...read] : read));
      setNext(after);
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
    void load(null, controller.signal, options.keepWhileReloading ? shown.current : 0);
    return () => controller.abort();
  }, [...deps, round]);

  return { items, next, loading, error, more: () => void load(next), reload: () => setRound((r) => r + 1) };
}

export type PagedList<T> = ReturnType<typeof usePagedList<T>>;
