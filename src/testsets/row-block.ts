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
 * Consecutive rows of an upload as `COPY testcases` reads them, built where the rows were parsed: the thread that
 * answers requests only hands the bytes on. Lines are sorted by id, so a load fills the table's indexes page by page;
 * the rows' order in the file is kept by the packed ids.
 */
export interface RowBlock {
  copy: Uint8Array;
  rows: number;
  claimed: ClaimedRow[];
}

/** The columns a block's lines give, in order. */
export const BLOCK_COLUMNS = "id, data, flags, tags, meta, project_id, testset_id, created_by_id";
/** Rows of a block at most, or fewer when their text passes `BLOCK_BYTES`: what one embedded-database batch loads. */
export const BLOCK_ROWS = 1_000;
export const BLOCK_BYTES = 256 * 1024;

/** Collects pending rows into blocks. */
export class BlockBuilder {
  readonly #constants: string;
  #lines: string[] = [];
  #claimed: ClaimedRow[] = [];
  #chars = 0;

  constructor(owner: RowOwner) {
    this.#constants = `\t${owner.projectId}\t${owner.testsetId}\t${owner.userId ?? "\\N"}\n`;
  }

  /** Adds a row whose id (32 hex digits) is `id`; true once the block is full. */
  add(row: PendingTestcase, id: string): boolean {
    const fields = `${copyText(row.stored)}\t${copyText(row.flags)}\t${copyText(row.tags)}\t${copyText(row.meta)}`;
    const line = `${id}\t${fields}${this.#constants}`;
    if (row.claimed) this.#claimed.push({ at: row.at, claimed: row.claimed, stored: row.stored, line });
    else this.#lines.push(line);
    this.#chars += line.length;
    return this.#lines.length + this.#claimed.length >= BLOCK_ROWS || this.#chars >= BLOCK_BYTES;
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
    const block = { copy, rows: this.#lines.length + this.#claimed.length, claimed: this.#claimed };
    this.#lines = [];
    this.#claimed = [];
    this.#chars = 0;
    return block;
  }
}
