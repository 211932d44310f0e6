import { describe, expect, it } from "vitest";
import { json } from "../src/db/database.ts";
import { testcasesById } from "../src/testsets/testcases.ts";
import { serverWithProject } from "./support/server.ts";

/**
 * What one project's large upload may cost the others. Right after it, the statistics do not know its rows yet (the
 * embedded database analyzes once a minute, PostgreSQL's autovacuum about as often): a page of its testcases read
 * by id must still read that page, not every row of the project. And on the embedded database, which answers
 * statements without going through the event loop, a request making statement after statement must not keep the
 * other requests (sockets, timers) waiting until its last one.
 */
const { server, p } = await serverWithProject();

function upload(fields: Record<string, string>, content: string) {
  const boundary = "----tessera" + Math.random().toString(16).slice(2);
  const parts = Object.entries(fields)
    .map(([k, v]) => `--${boundary}\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`);
  parts.push(`--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="rows.csv"\r\n` +
    `Content-Type: text/csv\r\n\r\n${content}\r\n--${boundary}--\r\n`);
  return p.call("POST", "/simple/testsets/upload", parts.join(""), {
    "content-type": `multipart/form-data; boundary=${boundary}`,
  });
}

interface PlanNode {
  "Node Type": string;
  "Actual Rows": number;
  Plans?: PlanNode[];
}
const nodes = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodes)];

describe("another project's upload", () => {
  it("reads a page of testcases by id through the key, whatever the statistics say", async () => {
    // Statistics taken while the project has no row: the planner then expects a handful of them.
    await server.db.query("ANALYZE testcases");
    const rows = Array.from({ length: 5_000 }, (_, i) => `question ${i},answer ${i}`);
    const res = await upload({ testset_slug: "stale" }, `question,answer\n${rows.join("\n")}\n`);
    expect(res.statusCode).toBe(200);
    const ids: string[] = res.json().testset.data.testcase_ids;
    expect(ids).toHaveLength(5_000);
    const page = ids.slice(0, 1_000);
    const [{ "QUERY PLAN": plan }] = await server.db.query<{ "QUERY PLAN": unknown }>(
      `EXPLAIN (ANALYZE, FORMAT JSON) ${testcasesById("id, data")}`, [p.id, json(page)],
    );
    const root = (typeof plan === "string" ? JSON.parse(plan) : plan)[0].Plan as PlanNode;
    expect(root["Actual Rows"]).toBe(1_000);
    const most = Math.max(...nodes(root).map((n) => n["Actual Rows"]));
    expect(most, JSON.stringify(nodes(root).map((n) => [n["Node Type"], n["Actual Rows"]]))).toBe(1_000);
  });

  it("lets the event loop turn between statements that follow one another", async () => {
    let ran = 0;
    let turnedAfter = -1;
    setImmediate(() => (turnedAfter = ran));
    // Each statement lasts longer than a turn of the loop may wait (pg_sleep: at least that long).
    for (let i = 0; i < 8; i++) {
      await server.db.query("SELECT pg_sleep(0.03)");
      ran++;
    }
    expect(turnedAfter).toBeGreaterThanOrEqual(0);
    expect(turnedAfter).toBeLessThanOrEqual(2);
  });
});
