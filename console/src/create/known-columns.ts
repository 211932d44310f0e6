/** Column names the project's newest testsets hold, for fields that name a testcase column. */
import { api } from "../api.ts";

const HIDDEN = new Set(["testcase_dedup_id", "__id__"]);

/** The columns of the first row of each of the newest `testsets` testsets, in first-seen order. */
export async function knownColumns(signal?: AbortSignal, testsets = 5): Promise<string[]> {
  const body = { windowing: { limit: testsets } };
  const listed = await api<{ testsets: { id: string }[] }>("POST", "/testsets/query", body, { signal });
  const rows = await Promise.all(listed.testsets.map((t) =>
    api<{ testcases: { data?: Record<string, unknown> }[] }>("POST", "/testcases/query", {
      testset_id: t.id, windowing: { limit: 1 },
    }, { signal })));
  const names = rows.flatMap((answer) => answer.testcases.flatMap((c) => Object.keys(c.data ?? {})));
  return [...new Set(names.filter((n) => !HIDDEN.has(n)))];
}
