/** A revision diff as people read it: metadata changes, then the JSON Patch or the testset's row changes. */

type Side = { id: string; version: string; variant_id?: string };
type PatchOperation = { op: string; path: string; value?: unknown; from?: string };
type Row = { id: string; data: Record<string, unknown> };
interface RowDiff {
  counts: { base: number; target: number; added: number; removed: number; changed: number };
  columns: { added: string[]; removed: string[] };
  testcases: { added: Row[]; removed: Row[]; changed: { id: string; new_id: string; fields: Record<string, { from: unknown; to: unknown }> }[] };
  truncated: boolean;
}
export interface RevisionDiff {
  base: Side;
  target: Side;
  data: PatchOperation[] | RowDiff | null;
  metadata: Record<string, { from: unknown; to: unknown }>;
}

const MAX_VALUE = 160;

function show(value: unknown): string {
  const text = value === undefined ? "undefined" : JSON.stringify(value);
  return text.length > MAX_VALUE ? `${text.slice(0, MAX_VALUE - 1)}…` : text;
}

const SIGN: Record<string, string> = { add: "+", remove: "-", replace: "~", move: ">", copy: "=", test: "?" };

function patchLines(patch: PatchOperation[]): string[] {
  if (patch.length === 0) return ["data: unchanged"];
  return [
    `data: ${patch.length} change${patch.length === 1 ? "" : "s"} (JSON Patch)`,
    ...patch.map((op) => {
      const sign = SIGN[op.op] ?? op.op;
      if (op.op === "remove") return `  ${sign} ${op.path}`;
      if (op.op === "move" || op.op === "copy") return `  ${sign} ${op.path} from ${op.from}`;
      return `  ${sign} ${op.path}: ${show(op.value)}`;
    }),
  ];
}

function rowLines(d: RowDiff): string[] {
  const c = d.counts;
  const lines = [`rows: ${c.base} → ${c.target} (${c.added} added, ${c.removed} removed, ${c.changed} changed)`];
  if (d.columns.added.length) lines.push(`columns added: ${d.columns.added.join(", ")}`);
  if (d.columns.removed.length) lines.push(`columns removed: ${d.columns.removed.join(", ")}`);
  for (const row of d.testcases.removed) lines.push(`  - ${show(row.data)}`);
  for (const row of d.testcases.added) lines.push(`  + ${show(row.data)}`);
  for (const row of d.testcases.changed) {
    const fields = Object.entries(row.fields).map(([name, { from, to }]) => `${name}: ${show(from)} → ${show(to)}`);
    lines.push(`  ~ ${row.id}  ${fields.join("; ")}`);
  }
  if (d.truncated) lines.push("  (lists stop at 1000 rows per kind of change; the counts are complete)");
  return lines;
}

export function formatDiff(diff: RevisionDiff): string {
  const lines = [
    `base:   v${diff.base.version}  ${diff.base.id}`,
    `target: v${diff.target.version}  ${diff.target.id}`,
  ];
  const metadata = Object.entries(diff.metadata ?? {});
  if (metadata.length) {
    lines.push("metadata:");
    for (const [field, { from, to }] of metadata) lines.push(`  ${field}: ${show(from)} → ${show(to)}`);
  }
  if (Array.isArray(diff.data)) lines.push(...patchLines(diff.data));
  else if (diff.data && typeof diff.data === "object" && "counts" in diff.data) lines.push(...rowLines(diff.data));
  else lines.push(`data: ${show(diff.data)}`);
  return lines.join("\n") + "\n";
}
