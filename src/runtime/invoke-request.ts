import type { RunSandbox } from "./code/sandbox.ts";
import type { Environment, ProviderSecret } from "./providers/resolve.ts";
import type { TemplateLimits } from "./templates/render-budget.ts";

/** Everything one invocation needs; the caller has already resolved the revision and the secrets. */
export interface InvokeRequest {
  uri: string;
  /** Hook: the user's endpoint (`POST {url}/invoke`) and the headers to send with it. */
  url?: string | null;
  headers?: Record<string, unknown> | null;
  /** Code: the script and its language (javascript only). */
  script?: string | null;
  runtime?: string | null;
  parameters?: Record<string, unknown> | null;
  inputs?: Record<string, unknown> | null;
  /** Evaluators: what the application produced, its trace, the testcase. */
  outputs?: unknown;
  trace?: unknown;
  testcase?: unknown;
  secrets?: ProviderSecret[];
  /** Where `{PROVIDER}_API_KEY` and `OPENAI_BASE_URL` are read; defaults to `process.env`. */
  env?: Environment;
  /** From `TESSERA_ALLOW_PRIVATE_HOOKS=true`: lets hooks and custom provider URLs reach private addresses over http. */
  allowPrivateHooks?: boolean;
  timeouts?: { providerMs?: number; hookMs?: number; codeMs?: number };
  /** `templates`: one prompt's rendering budget (TESSERA_TEMPLATE_MAX_BYTES, TESSERA_TEMPLATE_MAX_STEPS); `mockDelayMs`: TESSERA_MOCK_MAX_DELAY_MS. */
  limits?: { codeMemoryBytes?: number; hookResponseBytes?: number; templates?: TemplateLimits; mockDelayMs?: number };
  /** Where custom code and user regexes run: the server's sandbox pool for the caller's project; this thread when absent. */
  sandbox?: RunSandbox;
  /** Fix the trace and root span ids up front (e.g. to send headers before a stream starts). */
  traceIds?: { traceId?: string; spanId?: string };
}
