/**
 * A route's view whose module is fetched the first time it is shown (a chunk of its own in the build: see
 * scripts/build-console.ts), so that pages most visits never open stay out of the first download.
 */
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";
import { messageOf } from "./api.ts";
import { ErrorBanner } from "./components/error-banner.tsx";
import { Loading } from "./components/loading.tsx";
import type { ViewProps } from "./router.ts";

type View = (props: ViewProps) => VNode | null;

/** A view that loads `load()` once, shows "Loading…" meanwhile, and renders what it resolves to. */
export function lazyView(load: () => Promise<View>): View {
  let loaded: View | undefined;
  let pending: Promise<View> | undefined;
  return function LazyView(props: ViewProps) {
    const [view, setView] = useState<View | undefined>(() => loaded);
    const [error, setError] = useState<string | null>(null);
    const [round, setRound] = useState(0);
    useEffect(() => {
      if (view) return;
      let current = true;
      pending ??= load();
      pending.then(
        (v) => {
          loaded = v;
          if (current) setView(() => v);
        },
        (e) => {
          pending = undefined;
          if (current) setError(`This page could not be loaded: ${messageOf(e)}`);
        },
      );
      return () => void (current = false);
    }, [round]);
    if (error) return <ErrorBanner message={error} onRetry={() => (setError(null), setRound((r) => r + 1))} />;
    if (!view) return <Loading />;
    const Loaded = view;
    return <Loaded {...props} />;
  };
}
