import { promptConfig, type Api } from "./api.ts";
import type { Line } from "./report.ts";

/** Line 7: 16 clients commit to one variant at once; every version 0..N must exist exactly once. */
export async function commitLine(api: Api, dbLabel: string, clients: number, perClient: number): Promise<Line> {
  const slug = `busy-${dbLabel.toLowerCase()}`;
  const app = (await api.post("/simple/applications/", { application: { slug, data: promptConfig(0) } })).application;
  const versionsOf = async (): Promise<number[]> => {
    const log = await api.post("/applications/revisions/log", { application: { application_variant_id: app.variant_id } });
    const versions: number[] = log.application_revisions.map((r: { version: string }) => Number(r.version));
    return versions.sort((a, b) => a - b);
  };
  const initial = (await versionsOf()).length; // what the create made: v0, and v1 with the data
  let done = 0;
  const started = performance.now();
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    for (let i = 0; i < perClient; i++) {
      await api.post("/applications/revisions/commit", {
        application_revision_commit: { application_variant_id: app.variant_id, message: `client ${c} commit ${i}`, data: promptConfig(c * 1000 + i) },
      });
      done++;
    }
  }));
  const ms = performance.now() - started;
  const versions = await versionsOf();
  const total = initial + done;
  const exact = versions.length === total && versions.every((v, i) => v === i);
  const rate = (done * 1000) / ms;
  return {
    name: `7. application commits, ${clients} clients, one variant (${dbLabel})`,
    figure: `${rate.toFixed(0)} commits/s`,
    baseline: "—",
    ratio: null,
    target: "no lost or duplicate version",
    met: exact,
    note: `${done} commits in ${(ms / 1000).toFixed(1)} s; versions found: ${versions.length} of ${total}${exact ? `, 0..${total - 1} each once` : `, first gaps/duplicates near ${versions.find((v, i) => v !== i)}`}.`,
  };
}
