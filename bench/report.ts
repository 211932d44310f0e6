import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, totalmem } from "node:os";
import { join } from "node:path";
import { ROOT } from "./processes.ts";

/** The middle value (the upper one of an even count). */
export const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

/** One line of the table: a figure, what it is compared with, and whether the target holds. */
export interface Line {
  name: string;
  figure: string;
  baseline: string;
  ratio: number | null;
  target: string;
  /** null: no target (reported only) or the line failed. */
  met: boolean | null;
  note: string;
}

export const failed = (name: string, target: string, error: unknown): Line => ({
  name, figure: "—", baseline: "—", ratio: null, target, met: false, note: `FAILED: ${describe(error).slice(0, 400)}`,
});

/** An error's first line, with its cause's (fetch's "fetch failed" says why only in its cause: a timeout, a reset…). */
function describe(error: unknown): string {
  const first = (e: unknown) => String((e as Error)?.message ?? e).split("\n")[0];
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return cause ? `${first(error)} (${cause.code ? `${cause.code}: ` : ""}${first(cause)})` : first(error);
}

const status = (l: Line) => (l.note.startsWith("FAILED") ? "FAILED" : l.met === null ? "reported" : l.met ? "met" : "NOT MET");
const ratio = (l: Line) => (l.ratio === null ? "—" : l.ratio.toFixed(l.ratio < 0.1 ? 3 : 2));

export const machine = () => ({
  cores: cpus().length,
  cpu: cpus()[0]?.model ?? "unknown",
  memory: `${(totalmem() / 1024 ** 3).toFixed(1)} GiB`,
  node: process.version,
  date: new Date().toISOString(),
});

export function printTable(lines: Line[]): void {
  const rows = lines.map((l) => [l.name, l.figure, l.baseline, ratio(l), l.target, status(l)]);
  const head = ["line", "figure", "baseline", "ratio", "target", "status"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const fmt = (r: string[]) => r.map((c, i) => c.padEnd(widths[i])).join("  ");
  process.stdout.write(`\n${fmt(head)}\n${widths.map((w) => "-".repeat(w)).join("  ")}\n${rows.map(fmt).join("\n")}\n\n`);
  for (const l of lines) if (l.note) process.stdout.write(`- ${l.name}: ${l.note}\n`);
}

export function writeReport(lines: Line[], info: ReturnType<typeof machine>, mode: string, notes: string[]): string {
  const cell = (s: string) => s.replace(/\|/g, "\\|");
  const text = [
    "# Benchmarks",
    "",
    "Written by `npm run bench` (`bench/run.ts`); every ratio is against a baseline measured in the same run on the same machine.",
    "Timings never gate a test. Re-run to refresh; `npm run bench -- --quick` is a smoke run with short durations and smaller testsets.",
    "",
    `- Mode: ${mode}`,
    `- Machine: ${info.cores} cores (${info.cpu}), ${info.memory} memory`,
    `- Node: ${info.node}`,
    `- Date: ${info.date}`,
    "",
    "| Line | Figure | Baseline | Ratio | Target | Status |",
    "|---|---|---|---|---|---|",
    ...lines.map((l) => `| ${cell(l.name)} | ${cell(l.figure)} | ${cell(l.baseline)} | ${ratio(l)} | ${cell(l.target)} | ${status(l)} |`),
    "",
    "## Notes per line",
    "",
    ...lines.filter((l) => l.note).map((l) => `- **${cell(l.name)}** (${status(l)}): ${l.note}`),
    "",
    "## How it was measured",
    "",
    ...notes.map((n) => `- ${n}`),
    "",
  ].join("\n");
  const path = join(ROOT, "BENCHMARKS.md");
  writeFileSync(path, text + keptSections(path));
  return path;
}

/** Sections other scripts write (`<!-- name -->` … `<!-- /name -->`, e.g. bench/database-restart.ts): a run keeps them. */
function keptSections(path: string): string {
  if (!existsSync(path)) return "";
  const blocks = readFileSync(path, "utf8").match(/<!-- ([a-z-]+) -->[\s\S]*?<!-- \/\1 -->\n?/g) ?? [];
  return blocks.map((b) => `\n${b.trimEnd()}\n`).join("");
}
