import { createServer } from "node:net";
import { startTestServer, type TestProject, type TestServer } from "../../../../test/support/server.ts";

export interface ListeningServer {
  server: TestServer;
  baseUrl: string;
  project: TestProject;
  /** Closes the server once; later calls do nothing. */
  close(): Promise<void>;
}

/** A port that was free a moment ago: the server's public URL (its `data.url`s) must name the port it listens on. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/** The test server of test/support/server.ts, listening on a real port of 127.0.0.1, with a fresh project. */
export async function startListeningServer(): Promise<ListeningServer> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const server = await startTestServer({ TESSERA_PUBLIC_URL: baseUrl });
  await server.app.listen({ port, host: "127.0.0.1" });
  const project = await server.project();
  let closing: Promise<void> | undefined;
  return { server, baseUrl, project, close: () => (closing ??= server.close()) };
}

/** A fetch that records every request (method, path, If-None-Match) and the status it got. */
export function recordingFetch() {
  const requests: { method: string; path: string; ifNoneMatch: string | null; status: number | "unreachable" }[] = [];
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input));
    const headers = new Headers(init?.headers);
    const record = { method: init?.method ?? "GET", path: url.pathname, ifNoneMatch: headers.get("if-none-match"), status: "unreachable" as number | "unreachable" };
    requests.push(record);
    const res = await globalThis.fetch(input, init);
    record.status = res.status;
    return res;
  };
  return { fetch, requests };
}

export const completion = (question: string) => ({
  uri: "svc:builtin:completion:v0",
  parameters: {
    prompt: {
      messages: [{ role: "system", content: "Answer briefly." }, { role: "user", content: question }],
      template_format: "curly",
      llm_config: { model: "gpt-4o-mini" },
    },
  },
});

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
