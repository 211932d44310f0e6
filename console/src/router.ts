/**
 * A small router on the History API. Routes are path patterns (`/applications/:id`) mapped to views;
 * `navigate` pushes a URL, the browser's back and forward buttons pop one, and every `useLocation` caller
 * re-renders. Links are plain `<a href>` (see components/link.tsx) so that opening in a new tab works.
 */
import type { VNode } from "preact";
import { useEffect, useState } from "preact/hooks";

export interface Location {
  /** The path, without query or fragment: `/applications/0190…`. */
  path: string;
  /** The query string, parsed. */
  query: URLSearchParams;
}

export type Params = Record<string, string>;

const listeners = new Set<() => void>();
const notify = () => listeners.forEach((listener) => listener());
window.addEventListener("popstate", notify);

export function currentLocation(): Location {
  return { path: window.location.pathname, query: new URLSearchParams(window.location.search) };
}

/** Goes to `to` (a path with an optional query): a new history entry, or the current one replaced. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === window.location.pathname + window.location.search) return;
  if (options.replace) window.history.replaceState(null, "", to);
  else window.history.pushState(null, "", to);
  notify();
  if (!options.replace) window.scrollTo(0, 0);
}

/**
 * Changes some query parameters of the current URL (null or "" removes one). Replaces the history entry
 * by default: typing in a search box should not leave one entry per key.
 */
export function setQuery(changes: Record<string, string | null | undefined>, options: { replace?: boolean } = { replace: true }): void {
  const query = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === "") query.delete(name);
    else query.set(name, value);
  }
  const search = query.toString();
  navigate(window.location.pathname + (search ? `?${search}` : ""), options);
}

/** The current location; the component re-renders when it changes. */
export function useLocation(): Location {
  const [location, setLocation] = useState(currentLocation);
  useEffect(() => {
    const update = () => setLocation(currentLocation());
    listeners.add(update);
    update(); // a change between the first render and this effect
    return () => void listeners.delete(update);
  }, []);
  return location;
}

/** `pattern` (`/testsets/:id`) against `path`: the named segments, decoded, or null when it does not match. */
export function matchPath(pattern: string, path: string): Params | null {
  const want = pattern.split("/").filter(Boolean);
  const have = path.split("/").filter(Boolean);
  if (want.length !== have.length) return null;
  const params: Params = {};
  for (let i = 0; i < want.length; i++) {
    if (want[i].startsWith(":")) {
      try {
        params[want[i].slice(1)] = decodeURIComponent(have[i]);
      } catch {
        return null;
      }
    } else if (want[i] !== have[i]) return null;
  }
  return params;
}

/** What a view receives: the path's named segments and the query string. */
export interface ViewProps {
  params: Params;
  query: URLSearchParams;
}

export interface Route {
  /** `/registry`, `/applications/:id` … */
  pattern: string;
  view: (props: ViewProps) => VNode | null;
  /** The header tab that is current on this route (`registry`, `environments` …). */
  section?: string;
}

/** The first route whose pattern matches the path. */
export function findRoute(routes: Route[], path: string): { route: Route; params: Params } | null {
  for (const route of routes) {
    const params = matchPath(route.pattern, path);
    if (params) return { route, params };
  }
  return null;
}

/** `href` with its query built from `query` (empty values left out). */
export function hrefOf(path: string, query: Record<string, string | number | boolean | null | undefined> = {}): string {
  const q = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value === null || value === undefined || value === "" || value === false) continue;
    q.set(name, value === true ? "1" : String(value));
  }
  const search = q.toString();
  return search ? `${path}?${search}` : path;
}
