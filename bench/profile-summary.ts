import { readFileSync } from "node:fs";

/**
 * `node bench/profile-summary.ts FILE.cpuprofile [--top=40] [--last=SECONDS] [--first=SECONDS] [--total]`: a V8 CPU
 * profile (`node --cpu-prof`, or the bench's `--profile`) summarised by function, heaviest first, with the share of the
 * busy (not idle) time. Self time by default; `--total` counts each function's callees too. `--last` keeps only
 * the samples of the profile's last seconds (a load at the end of a server's life, without its start), `--first`
 * those of its first seconds.
 * `--callers=TEXT` gives instead the self time of the functions whose name holds TEXT by the function calling them.
 */
interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const args = process.argv.slice(2);
const option = (name: string) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
const file = args.find((a) => !a.startsWith("--"));
const USAGE =
  "node bench/profile-summary.ts FILE.cpuprofile [--top=40] [--last=SECONDS] [--first=SECONDS] [--total] [--callers=TEXT]";
if (!file) throw new Error(`usage: ${USAGE}`);
const top = Number(option("top") ?? 40);
const lastUs = option("last") === undefined ? Infinity : Number(option("last")) * 1e6;
const firstUs = option("first") === undefined ? Infinity : Number(option("first")) * 1e6;
const inclusive = args.includes("--total");
const callersOf = option("callers");

const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const nameOf = new Map(profile.nodes.map((n) => {
  const { functionName, url, lineNumber } = n.callFrame;
  const where = url ? `${url.replace(/^.*\/(node_modules|src)\//, "$1/")}:${lineNumber + 1}` : "";
  return [n.id, `${functionName || "(anonymous)"} ${where}`.trim()];
}));

const end = profile.timeDeltas.reduce((a, b) => a + b, 0);
const time = new Map<string, number>();
let clock = 0;
let total = 0;
let idle = 0;
profile.samples.forEach((id, i) => {
  const dt = profile.timeDeltas[i] ?? 0;
  clock += dt;
  if (end - clock > lastUs || clock > firstUs) return;
  total += dt;
  if (nameOf.get(id) === "(idle)") idle += dt;
  if (callersOf !== undefined) {
    if (!nameOf.get(id)!.includes(callersOf)) return;
    const caller = nameOf.get(parent.get(id) ?? id)!;
    time.set(caller, (time.get(caller) ?? 0) + dt);
    return;
  }
  const names = new Set<string>();
  for (let node: number | undefined = id; node !== undefined; node = inclusive ? parent.get(node) : undefined) {
    names.add(nameOf.get(node)!);
  }
  for (const name of names) time.set(name, (time.get(name) ?? 0) + dt);
});
const busy = total - idle;
process.stdout.write(`sampled ${(total / 1000).toFixed(0)} ms, busy ${(busy / 1000).toFixed(0)} ms\n`);
for (const [name, us] of [...time].sort((a, b) => b[1] - a[1]).slice(0, top)) {
  const share = ((100 * us) / busy).toFixed(1).padStart(5);
  process.stdout.write(`${(us / 1000).toFixed(1).padStart(9)} ms ${share}%  ${name}\n`);
}
