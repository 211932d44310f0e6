import { invalidParameters, upstreamFailed, upstreamTimeout, WorkflowError } from "../../errors.ts";
import { HOOK_MAX_RESPONSE_BYTES, HOOK_TIMEOUT_MS } from "../../hook.ts";
import { readLimited, sendRequest } from "../../net/guarded-request.ts";
import { type Evaluator, findGroundTruth, outputText } from "../context.ts";
import { correctAnswerKey, requiredString, threshold } from "../parameters.ts";
import { readScore } from "../score.ts";

/**
 * `auto_webhook_test`: `POST webhook_url` with `{inputs, output, correct_answer}` through the same
 * SSRF guard, timeout and size cap as custom hooks; the answer is a score (a number, or JSON with
 * `score`) that passes at the threshold.
 */
export const webhookTest: Evaluator = async (context) => {
  const { parameters, request } = context;
  const raw = requiredString(parameters, "webhook_url").trim();
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw invalidParameters(`parameters.webhook_url ${JSON.stringify(raw)} is not a valid URL`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw invalidParameters("parameters.webhook_url must be an http(s) URL");
  if (url.username || url.password) throw invalidParameters("parameters.webhook_url must not include credentials");
  const pass = threshold(parameters);
  const truth = findGroundTruth(context, correctAnswerKey(parameters));
  const body = JSON.stringify({ inputs: context.inputs, output: outputText(context), ...(truth.found && { correct_answer: truth.value }) });

  const span = context.openSpan("webhook.evaluate", "hook");
  span.set({ url: `${url.origin}${url.pathname}` });
  const answer = await post(url, body, {
    allowPrivate: request.allowPrivateHooks === true,
    timeoutMs: request.timeouts?.hookMs ?? HOOK_TIMEOUT_MS,
    maxBytes: request.limits?.hookResponseBytes ?? HOOK_MAX_RESPONSE_BYTES,
  });
  span.set({ status: answer.status, outputs: answer.body });
  span.end();
  return { outputs: readScore(answer.body, pass, `Webhook ${url.origin}`) };
};

interface PostOptions {
  allowPrivate: boolean;
  timeoutMs: number;
  maxBytes: number;
}

async function post(url: URL, body: string, options: PostOptions): Promise<{ status: number; body: unknown }> {
  const signal = AbortSignal.timeout(options.timeoutMs);
  const timedOut = () => upstreamTimeout(`Webhook ${url.origin} did not answer within ${options.timeoutMs} ms`);
  try {
    const res = await sendRequest(url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "content-length": Buffer.byteLength(body) },
      body,
      signal,
      allowPrivate: options.allowPrivate,
    });
    const status = res.statusCode ?? 0;
    const payload = await readLimited(res, options.maxBytes);
    if (signal.aborted) throw timedOut();
    if (payload === null) throw upstreamFailed(`Webhook response exceeds ${options.maxBytes} bytes`);
    if (status < 200 || status > 299) {
      const excerpt = payload.toString("utf8", 0, 200).trim();
      throw upstreamFailed(`Webhook answered HTTP ${status}${excerpt ? `: ${excerpt}` : ""}`);
    }
    const text = payload.toString("utf8");
    try {
      return { status, body: JSON.parse(text) };
    } catch {
      return { status, body: text };
    }
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    if (signal.aborted) throw timedOut();
    throw upstreamFailed(`Webhook ${url.origin} is unreachable: ${(error as Error).message}`);
  }
}
