import { parentPort } from "node:worker_threads";
import { lowerThreadPriority } from "../../thread-priority.ts";
import { WorkflowError } from "../errors.ts";
import { prepareSandbox, runInSandbox } from "./sandbox.ts";
import type { SandboxJob, SandboxReply } from "./sandbox-messages.ts";

/*
 * One thread of the sandbox pool: runs one job at a time, as the main thread would have, and posts
 * back the result or the WorkflowError's parts (errors do not cross threads with their class). It says
 * when a run starts, once QuickJS is compiled, so that the pool's watchdog never counts thread start-up.
 * A project's code runs at the lowest priority, below the thread that answers every project's requests: a flood
 * of runaway scripts takes only the CPU that thread leaves (the time limit counts the run's own CPU time).
 */
const prepared = Promise.all([lowerThreadPriority(19), prepareSandbox()]);

parentPort!.on("message", async (job: SandboxJob) => {
  let reply: SandboxReply;
  try {
    await prepared;
    parentPort!.postMessage({ id: job.id, started: true } satisfies SandboxReply);
    reply = { id: job.id, result: await runInSandbox(job.script, job.entries, job.limits) };
  } catch (error) {
    reply = error instanceof WorkflowError
      ? { id: job.id, failure: { statusCode: error.statusCode, type: error.type, message: error.message } }
      : { id: job.id, internal: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
  parentPort!.postMessage(reply);
});
