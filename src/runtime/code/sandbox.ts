import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { newQuickJSWASMModule, newVariant, type QuickJSContext, type QuickJSHandle, type QuickJSRuntime, RELEASE_SYNC } from "quickjs-emscripten";
import { codeFailed, ERROR_TYPES, WorkflowError } from "../errors.ts";

export interface SandboxLimits {
  /** Wall-clock budget for the whole run, enforced by QuickJS's interrupt handler. */
  timeMs: number;
  /** How far the sandbox's WebAssembly memory may grow beyond its initial 16 MB. */
  memoryBytes: number;
  /** QuickJS's own stack limit; kept well under the host's so deep recursion fails inside the sandbox. */
  stackBytes: number;
}

export const DEFAULT_SANDBOX_LIMITS: SandboxLimits = { timeMs: 1_000, memoryBytes: 32 * 1024 * 1024, stackBytes: 256 * 1024 };

/** A function the script may define, and the arguments to call it with. */
export interface EntryPoint {
  entry: string;
  args: unknown[];
}

export interface SandboxResult {
  entry: string;
  value: unknown;
}

/** Where a run happens: `runInSandbox` in this thread, or the server's pool of sandbox threads. */
export type RunSandbox = (
  script: string,
  entries: EntryPoint[],
  limits: SandboxLimits,
) => Promise<SandboxResult | null>;

/** The failure of a run stopped at its deadline. */
export const codeTimeLimit = (timeMs: number) =>
  new WorkflowError(408, ERROR_TYPES.codeTimeLimit, `Script exceeded the time limit of ${timeMs} ms`);

/** The failure of a run stopped at its memory limit. */
export const codeMemoryLimit = (memoryBytes: number) =>
  new WorkflowError(422, ERROR_TYPES.codeMemoryLimit, `Script exceeded the memory limit of ${memoryBytes} bytes`);

const PAGE = 64 * 1024;
const INITIAL_PAGES = 256; // the 16 MB the QuickJS build expects to start with

/** Defined before the user's script, inside the sandbox, so `console.log` is harmless rather than an error. */
const PRELUDE = "globalThis.console = { log() {}, info() {}, warn() {}, error() {}, debug() {} };";

let compiled: Promise<WebAssembly.Module> | null = null;

/** Compiles the QuickJS code ahead of the first run (a sandbox thread does it as it starts). */
export async function prepareSandbox(): Promise<void> {
  await quickjsCode();
}

/** The QuickJS WebAssembly code, compiled once; every run instantiates it afresh. */
function quickjsCode(): Promise<WebAssembly.Module> {
  compiled ??= (async () => {
    const fromQuickjs = createRequire(createRequire(import.meta.url).resolve("quickjs-emscripten"));
    return WebAssembly.compile(await readFile(fromQuickjs.resolve("@jitl/quickjs-wasmfile-release-sync/wasm")));
  })().catch((error: unknown) => {
    compiled = null;
    throw error;
  });
  return compiled;
}

/**
 * Runs `script`, then calls the first of `entries` it defines, JSON in and JSON out. Each run gets
 * its own WebAssembly instance whose memory has a hard maximum, so nothing survives between runs and
 * a memory bomb hits a wall instead of the host. The context has only ECMAScript built-ins: no
 * host function is exposed, so there is no require, process, fetch, timer or filesystem. An
 * interrupt handler stops the run at the deadline, counted in the thread's CPU time (a run is not cut short
 * because the machine was busy: sandbox threads run at the lowest priority); the run is synchronous and holds
 * its thread, which is why the server runs it in a sandbox thread (sandbox-pool.ts).
 */
export async function runInSandbox(script: string, entries: EntryPoint[], limits: SandboxLimits = DEFAULT_SANDBOX_LIMITS): Promise<SandboxResult | null> {
  for (const { entry } of entries) if (!/^[A-Za-z_$][\w$]*$/.test(entry)) throw new Error(`Invalid entry point name ${entry}`);
  const memory = new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: INITIAL_PAGES + Math.ceil(limits.memoryBytes / PAGE) });
  const module = await newQuickJSWASMModule(newVariant(RELEASE_SYNC, { wasmModule: await quickjsCode(), wasmMemory: memory }));
  const runtime = module.newRuntime();
  const deadline = cpuMs() + limits.timeMs;
  runtime.setMaxStackSize(limits.stackBytes);
  runtime.setInterruptHandler(() => cpuMs() > deadline);
  const context = runtime.newContext();
  const run = new Run(context, runtime, deadline, limits, () => memory.buffer.byteLength >= (INITIAL_PAGES * PAGE + limits.memoryBytes));
  let healthy = true;
  try {
    return run.call(script, entries);
  } catch (error) {
    if (error instanceof WorkflowError) throw error;
    healthy = false;
    // Recursion can exhaust the host's stack inside the interpreter before QuickJS's own check.
    if (error instanceof RangeError) throw codeFailed("Script failed: stack overflow");
    throw error;
  } finally {
    // An instance that failed mid-call may be inconsistent: leave it to the garbage collector.
    if (healthy) run.dispose();
  }
}

/** The calling thread's CPU time (user and system), in ms: what a run's time limit counts. */
function cpuMs(): number {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
}

class Run {
  readonly context: QuickJSContext;
  readonly runtime: QuickJSRuntime;
  readonly deadline: number;
  readonly limits: SandboxLimits;
  readonly memoryExhausted: () => boolean;
  readonly handles: QuickJSHandle[] = [];

  constructor(context: QuickJSContext, runtime: QuickJSRuntime, deadline: number, limits: SandboxLimits, memoryExhausted: () => boolean) {
    this.context = context;
    this.runtime = runtime;
    this.deadline = deadline;
    this.limits = limits;
    this.memoryExhausted = memoryExhausted;
  }

  keep(handle: QuickJSHandle): QuickJSHandle {
    this.handles.push(handle);
    return handle;
  }

  evaluate(code: string, filename: string): QuickJSHandle {
    const result = this.context.evalCode(code, filename);
    if (result.error) throw this.failure(result.error);
    return this.keep(result.value);
  }

  call(script: string, entries: EntryPoint[]): SandboxResult | null {
    const { context } = this;
    this.evaluate(PRELUDE, "prelude.js");
    // Entry points are looked up by name when called, so top-level `function`, `const` and `let`
    // definitions all count; JSON is captured before the script can replace it.
    const branches = entries.map(({ entry }, i) => `if (typeof ${entry} === "function") return { index: ${i}, value: ${entry}(...args[${i}]) };`);
    const call = this.evaluate(`(() => { const parse = JSON.parse; return (json) => { const args = parse(json); ${branches.join(" ")} return { index: -1 }; }; })()`, "call.js");
    const serialize = this.evaluate("(() => { const stringify = JSON.stringify; return (v) => stringify(v === undefined ? null : v); })()", "serialize.js");
    this.evaluate(script, "script.js");

    const called = context.callFunction(call, context.undefined, this.keep(context.newString(JSON.stringify(entries.map((e) => e.args)))));
    if (called.error) throw this.failure(called.error);
    const envelope = this.keep(called.value);
    const index = context.getProp(envelope, "index").consume((h) => context.getNumber(h));
    if (index < 0) return null;

    const value = this.settle(this.keep(context.getProp(envelope, "value")));
    const serialized = context.callFunction(serialize, context.undefined, value);
    if (serialized.error) throw this.failure(serialized.error);
    return { entry: entries[index].entry, value: JSON.parse(context.getString(this.keep(serialized.value))) };
  }

  /** A promise (an `async` entry point) is driven until it settles; any other value is returned as is. */
  settle(value: QuickJSHandle): QuickJSHandle {
    for (;;) {
      const state = this.context.getPromiseState(value);
      if (state.type === "fulfilled") return state.notAPromise ? value : this.keep(state.value);
      if (state.type === "rejected") throw this.failure(state.error);
      const jobs = this.runtime.executePendingJobs();
      if (jobs.error) throw this.failure(jobs.error);
      if (jobs.value === 0) {
        if (cpuMs() > this.deadline) throw this.timeLimit();
        throw codeFailed("The script's promise never settled (the sandbox has no I/O to wait for)");
      }
    }
  }

  timeLimit(): WorkflowError {
    return codeTimeLimit(this.limits.timeMs);
  }

  failure(error: QuickJSHandle): WorkflowError {
    this.keep(error);
    if (cpuMs() > this.deadline) return this.timeLimit();
    if (this.memoryExhausted()) return this.memoryLimit();
    let detail: unknown;
    try {
      detail = this.context.dump(error);
    } catch {
      return this.memoryLimit();
    }
    const described = detail && typeof detail === "object" ? (detail as { name?: unknown; message?: unknown }) : null;
    const message = typeof described?.message === "string" ? `${described.name ?? "Error"}: ${described.message}` : JSON.stringify(detail) ?? "undefined";
    if (/out of memory/i.test(message)) return this.memoryLimit();
    return codeFailed(`Script failed: ${message}`);
  }

  memoryLimit(): WorkflowError {
    return codeMemoryLimit(this.limits.memoryBytes);
  }

  dispose(): void {
    for (const handle of this.handles.reverse()) if (handle.alive) handle.dispose();
    try {
      this.context.dispose();
      this.runtime.dispose();
    } catch {
      // QuickJS asserts when objects outlive the runtime; the instance is discarded either way.
    }
  }
}
