import { readdirSync, readFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestProject, type TestServer } from "./support/server.ts";

// The HTTP requests the reference's Python SDK (agenta 0.113.0) sends for AppManager, VariantManager,
// ConfigManager.get_from_registry and DeploymentManager.deploy, read from sdks/python/agenta/sdk/managers/
// and recorded in test/fixtures/agenta-sdk/ (method, path, body). Replayed in order against a real server;
// each answer is checked where the SDK reads it. `${name}` is a value an earlier answer gave (`reads`).

interface Step {
  call: string;
  method: string;
  path: string;
  body?: unknown;
  reads?: Record<string, string>;
  expect?: Record<string, unknown>;
}
interface Fixture { sdk: string; flow: string; requests: Step[] }

const DIR = new URL("./fixtures/agenta-sdk/", import.meta.url);
// The numbered files are the managers' flows replayed here; the others (ag.init, middlewares) are test/agenta-surface.test.ts's.
const FIXTURES = readdirSync(DIR).filter((f) => /^\d+-.*\.json$/.test(f)).sort();

/** `${name}` replaced by a value read earlier; a string that is only a placeholder takes the value's type. */
function fill(value: unknown, vars: Record<string, unknown>): unknown {
  if (typeof value === "string") {
    const whole = /^\$\{(\w+)\}$/.exec(value);
    if (whole) return known(vars, whole[1]);
    return value.replace(/\$\{(\w+)\}/g, (_, name: string) => String(known(vars, name)));
  }
  if (Array.isArray(value)) return value.map((v) => fill(v, vars));
  if (value && typeof value === "object") return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, vars)]));
  return value;
}

function known(vars: Record<string, unknown>, name: string): unknown {
  if (!(name in vars)) throw new Error(`fixture uses \${${name}} before any answer gave it`);
  return vars[name];
}

/** `a.b[0].c`, `a[*].id` (every element), `a.key\.with\.dots`. */
function read(root: unknown, path: string): unknown {
  const segments = path.split(/(?<!\\)\./).map((s) => s.replace(/\\\./g, "."));
  let values: unknown[] = [root];
  let many = false;
  for (const segment of segments) {
    const [, name, index] = /^([^[]*)(?:\[(\d+|\*)\])?$/.exec(segment) ?? [];
    values = values.flatMap((v) => {
      const at = name ? (v as Record<string, unknown> | null)?.[name] : v;
      if (index === undefined) return [at];
      if (index === "*") return Array.isArray(at) ? at : [];
      return [Array.isArray(at) ? at[Number(index)] : undefined];
    });
    if (index === "*") many = true;
  }
  return many ? values : values[0];
}

let server: TestServer;
let p: TestProject;
const vars: Record<string, unknown> = { app_slug: "sdk-app", variant_slug: "sdk-app-main" };

beforeAll(async () => {
  server = await startTestServer();
  p = await server.project();
});
afterAll(() => server.close());

describe("the Python SDK's requests, replayed", () => {
  for (const file of FIXTURES) {
    const fixture = JSON.parse(readFileSync(new URL(file, DIR), "utf8")) as Fixture;
    it(`${file}: ${fixture.flow}`, async () => {
      for (const step of fixture.requests) {
        const path = fill(step.path, vars) as string;
        const res = await p.call(step.method, path, step.body === undefined ? undefined : fill(step.body, vars));
        // The SDK raises on any status ≥ 400 (_raise_for_status), so every step must succeed.
        expect(res.statusCode, `${step.call}: ${step.method} ${path} → ${res.body}`).toBeLessThan(300);
        const answer = res.json();
        for (const [name, at] of Object.entries(step.reads ?? {})) {
          vars[name] = read(answer, at);
          expect(vars[name], `${step.call}: reads ${at}`).not.toBeUndefined();
        }
        for (const [at, wanted] of Object.entries(step.expect ?? {})) {
          const got = read(answer, fill(at, vars) as string);
          const want = fill(wanted, vars);
          if (want && typeof want === "object" && !Array.isArray(want) && ("contains" in want || "lacks" in want)) {
            const { contains = [], lacks = [] } = want as { contains?: unknown[]; lacks?: unknown[] };
            for (const v of contains) expect(got, `${step.call}: ${at}`).toContain(v);
            for (const v of lacks) expect(got, `${step.call}: ${at}`).not.toContain(v);
          } else {
            expect(got, `${step.call}: ${at}`).toEqual(want);
          }
        }
      }
    });
  }
});
