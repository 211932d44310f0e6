/**
 * The API key of this browser tab: kept in sessionStorage (gone when the tab closes), never in a cookie
 * or localStorage. A one-time sign-in link (`/#key=tsk_…`, printed on the first run) is read here: the
 * fragment never reaches the server, and it is removed from the address bar at once.
 */
import { useEffect, useState } from "preact/hooks";

const STORAGE = "tessera.apiKey";
const listeners = new Set<() => void>();

export function apiKey(): string | null {
  return sessionStorage.getItem(STORAGE);
}

export function signIn(key: string): void {
  sessionStorage.setItem(STORAGE, key.trim());
  listeners.forEach((listener) => listener());
}

let reason: string | null = null;

/** Forgets the key; `why` (the server's refusal) is shown once by the sign-in page. */
export function signOut(why: string | null = null): void {
  reason = why;
  sessionStorage.removeItem(STORAGE);
  listeners.forEach((listener) => listener());
}

/** Why the tab was signed out (a refused key), once: null after the first read. */
export function takeSignOutReason(): string | null {
  const why = reason;
  reason = null;
  return why;
}

/** Takes a key from `#key=…` into the session and removes the fragment from the URL (no history entry). */
export function takeKeyFromFragment(): boolean {
  const match = /^#key=([^&]+)/.exec(window.location.hash);
  if (!match) return false;
  window.history.replaceState(null, "", window.location.pathname + window.location.search);
  try {
    signIn(decodeURIComponent(match[1]));
  } catch {
    return false; // a malformed escape: the sign-in page is shown
  }
  return true;
}

/** The current key (null when signed out); re-renders on sign-in and sign-out. */
export function useApiKey(): string | null {
  const [key, setKey] = useState(apiKey);
  useEffect(() => {
    const update = () => setKey(apiKey());
    listeners.add(update);
    return () => void listeners.delete(update);
  }, []);
  return key;
}
