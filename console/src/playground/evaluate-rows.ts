import { api } from "../api.ts";
import { queryVariants, type Artifact } from "../artifacts.ts";
import type { Revision } from "../revisions.ts";
import type { TestsetRow } from "./testset-rows.ts";

/**
 * Runs rows of a testset through a revision as an evaluation run, and answers the run's id. The rows are
 * committed as the next revision of the testset's `playground` variant (created on first use), so the testset's
 * own variant is left as it is, and the rows keep their testcase ids (same data, same testset), which lets the run
 * reuse results of earlier runs. The run is created with `POST /simple/evaluations/`, as the "New evaluation"
 * form does.
 */
export async function evaluateRows(testset: Artifact, rows: TestsetRow[], revision: Revision): Promise<string> {
  const slug = `${testset.slug}.playground`;
  const variants = await queryVariants("testsets", testset.id);
  const variant = variants.find((v) => v.slug === slug) ?? (await api("POST", "/testsets/variants/", {
    testset_variant: { testset_id: testset.id, slug, name: "Playground selections" },
  })).testset_variant;
  const ordered = [...rows].sort((a, b) => a.index - b.index);
  const numbers = ordered.map((r) => r.index + 1).join(", ");
  const rowCount = `${ordered.length} row${ordered.length === 1 ? "" : "s"}`;
  const committed = await api("POST", "/testsets/revisions/commit", {
    testset_revision_commit: {
      testset_id: testset.id, testset_variant_id: variant.id, message: `Rows ${numbers} of ${testset.slug}`,
      data: { testcases: ordered.map((r) => ({ data: r.data })) },
    },
  });
  const created = await api("POST", "/simple/evaluations/", {
    evaluation: {
      name: `${revision.artifact_slug} v${revision.version} on ${rowCount} of ${testset.name || testset.slug}`,
      flags: { is_cached: true },
      data: { testset_steps: [committed.testset_revision.id], application_steps: [revision.id] },
    },
  });
  return created.evaluation.id;
}
