// COPY text format: backslash starts an escape; JSON text holds no raw tab or newline.
export const copyText = (s: string | null) => (s === null ? "\\N" : s.includes("\\") ? s.replaceAll("\\", "\\\\") : s);

/** A row ready for the database: its id sits in the upload's packed ids at `at`. */
export interface PendingTestcase {
  /** Index of the row's id in the packed list. */
  at: number;
  /** The data's canonical JSON (what its id hashes), as jsonb can store it. */
  stored: string;
  flags: string | null;
  tags: string | null;
  meta: string | null;
  /** The id the row names (`__id__`) when it is not its content id. */
  claimed: string | null;
}

/** Who an upload's rows belong to: the constant columns of each row's COPY line. */
export interface RowOwner {
  projectId: string;
  testsetId: string;
  userId: string | null;
}

/** A row that names an id of its own (`__id__`): it keeps it only if that testcase holds the same data. */
export interface ClaimedRow {
  /** Index of the row's id in the upload's packed ids. */
  at: number;
  claimed: string;
  /** The data as stored (what the claimed testcase's data must equal). */
  stored: string;
  /** The row's COPY line under its content id, loaded when the claim is not kept. */
  line: string;
}

/**
 * Rows of an upload whose ids fall in one id range, as `COPY testcases` reads them, built where the rows were parsed:
 * the thread that answers requests only hands the bytes on. Lines are sorted by id; the store merges a range's blocks
 * and loads the ranges in order, so the upload fills the table's indexes page by page. The rows' order in the file is
 * kept by the packed ids.
 */
export interface RowBlock {
  /** The id range of every row (see `ID_RANGES`). */
  range: number;
  copy: Uint8Array;
  claimed: ClaimedRow[];
}

/**
 * Id ranges an upload's rows are sorted into (by their first id byte): the store holds one range's rows at a time,
 * a 64th of the file, and an upload thread one open block per range.
 */
export const ID_RANGES = 64;
/** The range of a row whose id (32 hex digits, or 16 bytes from `at`) is given. */
export const rangeOfHex = (id: string) => (parseInt(id.slice(0, 2), 16) * ID_RANGES) >> 8;
export const rangeOfBytes = (bytes: Uint8Array, at: number) => (bytes[at] * ID_RANGES) >> 8;

/** The columns a block's lines give, in order. */
export const BLOCK_COLUMNS = "id, data, flags, tags, meta, project_id, testset_id, created_by_id, chunk_key";
/** Rows of a block at most: what one embedded-database batch loads (or fewer, when their text passes `BLOCK_BYTES`). */
export const BLOCK_ROWS = 1_000;
export const BLOCK_BYTES = 256 * 1024;
/**
 * Text of a block at most: an upload thread holds an open block per range, and a line's parts while it is open (at
 * 256 KB each, a 300,000-row upload took 136 MB more memory before it was stored than with one open block).
 */
const RANGE_BLOCK_CHARS = 32 * 1024;

/** Collects pending rows of one id range into blocks. */
export class BlockBuilder {
  readonly #constants: string;
  readonly #range: number;
  #lines: string[] = [];
  #claimed: ClaimedRow[] = [];
  #chars = 0;

  constructor(owner: RowOwner, range: number) {
    this.#range = range;
    this.#constants = `\t${owner.projectId}\t${owner.testsetId}\t${owner.userId ?? "\\N"}\t`;
  }

  /** Adds a row whose id (32 hex digits) is `id`, in the chunk of key `chunkKey`; true once the block is full. */
  add(row: PendingTestcase, id: string, chunkKey: string | null): boolean {
    const fields = `${copyText(row.stored)}\t${copyText(row.flags)}\t${copyText(row.tags)}\t${copyText(row.meta)}`;
    const line = `${id}\t${fields}${this.#constants}${chunkKey ?? "\\N"}\n`;
    if (row.claimed) this.#claimed.push({ at: row.at, claimed: row.claimed, stored: row.stored, line });
    else this.#lines.push(line);
    this.#chars += line.length;
    return this.#lines.length + this.#claimed.length >= BLOCK_ROWS || this.#chars >= RANGE_BLOCK_CHARS;
  }

  get empty(): boolean {
    return this.#lines.length + this.#claimed.length === 0;
  }

  /** The rows added since the last take, as a block. */
  take(): RowBlock {
    const text = this.#lines.sort().join("");
    // A buffer of its own (a small Buffer.from shares Node's pool): the block's memory is transferred between threads.
    const copy = Buffer.allocUnsafeSlow(Buffer.byteLength(text));
    copy.write(text);
    const block = { range: this.#range, copy, claimed: this.#claimed };
    this.#lines = [];
    this.#claimed = [];
    this.#chars = 0;
    return block;
  }
}
