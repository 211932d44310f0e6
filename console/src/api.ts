/**
 * The one place that talks to the server. `api(method, path, body)` calls `/api…` with the session's key
 * and answers the parsed JSON; an error answer becomes a TesseraError (from @tessera/client) whose message
 * is the server's `detail`, readable (`messageOf`). A 401 signs the tab out. `useApi` runs a call for a view.
 */
import { TesseraError, TesseraNetworkError } from "@tessera/client";
import { useCallback, useLayoutEffect, useState } from "preact/hooks";
import { apiKey, signOut } from "./session.ts";

export { TesseraError };

/** Artifact kinds as the API names them in paths (`/api/applications/…`). */
export type ArtifactKind = "applications" | "workflows" | "evaluators" | "testsets" | "environments";
/** The singular the API uses in bodies (`application_refs`, `testset_variant`). */
export const singular = (kind: ArtifactKind): string => kind.slice(0, -1);

/** `{detail}` as a sentence: a string, a list of `{loc, msg}` issues, or an object naming what failed. */
export function detailMessage(detail: unknown): string {
  if (typeof detail === "string") return detail;
  if (Array.isArray(detail)) {
    return detail.map((issue) => {
      if (issue && typeof issue === "object" && "msg" in issue) {
        const loc = Array.isArray(issue.loc) ? issue.loc.filter((part: unknown) => part !== "body").join(".") : "";
        return loc ? `${loc}: ${issue.msg}` : String(issue.msg);
      }
      return typeof issue === "string" ? issue : JSON.stringify(issue);
    }).join("; ");
  }
  if (detail && typeof detail === "object") {
    const o = detail as Record<string, unknown>;
    if (typeof o.message === "string") return o.message;
    return JSON.stringify(detail);
  }
  return String(detail);
}

/** What to show for any error a call can throw. */
export function messageOf(error: unknown): string {
  if (error instanceof TesseraError) return detailMessage(error.detail) || `The server answered ${error.status}`;
  if (error instanceof TesseraNetworkError) return "The server cannot be reached. Is it running?";
  if (error instanceof Error) return error.message;
  return String(error);
}

export interface CallOptions {
  /** Use this key rather than the session's (the sign-in page checks one before keeping it). */
  key?: string;
  signal?: AbortSignal;
  /** Query-string parameters (undefined ones left out). */
  query?: Record<string, string | undefined>;
  /** Headers added to the request (`If-Match` …). */
  headers?: Record<string, string>;
}

/** Calls `/api${path}` and answers the JSON body (undefined when empty). Throws TesseraError or TesseraNetworkError. */
export async function api<T = any>(method: string, path: string, body?: unknown, options: CallOptions = {}): Promise<T> {
  const key = options.key ?? apiKey();
  const headers: Record<string, string> = { accept: "application/json", ...options.headers };
  if (key) headers.authorization = `ApiKey ${key}`;
  if (body !== undefined) headers["content-type"] = "application/json";
  const q = Object.entries(options.query ?? {}).filter((e): e is [string, string] => e[1] !== undefined);
  const url = `/api${path}${q.length ? `?${new URLSearchParams(q)}` : ""}`;
  let res: Response;
  try {
    res = await fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal: options.signal });
  } catch (error) {
    if (options.signal?.aborted) throw error;
    throw new TesseraNetworkError(method, url, error);
  }
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = text ? JSON.parse(text) : undefined;
  } catch {
    parsed = text;
  }
  if (!res.ok) {
    const detail = parsed && typeof parsed === "object" && "detail" in parsed ? (parsed as { detail: unknown }).detail : parsed || res.statusText;
    if (res.status === 401 && !options.key) signOut(`Signed out: ${detailMessage(detail)}`);
    throw new TesseraError(res.status, detail, method, path);
  }
  return parsed as T;
}

export interface Loaded<T> {
  data: T | undefined;
  error: string | null;
  loading: boolean;
  /** Runs the call again. */
  reload: () => void;
}

/**
 * Runs `load` when the component mounts and whenever one of `deps` changes (an older answer that arrives
 * late is dropped; a pending call is aborted). `load` receives an AbortSignal to pass to `api`. The call starts
 * in a layout effect, right after the render, rather than after the next frame is painted.
 */
export function useApi<T>(load: (signal: AbortSignal) => Promise<T>, deps: unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data: T | undefined; error: string | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const [round, setRound] = useState(0);
  useLayoutEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true, error: null }));
    load(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false }),
      (error) => !controller.signal.aborted && setState({ data: undefined, error: messageOf(error), loading: false }),
    );
    return () => controller.abort();
  }, [...deps, round]);
  const reload = useCallback(() => setRound((r) => r + 1), []);
  return { ...state, reload };
}
