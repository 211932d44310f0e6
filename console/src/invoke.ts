/**
 * Invoking an application through Tessera's own runtime (`/services/…/invoke`, at the server's root), its
 * answer read as server-sent events: `delta` `{text}` events, then `done` `{trace_id, outputs}` or `error`
 * (the failure envelope). EventSource cannot send the Authorization header, so this reads the response
 * body with fetch and a stream reader.
 */
import { apiKey, signOut } from "./session.ts";
import { detailMessage } from "./api.ts";

/** What runs: one revision, or what an environment has deployed of an application. */
export type InvokeTarget = { revisionId: string } | { applicationId: string; environment: string };

export interface InvokeResult {
  ok: boolean;
  /** The output, whole (the `done` event's), or the text streamed so far when it failed. */
  outputs: unknown;
  traceId: string | null;
  /** The failure envelope's `status.message` (or the refusal's `detail`). */
  error: string | null;
  status: number;
}

/** One parsed event of an SSE text: its name and its JSON data. */
export function parseSseEvent(block: string): { event: string; data: any } | null {
  let event = "message";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
  }
  if (data.length === 0) return null;
  try {
    return { event, data: JSON.parse(data.join("\n")) };
  } catch {
    return { event, data: data.join("\n") };
  }
}

const envelopeMessage = (body: any, status: number): string =>
  typeof body?.status?.message === "string" ? body.status.message : body?.detail !== undefined ? detailMessage(body.detail) : `The runtime answered ${status}`;

/**
 * Invokes `target` with `inputs`; `onText` receives the output as it streams in (the whole text so far). With
 * `parameters`, the target runs them instead of its stored ones (an uncommitted configuration, sent inline).
 */
export async function invokeStreaming(
  target: InvokeTarget, inputs: Record<string, unknown>, onText: (text: string) => void, signal?: AbortSignal,
  parameters?: Record<string, unknown>,
): Promise<InvokeResult> {
  const url = "revisionId" in target
    ? `/services/revisions/${encodeURIComponent(target.revisionId)}/invoke` : "/services/invoke";
  const data = parameters ? { inputs, parameters } : { inputs };
  const body = "revisionId" in target
    ? { data }
    : { data, references: { application: { id: target.applicationId }, environment: { slug: target.environment } } };
  const headers: Record<string, string> = { accept: "text/event-stream", "content-type": "application/json" };
  const key = apiKey();
  if (key) headers.authorization = `ApiKey ${key}`;
  const res = await fetch(url, { method: "POST", headers, body: JSON.stringify(body), signal });
  const headerTrace = res.headers.get("x-ag-trace-id");
  if (!res.ok || !(res.headers.get("content-type") ?? "").includes("text/event-stream")) {
    const text = await res.text();
    let parsed: any;
    try {
      parsed = JSON.parse(text);
    } catch {
      parsed = { detail: text || res.statusText };
    }
    if (res.status === 401) signOut(`Signed out: ${envelopeMessage(parsed, res.status)}`);
    if (res.ok) return { ok: true, outputs: parsed?.data?.outputs, traceId: parsed?.trace_id ?? headerTrace, error: null, status: res.status };
    return { ok: false, outputs: null, traceId: parsed?.trace_id ?? headerTrace, error: envelopeMessage(parsed, res.status), status: res.status };
  }
  const reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let text = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (value) buffer += value.replace(/\r\n/g, "\n");
    let end: number;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const parsed = parseSseEvent(buffer.slice(0, end));
      buffer = buffer.slice(end + 2);
      if (!parsed) continue;
      if (parsed.event === "delta" && typeof parsed.data?.text === "string") {
        text += parsed.data.text;
        onText(text);
      } else if (parsed.event === "done") {
        const traceId = parsed.data?.trace_id ?? headerTrace;
        return { ok: true, outputs: parsed.data?.outputs ?? text, traceId, error: null, status: res.status };
      } else if (parsed.event === "error") {
        const code = typeof parsed.data?.status?.code === "number" ? parsed.data.status.code : 500;
        return { ok: false, outputs: text || null, traceId: parsed.data?.trace_id ?? headerTrace, error: envelopeMessage(parsed.data, code), status: code };
      }
    }
    if (done) break;
  }
  return { ok: false, outputs: text || null, traceId: headerTrace, error: "The stream ended before the runtime said it was done", status: res.status };
}
