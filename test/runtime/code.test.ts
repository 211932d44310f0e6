import { afterAll, describe, expect, it } from "vitest";
import { SandboxPool } from "../../src/runtime/code/sandbox-pool.ts";
import type { RunSandbox } from "../../src/runtime/code/sandbox.ts";
import { WorkflowError } from "../../src/runtime/errors.ts";
import { invokeWorkflow } from "../../src/runtime/invoke.ts";
import type { InvokeRequest } from "../../src/runtime/invoke-request.ts";

const pool = new SandboxPool({ workers: 2, projectConcurrency: 2, projectQueueLimit: 16, queueLimit: 16 });
afterAll(() => pool.close());

// The same answers whether the script runs in this thread or in the server's sandbox threads.
describe.each<[string, RunSandbox | undefined]>([
  ["in this thread", undefined],
  ["in a sandbox thread", pool.runner("code-test")],
])("custom code %s", (_where, sandbox) => {
  const code = (script: string, extra: Partial<InvokeRequest> = {}): InvokeRequest => ({
    uri: "svc:custom:code:v0",
    script,
    inputs: { a: 2, b: 3, answer: "Paris" },
    parameters: { factor: 10 },
    sandbox,
    ...extra,
  });

  const run = async (script: string, extra: Partial<InvokeRequest> = {}) => (await invokeWorkflow(code(script, extra))).outputs;

  async function failure(script: string, extra: Partial<InvokeRequest> = {}): Promise<WorkflowError> {
    try {
      await invokeWorkflow(code(script, extra));
    } catch (error) {
      expect(error).toBeInstanceOf(WorkflowError);
      return error as WorkflowError;
    }
    throw new Error("expected the script to fail");
  }

  it("runs an application's run(inputs, parameters)", async () => {
    expect(await run("function run(inputs, parameters) { return { sum: (inputs.a + inputs.b) * parameters.factor }; }")).toEqual({ sum: 50 });
    expect(await run("const run = (inputs) => `${inputs.answer}!`;")).toBe("Paris!");
    expect(await run("async function run(inputs) { await null; return [inputs.a, inputs.b]; }")).toEqual([2, 3]);
    expect(await run("function run() { console.log('ignored'); }")).toBeNull();
  });

  it("maps an evaluator's result: boolean, number against the threshold, objects as they are", async () => {
    const evaluator = (body: string) => `function evaluate(inputs, output, trace) { ${body} }`;
    expect(await run(evaluator("return output === inputs.answer;"), { outputs: "Paris" })).toEqual({ success: true });
    expect(await run(evaluator("return output === inputs.answer;"), { outputs: "Lyon" })).toEqual({ success: false });
    expect(await run(evaluator("return 0.6;"))).toEqual({ score: 0.6, success: true });
    expect(await run(evaluator("return 0.6;"), { parameters: { threshold: 0.8 } })).toEqual({ score: 0.6, success: false });
    expect(await run(evaluator("return { score: 1, success: true, note: trace.id };"), { trace: { id: "t1" } })).toEqual({ score: 1, success: true, note: "t1" });
  });

  it("stops an infinite loop at the time limit and stays usable", async () => {
    const started = Date.now();
    const error = await failure("function run() { while (true) {} }", { timeouts: { codeMs: 200 } });
    expect(Date.now() - started).toBeLessThan(3_000);
    expect(error.statusCode).toBe(408);
    expect(error.message).toMatch(/time limit of 200 ms/);
    expect((await failure("while (true) {}", { timeouts: { codeMs: 100 } })).statusCode).toBe(408);
    expect((await failure("async function run() { for (;;) await null; }", { timeouts: { codeMs: 100 } })).statusCode).toBe(408);
    expect(await run("function run(inputs) { return inputs.a; }")).toBe(2);
  });

  it("stops a memory bomb", async () => {
    const error = await failure("function run() { const parts = []; for (;;) parts.push('x'.repeat(1 << 20) + parts.length); }", { timeouts: { codeMs: 5_000 } });
    expect(error.statusCode).toBe(422);
    expect(error.message).toMatch(/memory limit/);
    const arrays = await failure("function run() { const all = []; for (;;) all.push(new Array(1e6).fill(all.length)); }", { timeouts: { codeMs: 5_000 } });
    expect(arrays.message).toMatch(/memory limit/);
    const huge = await failure("function run() { return new Array(5e8).fill(0).length; }", { timeouts: { codeMs: 5_000 } });
    expect(huge.message).toMatch(/memory limit/);
    expect(await run("function run() { return 'still alive'; }")).toBe("still alive");
  });

  it("has no I/O: no process, require, fetch, filesystem or host functions", async () => {
    const probes = await run(`function run() {
      return [typeof process, typeof require, typeof fetch, typeof module, typeof std, typeof os,
              typeof setTimeout, typeof XMLHttpRequest, typeof WebAssembly, typeof Deno, typeof Bun];
    }`);
    expect(probes).toEqual(Array(11).fill("undefined"));
    const escaped = await run(`function run() {
      const F = (function () {}).constructor;
      const g = F('return this')();
      return [typeof g.process, typeof g.require, Object.keys(g).sort().join(",")];
    }`);
    expect(escaped).toEqual(["undefined", "undefined", "console,run"]);
    const requireError = await failure("function run() { return require('fs').readFileSync('/etc/passwd', 'utf8'); }");
    expect(requireError.statusCode).toBe(422);
    expect(requireError.message).toMatch(/ReferenceError.*require/);
    expect((await failure("function run() { return import('fs'); }")).statusCode).toBe(422);
  });

  it("reports script errors with their message", async () => {
    const thrown = await failure("function run() { throw new TypeError('bad input shape'); }");
    expect(thrown).toMatchObject({ statusCode: 422, type: expect.stringMatching(/code:failed$/) });
    expect(thrown.message).toMatch(/TypeError: bad input shape/);
    expect((await failure("function run( {")).message).toMatch(/SyntaxError/);
    expect((await failure("async function run() { throw new Error('async boom'); }")).message).toMatch(/async boom/);
    expect((await failure("function run() { function f() { return f(); } return f(); }")).message).toMatch(/stack|RangeError/i);
  });

  it("requires run or evaluate and a JavaScript runtime", async () => {
    const missing = await failure("function other() {}");
    expect(missing.statusCode).toBe(422);
    expect(missing.message).toMatch(/neither run/);
    expect((await failure("def evaluate(): pass", { runtime: "python" })).statusCode).toBe(400);
    expect((await failure("", {})).statusCode).toBe(400);
  });
});
