/**
 * Putting an upload's rows in id order without an object per row. Rows are loaded in id order so that the indexes
 * keyed by testcase id are filled page by page; the order only has to be close, not exact, so rows are ordered by the
 * leading bits of their ids, which a float holds together with the row's position.
 */

/** The value of each hex digit's character code (lowercase, as ids are written), 0 for any other. */
const HEX_VALUE = new Uint8Array(128);
for (let d = 0; d < 16; d++) HEX_VALUE["0123456789abcdef".charCodeAt(d)] = d;

/** The first 40 bits of an id written as hex text at `at` of `text`. */
export function hexPrefix(text: Uint8Array, at: number): number {
  let value = 0;
  for (let i = at; i < at + 10; i++) value = value * 16 + HEX_VALUE[text[i]! & 127]!;
  return value;
}

/** The first 40 bits of an id of 16 bytes at `at` of `bytes`. */
export const bytesPrefix = (bytes: Uint8Array, at: number): number =>
  bytes[at]! * 2 ** 32 + bytes[at + 1]! * 2 ** 24 + ((bytes[at + 2]! << 16) | (bytes[at + 3]! << 8) | bytes[at + 4]!);

/**
 * The positions 0…n-1 ordered by `prefix(i)` (40 bits of an id), positions with the same leading bits in their own
 * order. A position and as many of the prefix's bits as fit beside it make one float, and floats sort natively: at a
 * million rows, 33 bits of the id are compared, and equal ones are a few rows at most.
 */
export function orderByPrefix(n: number, prefix: (i: number) => number): Uint32Array {
  const positionBits = Math.max(1, Math.ceil(Math.log2(n + 1)));
  const drop = 2 ** Math.max(0, 40 - (53 - positionBits));
  const scale = 2 ** positionBits;
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = Math.floor(prefix(i) / drop) * scale + i;
  keys.sort();
  const order = new Uint32Array(n);
  for (let i = 0; i < n; i++) order[i] = keys[i]! % scale;
  return order;
}

/** Most lines and about the most bytes of one batch. */
export type BatchLimits = { rows: number; bytes: number };

/**
 * Items 0…n-1 cut into batches of at most `limits.rows` items and about `limits.bytes` (as `size` counts them, a batch
 * ending with the item that reaches it): each batch as its items `[first, end)` and their bytes.
 */
export function* batchSpans(
  n: number, limits: BatchLimits, size: (item: number) => number,
): Generator<[first: number, end: number, bytes: number]> {
  for (let first = 0; first < n;) {
    let end = first;
    let bytes = 0;
    for (; end < n && end - first < limits.rows && bytes < limits.bytes; end++) bytes += size(end);
    yield [first, end, bytes];
    first = end;
  }
}

/**
 * A buffer lent to one batch at a time: a batch is a view of it, good until the next batch is asked for. Batches are
 * loaded one after another, and loading each into a buffer of its own made garbage collection run on every few.
 */
export class BatchBuffer {
  #buffer = Buffer.alloc(0);

  take(bytes: number): Buffer {
    if (this.#buffer.length < bytes) this.#buffer = Buffer.allocUnsafeSlow(Math.max(bytes, this.#buffer.length * 2));
    return this.#buffer.subarray(0, bytes);
  }
}

/**
 * Lines of COPY text that each start with an id in hex (the text ends with a line break), in id order, cut into
 * batches of at most `limits.rows` lines and about `limits.bytes`, each made in `into` when it is asked for.
 */
export function* idOrderedBatches(
  text: Buffer, limits: BatchLimits, into = new BatchBuffer(),
): Generator<{ text: Buffer; rows: number }> {
  let starts = new Uint32Array(1024);
  let n = 0;
  for (let at = 0; at < text.length; n++) {
    if (n + 1 >= starts.length) {
      const more = new Uint32Array(starts.length * 2);
      more.set(starts);
      starts = more;
    }
    starts[n] = at;
    at = text.indexOf(10, at) + 1;
    if (at === 0) throw new Error("COPY text must end with a line break");
  }
  starts[n] = text.length;
  const order = orderByPrefix(n, (i) => hexPrefix(text, starts[i]!));
  const length = (k: number) => starts[order[k]! + 1]! - starts[order[k]!]!;
  for (const [first, end, bytes] of batchSpans(n, limits, length)) {
    const batch = into.take(bytes);
    for (let k = first, to = 0; k < end; k++) {
      const line = order[k]!;
      to += text.copy(batch, to, starts[line]!, starts[line + 1]!);
    }
    yield { text: batch, rows: end - first };
  }
}
