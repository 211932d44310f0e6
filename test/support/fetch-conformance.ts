import { OpenApiConformance, type Answer } from "./openapi-conformance.ts";

/*
 * The drift check for servers that run as child processes: every `fetch` this test process makes to such
 * a server has its answer checked against that server's own OpenAPI document, as `app.inject` is for
 * in-process servers (openapi-conformance.ts). The status is checked when the answer arrives; the body is
 * checked as the test reads it, so a streamed body still streams, and reading it fails on a drift.
 */

const servers = new Map<string, OpenApiConformance>();
// Bodies larger than this are passed through unchecked: the check must not hold a large download in memory twice.
const MAX_CHECKED_BYTES = 8 * 1024 * 1024;
let original: typeof fetch | undefined;

/** Checks answers from the server at `url` from now on (its document is read now); returns the function that stops it. */
export async function checkFetchesAgainstOpenApi(url: string): Promise<() => void> {
  install();
  const origin = new URL(url).origin;
  const res = await original!(`${origin}/api/openapi.json`);
  if (!res.ok) throw new Error(`${origin}/api/openapi.json answered ${res.status}: ${await res.text()}`);
  servers.set(origin, new OpenApiConformance(await res.json()));
  return () => servers.delete(origin);
}

function install(): void {
  if (original) return;
  original = globalThis.fetch;
  const unchecked = original;
  globalThis.fetch = async (input: string | URL | Request, init?: RequestInit) => {
    const res = await unchecked(input, init);
    const target = new URL(input instanceof Request ? input.url : String(input));
    const conformance = servers.get(target.origin);
    if (!conformance || target.pathname === "/api/openapi.json") return res;
    const method = init?.method ?? (input instanceof Request ? input.method : "GET");
    const headers: Answer["headers"] = {};
    // fetch has already decoded a compressed body.
    res.headers.forEach((value, name) => {
      if (name !== "content-encoding") headers[name] = value;
    });
    const answer = (body: string): Answer => ({ statusCode: res.status, body, headers });
    const drift = (problem: string | null) => (problem ? new Error(`OpenAPI drift: ${problem}`) : null);
    const statusProblem = drift(conformance.problem(method, target.pathname, answer("")));
    if (statusProblem) throw statusProblem;
    if (!res.body || method === "HEAD") return res;
    return new Response(res.body.pipeThrough(bodyCheck((body) => drift(conformance.problem(method, target.pathname, answer(body))))), {
      status: res.status, statusText: res.statusText, headers: res.headers,
    });
  };
}

/** Passes the body through as it comes, keeps a copy, and errors the stream at its end when `check` finds a problem. */
function bodyCheck(check: (body: string) => Error | null): TransformStream<Uint8Array, Uint8Array> {
  const decoder = new TextDecoder();
  let text = "";
  let bytes = 0;
  return new TransformStream({
    transform(chunk, controller) {
      bytes += chunk.byteLength;
      if (bytes <= MAX_CHECKED_BYTES) text += decoder.decode(chunk, { stream: true });
      controller.enqueue(chunk);
    },
    flush() {
      if (bytes > MAX_CHECKED_BYTES) return;
      const problem = check(text + decoder.decode());
      if (problem) throw problem;
    },
  });
}
