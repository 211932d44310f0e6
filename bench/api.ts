import { randomUUID } from "node:crypto";

export const ADMIN_KEY = "tessera-bench-admin";

/** A Tessera server seen by the bench: its origin and a project key. */
export interface Api {
  url: string;
  key: string;
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>): Promise<T>;
}

export async function provision(url: string): Promise<Api> {
  const res = await fetch(`${url}/api/admin/simple/accounts/`, {
    method: "POST",
    headers: { authorization: `Access ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ accounts: { a: { user: { email: `bench-${randomUUID()}@bench.local` }, options: { create_api_keys: true, return_api_keys: true } } } }),
  });
  if (res.status !== 200) throw new Error(`provisioning → ${res.status}: ${await res.text()}`);
  const key: string = (await res.json()).accounts.a.api_keys.key;
  return {
    url,
    key,
    async post(path, body, headers = {}) {
      const r = await fetch(`${url}/api${path}`, {
        method: "POST",
        headers: { authorization: `ApiKey ${key}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).catch((error: Error) => {
        throw new Error(`POST ${path}: ${error.message}`, { cause: error.cause }); // which call a reset or refusal hit
      });
      const text = await r.text();
      if (r.status !== 200) throw new Error(`POST ${path} → ${r.status}: ${text.slice(0, 500)}`);
      return (text ? JSON.parse(text) : undefined) as any;
    },
  };
}

/** An application config of a realistic size: a chat prompt with model settings. */
export const promptConfig = (n: number) => ({
  parameters: {
    prompt: {
      messages: [
        { role: "system", content: "You are a support assistant for an online bookshop. Answer briefly and cite the order number." },
        { role: "user", content: `Customer question (${n}): {{question}}` },
      ],
      template_format: "curly",
      llm_config: { model: "gpt-4o-mini", temperature: 0.2, max_tokens: 256, top_p: 1 },
    },
  },
});
