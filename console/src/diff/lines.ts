/**
 * A line diff (Myers' O(ND) algorithm): the shortest edit script turning `before` into `after`, as a list
 * of lines each kept, removed or added, in reading order (removals before additions at one place).
 */
export type LineOp = "same" | "removed" | "added";
export interface DiffLine {
  op: LineOp;
  text: string;
  /** Line number in `before` (same, removed) and in `after` (same, added), from 1. */
  before?: number;
  after?: number;
}

export function diffLines(before: string, after: string): DiffLine[] {
  const a = before === "" ? [] : before.split("\n");
  const b = after === "" ? [] : after.split("\n");
  const n = a.length;
  const m = b.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let done = false;
  for (let d = 0; d <= max && !done; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]) ? v[offset + k + 1] : v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        done = true;
        break;
      }
    }
  }
  // Walk the trace back from (n, m) to (0, 0).
  const out: DiffLine[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d >= 0; d--) {
    const vd = trace[d];
    const k = x - y;
    const prevK = k === -d || (k !== d && vd[offset + k - 1] < vd[offset + k + 1]) ? k + 1 : k - 1;
    const prevX = d === 0 ? 0 : vd[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      x--;
      y--;
      out.push({ op: "same", text: a[x], before: x + 1, after: y + 1 });
    }
    if (d === 0) break;
    if (x === prevX) {
      y--;
      out.push({ op: "added", text: b[y], after: y + 1 });
    } else {
      x--;
      out.push({ op: "removed", text: a[x], before: x + 1 });
    }
  }
  return out.reverse();
}
