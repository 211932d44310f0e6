/** A shell block of the README, with what the README says about it. */
export interface ReadmeBlock {
  /** 1-based line of the opening fence. */
  line: number;
  code: string;
  /** From `<!-- readme-test: skip (reason) -->` or `<!-- readme-test: server-stopped -->` just above the fence. */
  marker: { kind: "skip"; reason: string } | { kind: "server-stopped" } | null;
  /** Sample output: `# …` lines right after a command (not after a blank line), in order. */
  expected: string[];
}

const MARKER = /^<!--\s*readme-test:\s*(skip\s*\((.+)\)|server-stopped)\s*-->$/;

/** The README's ```sh blocks (indented ones inside lists too). */
export function readmeBlocks(markdown: string): ReadmeBlock[] {
  const lines = markdown.split("\n");
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)```sh\s*$/.exec(lines[i]);
    if (!open) continue;
    const indent = open[1].length;
    const body: string[] = [];
    let j = i + 1;
    for (; j < lines.length && !/^\s*```\s*$/.test(lines[j]); j++) body.push(lines[j].slice(indent));
    const above = MARKER.exec(lines[i - 1]?.trim() ?? "");
    const marker = !above ? null : above[2] ? { kind: "skip" as const, reason: above[2] } : { kind: "server-stopped" as const };
    blocks.push({ line: i + 1, code: body.join("\n") + "\n", marker, expected: sampleOutput(body) });
    i = j;
  }
  return blocks;
}

function sampleOutput(body: string[]): string[] {
  const expected: string[] = [];
  let afterCommand = false;
  for (const line of body) {
    if (line.startsWith("#")) {
      if (afterCommand) expected.push(line.replace(/^#\s?/, ""));
    } else {
      afterCommand = line.trim() !== "";
    }
  }
  return expected;
}

const PIECES = /(\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ|[0-9a-f]{8}-…|…|\s+)/;

/**
 * A sample output line as a pattern: `…` stands for anything, a timestamp or an id prefix (`01a2b3c4-…`)
 * for any other, and runs of spaces for any whitespace (tables pad their columns).
 */
export function sampleToPattern(sample: string): RegExp {
  const source = sample.trim().split(PIECES).map((piece) => {
    if (piece === "…") return ".*?";
    if (/^\s+$/.test(piece)) return "\\s+";
    if (/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\dZ$/.test(piece)) return "\\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\dZ";
    if (/^[0-9a-f]{8}-…$/.test(piece)) return "[0-9a-f]{8}-\\S*";
    return piece.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }).join("");
  return new RegExp(source);
}
