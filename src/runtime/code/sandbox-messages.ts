import type { ErrorType } from "../errors.ts";
import type { EntryPoint, SandboxLimits, SandboxResult } from "./sandbox.ts";

/** What the pool sends a sandbox thread: one run. */
export interface SandboxJob {
  id: number;
  script: string;
  entries: EntryPoint[];
  limits: SandboxLimits;
}

/** What a sandbox thread answers: that it took the run, then the result, the script's failure, or our own bug. */
export type SandboxReply =
  | { id: number; started: true }
  | { id: number; result: SandboxResult | null }
  | { id: number; failure: { statusCode: number; type: ErrorType; message: string } }
  | { id: number; internal: string };
