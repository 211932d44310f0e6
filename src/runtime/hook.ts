import { invalidParameters, upstreamFailed, upstreamFlaky, upstreamTimeout, WorkflowError } from "./errors.ts";
import { readLimited, sendRequest } from "./net/guarded-request.ts";

export const HOOK_TIMEOUT_MS = 30_000;
export const HOOK_MAX_RESPONSE_BYTES = 1024 * 1024;

export interface HookCall {
  url: string;
  headers?: Record<string, string>;
  body: Record<string, unknown>;
  allowPrivate: boolean;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface HookResult {
  outputs: unknown;
  status: number;
}

/** `POST {url}/invoke` with `{inputs, parameters, …}`; the 2xx JSON body is the outputs. */
export async function callHook(call: HookCall): Promise<HookResult> {
  const timeoutMs = call.timeoutMs ?? HOOK_TIMEOUT_MS;
  const maxBytes = call.maxResponseBytes ?? HOOK_MAX_RESPONSE_BYTES;
  let url: URL;
  try {
    url = new URL(`${call.url.replace(/\/+$/, "")}/invoke`);
  } catch {
    throw invalidParameters(`Hook URL ${JSON.stringify(call.url)} is not a valid URL`);
  }
  const body = JSON.stringify(call.body);
  const signal = AbortSignal.timeout(timeoutMs);
  const timedOut = () => upstreamTimeout(`Hook ${url.origin} did not answer within ${timeoutMs} ms`);
  try {
    const res = await sendRequest(url, {
      method: "POST",
      headers: {
        ...call.headers,
        "content-type": "application/json",
        accept: "application/json",
        "content-length": Buffer.byteLength(body),
      },
      body,
      signal,
      allowPrivate: call.allowPrivate,
    });
    const status = res.statusCode ?? 0;
    const payload = await readLimited(res, maxBytes);
    if (signal.aborted) throw timedOut();
    if (payload === null) throw upstreamFailed(`Hook response exceeds ${maxBytes} bytes`);
    if (status < 200 || status > 299) {
      const excerpt = payload.toString("utf8", 0, 200).trim();
      throw (status >= 500 ? upstreamFlaky : upstreamFailed)(`Hook answered HTTP ${status}${excerpt ? `: ${excerpt}` : ""}`);
    }
    const text = payload.toString("utf8");
    try {
      return { outputs: text.trim() === "" ? null : JSON.parse(text), status };
    } catch {
      throw upstreamFailed(`Hook answered HTTP ${status} with a body that is not JSON`);
    }
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    if (signal.aborted) throw timedOut();
    throw upstreamFlaky(`Hook ${url.origin} is unreachable: ${(error as Error).message}`);
  }
}
