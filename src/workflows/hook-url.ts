import { isIP } from "node:net";
import { unprocessable } from "../errors.ts";
import { WorkflowError } from "../runtime/errors.ts";
import { checkUrl } from "../runtime/net/guarded-request.ts";

/**
 * Refuses at commit (422) a hook URL that every invoke would refuse: not a URL, a scheme other than
 * https (http too when private hooks are allowed), or unless allowed `localhost` or a non-public
 * literal IP. Host names are only resolved, and checked, when the hook is called.
 */
export function checkHookUrl(url: unknown, allowPrivate: boolean, loc: string[]): void {
  const refuse = (msg: string) => unprocessable([{ loc, msg, type: "value_error" }]);
  // A hook may be committed before its address is known; invoking it then says so.
  if (url === undefined || url === null || url === "") return;
  if (typeof url !== "string") throw refuse("The hook URL must be a string");
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw refuse(`Hook URL ${JSON.stringify(url)} is not a valid URL`);
  }
  try {
    checkUrl(parsed, allowPrivate);
  } catch (error) {
    if (error instanceof WorkflowError) throw refuse(`${error.message} (TESSERA_ALLOW_PRIVATE_HOOKS)`);
    throw error;
  }
  const host = parsed.hostname.toLowerCase().replace(/\.$/, "");
  if (!allowPrivate && !isIP(host.replace(/^\[|\]$/g, "")) && (host === "localhost" || host.endsWith(".localhost"))) {
    throw refuse(`Refusing ${parsed.hostname}: loopback addresses are not allowed (TESSERA_ALLOW_PRIVATE_HOOKS)`);
  }
}
