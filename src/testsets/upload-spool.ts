import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ClaimedRow, RowBlock } from "./row-block.ts";

/** Bytes of blocks a spool holds in memory; past it they go to a temporary file. */
const IN_MEMORY = 8 * 1024 * 1024;
/** Bytes gathered before a write to the file. */
const WRITE = 1024 * 1024;
/** Buffers one write to the file gathers (the system's limit on a vectored write is 1,024). */
const WRITEV_PARTS = 1020;
/** A block in the file: its COPY text's length and its claimed rows' JSON length; then those two. */
const HEADER = 8;

const sizeOf = (block: RowBlock) =>
  block.claimed.reduce((n, c) => n + c.line.length + c.stored.length, block.copy.byteLength);

/** An id range's rows as the spool gives them back: the COPY text of all its blocks, and its claimed rows. */
export interface RangeRows {
  text: Buffer;
  claimed: ClaimedRow[];
}

/**
 * Blocks of rows kept until they are read back, an id range at a time: in memory while they are few, else in a
 * temporary file that has no name (it is unlinked as soon as it is opened), so that it disappears when the spool is
 * closed or the process dies.
 */
export class UploadSpool {
  private held: RowBlock[] = [];
  private heldBytes = 0;
  private file: FileHandle | null = null;
  private written = 0;
  /** Where each range's blocks start in the file. */
  private readonly placed = new Map<number, number[]>();
  /** Bytes of COPY text of each range. */
  private readonly textBytes = new Map<number, number>();

  async push(block: RowBlock) {
    this.held.push(block);
    this.heldBytes += sizeOf(block);
    this.textBytes.set(block.range, (this.textBytes.get(block.range) ?? 0) + block.copy.byteLength);
    if (this.heldBytes >= (this.file ? WRITE : IN_MEMORY)) await this.spill();
  }

  /** The rows pushed of id range `range`: their blocks' COPY text, read into one buffer, and their claimed rows. */
  async range(range: number): Promise<RangeRows> {
    const text = Buffer.allocUnsafeSlow(this.textBytes.get(range) ?? 0);
    const claimed: ClaimedRow[] = [];
    let filled = 0;
    if (!this.file) {
      for (const block of this.held) {
        if (block.range !== range) continue;
        text.set(block.copy, filled);
        filled += block.copy.byteLength;
        claimed.push(...block.claimed);
      }
      return { text, claimed };
    }
    await this.spill();
    const header = Buffer.alloc(HEADER);
    for (const at of this.placed.get(range) ?? []) {
      await this.read(header, at);
      const copyLength = header.readUInt32LE(0);
      const claimedLength = header.readUInt32LE(4);
      await this.read(text.subarray(filled, filled + copyLength), at + HEADER);
      filled += copyLength;
      if (claimedLength) {
        const json = Buffer.allocUnsafe(claimedLength);
        await this.read(json, at + HEADER + copyLength);
        claimed.push(...(JSON.parse(json.toString("utf8")) as ClaimedRow[]));
      }
    }
    return { text, claimed };
  }

  /** Frees what the spool holds (its file included). */
  async close() {
    this.held = [];
    this.textBytes.clear();
    this.heldBytes = 0;
    await this.file?.close();
    this.file = null;
  }

  private async read(into: Buffer, position: number) {
    for (let got = 0; got < into.length;) {
      const { bytesRead } = await this.file!.read(into, got, into.length - got, position + got);
      if (!bytesRead) throw new Error("An upload's spool file ended early");
      got += bytesRead;
    }
  }

  private async spill() {
    if (!this.file) {
      const dir = await mkdtemp(join(tmpdir(), "tessera-upload-"));
      try {
        this.file = await open(join(dir, "rows"), "w+", 0o600);
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
    if (!this.held.length) return;
    const parts: Buffer[] = [];
    let at = this.written;
    for (const block of this.held) {
      const claimed = block.claimed.length ? Buffer.from(JSON.stringify(block.claimed)) : Buffer.alloc(0);
      const header = Buffer.alloc(HEADER);
      header.writeUInt32LE(block.copy.byteLength, 0);
      header.writeUInt32LE(claimed.length, 4);
      parts.push(header, Buffer.from(block.copy.buffer, block.copy.byteOffset, block.copy.byteLength), claimed);
      const starts = this.placed.get(block.range) ?? [];
      this.placed.set(block.range, starts);
      starts.push(at);
      at += HEADER + block.copy.byteLength + claimed.length;
    }
    this.held = [];
    this.heldBytes = 0;
    for (let done = 0; done < parts.length; done += WRITEV_PARTS) {
      const some = parts.slice(done, done + WRITEV_PARTS);
      const bytes = some.reduce((n, part) => n + part.length, 0);
      const { bytesWritten } = await this.file.writev(some, this.written);
      // A vectored write may stop short; the rest goes in plain writes.
      const rest = bytesWritten < bytes ? Buffer.concat(some).subarray(bytesWritten) : null;
      for (let at = 0; rest && at < rest.length;) {
        at += (await this.file.write(rest, at, rest.length - at, this.written + bytesWritten + at)).bytesWritten;
      }
      this.written += bytes;
    }
  }
}
