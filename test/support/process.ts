import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { SERVER_ENV, SERVER_NODE_FLAGS } from "../../src/server-flags.ts";
import { checkFetchesAgainstOpenApi } from "./fetch-conformance.ts";

/** The repository root: child processes run from here, as `npm start` would. */
export const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/**
 * The environment of a child process: this one's, without the settings a test must choose itself
 * (so a developer's DATABASE_URL or TESSERA_ADMIN_KEY never leaks into a test's server).
 */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env };
  for (const name of ["DATABASE_URL", "TESSERA_ADMIN_KEY", "TESSERA_DATA_DIR", "PORT", "HOST", "TESSERA_PUBLIC_URL", "LOG_LEVEL", "TESSERA_BODY_LIMIT"]) {
    delete base[name];
  }
  for (const [name, value] of Object.entries(env)) if (value !== undefined) base[name] = value;
  return base;
}

export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Runs a TypeScript entry point (`bin/tessera.ts`, `src/cli/…`) with this Node (24, from npx) to completion. */
export function runScript(script: string, args: string[], env: Record<string, string | undefined>, timeoutMs = 60_000): Promise<Finished> {
  const child = spawn(process.execPath, [script, ...args], { cwd: ROOT, env: childEnv(env), stdio: ["ignore", "pipe", "pipe"] });
  return watchProcess(child, timeoutMs).done;
}

/** Collects a child's output as it comes; `done` settles when it exits (it is killed after `timeoutMs`). */
export function watchProcess(child: ChildProcess, timeoutMs: number): { output: { stdout: string; stderr: string }; done: Promise<Finished> } {
  const output = { stdout: "", stderr: "" };
  child.stdout!.setEncoding("utf8").on("data", (s: string) => (output.stdout += s));
  child.stderr!.setEncoding("utf8").on("data", (s: string) => (output.stderr += s));
  const done = new Promise<Finished>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`process did not finish within ${timeoutMs} ms\nstdout: ${output.stdout}\nstderr: ${output.stderr}`));
    }, timeoutMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, ...output });
    });
  });
  return { output, done };
}

/**
 * A server started as `npm start` does (`node` with the flags of src/server-flags.ts), on a port of the
 * system's choosing. Answers fetched from it are checked against its OpenAPI document (fetch-conformance.ts).
 */
export interface ServerProcess {
  url: string;
  /** Everything written so far. */
  output: { stdout: string; stderr: string };
  /** Sends the signal (unless it has exited already) and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<Finished>;
}

export async function startServerProcess(env: Record<string, string | undefined>, timeoutMs = 60_000, args = [...SERVER_NODE_FLAGS, "src/main.ts"]): Promise<ServerProcess> {
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env: childEnv({ ...SERVER_ENV, PORT: "0", HOST: "127.0.0.1", LOG_LEVEL: "info", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  const { output, done } = watchProcess(child, 10 * 60_000);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`server did not listen within ${timeoutMs} ms\n${output.stdout}\n${output.stderr}`));
    }, timeoutMs);
    child.stdout!.on("data", () => {
      const match = /Server listening at (http:\/\/127\.0\.0\.1:\d+)/.exec(output.stdout);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    done.then((end) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${end.code ?? end.signal}) before listening\n${end.stdout}\n${end.stderr}`));
    }, reject);
  });
  // Every answer this process fetches from the server is checked against the server's OpenAPI document.
  const stopChecking = await checkFetchesAgainstOpenApi(url);
  return {
    url,
    output,
    async stop(signal = "SIGTERM") {
      stopChecking();
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      return done;
    },
  };
}
