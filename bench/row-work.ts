import { createReadStream } from "node:fs";
import { readRows } from "../src/testsets/import.ts";
import { DedupIds } from "../src/testsets/testcase-id.ts";
import { PackedIds, pendTestcase } from "../src/testsets/testcases.ts";

/**
 * The upload's work per row without a database or HTTP (`node bench/row-work.ts <csv file>`): the
 * server's own parsing of the file and, for every row, its canonical JSON and its two hashes (dedup
 * id and content-addressed id), in a process of its own. Prints `{rows, ms}`: no upload can beat it.
 */
const testsetId = "01900000-0000-7000-8000-000000000000";
const dedup = new DedupIds();
const ids = new PackedIds();
const started = performance.now();
let rows = 0;
for await (const row of readRows(createReadStream(process.argv[2]), "csv")) {
  pendTestcase(row, testsetId, dedup, ids);
  rows++;
}
process.stdout.write(JSON.stringify({ rows, ms: performance.now() - started }));
