import { mkdtemp, open, rm, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RowBlock } from "./row-block.ts";

/** Bytes of blocks a spool holds in memory; past it they go to a temporary file. */
const IN_MEMORY = 8 * 1024 * 1024;
/** Bytes gathered before a write to the file. */
const WRITE = 1024 * 1024;
/** A block in the file: its COPY text's length, its rows, its claimed rows' JSON length; then those two. */
const HEADER = 12;

const sizeOf = (block: RowBlock) =>
  block.claimed.reduce((n, c) => n + c.line.length + c.stored.length, block.copy.byteLength);

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

  async push(block: RowBlock) {
    this.held.push(block);
    this.heldBytes += sizeOf(block);
    if (this.heldBytes >= (this.file ? WRITE : IN_MEMORY)) await this.spill();
  }

  /** The blocks pushed of id range `range`, in order. */
  async blocks(range: number): Promise<RowBlock[]> {
    if (!this.file) return this.held.filter((block) => block.range === range);
    await this.spill();
    const blocks: RowBlock[] = [];
    const header = Buffer.alloc(HEADER);
    for (const at of this.placed.get(range) ?? []) {
      await this.read(header, at);
      const copyLength = header.readUInt32LE(0);
      const rows = header.readUInt32LE(4);
      const claimedLength = header.readUInt32LE(8);
      const body = Buffer.allocUnsafeSlow(copyLength + claimedLength);
      await this.read(body, at + HEADER);
      const claimed = claimedLength ? JSON.parse(body.toString("utf8", copyLength)) : [];
      blocks.push({ range, copy: body.subarray(0, copyLength), rows, claimed });
    }
    return blocks;
  }

  /** Frees what the spool holds (its file included). */
  async close() {
    this.held = [];
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
      header.writeUInt32LE(block.rows, 4);
      header.writeUInt32LE(claimed.length, 8);
      parts.push(header, Buffer.from(block.copy.buffer, block.copy.byteOffset, block.copy.byteLength), claimed);
      const starts = this.placed.get(block.range) ?? [];
      this.placed.set(block.range, starts);
      starts.push(at);
      at += HEADER + block.copy.byteLength + claimed.length;
    }
    this.held = [];
    this.heldBytes = 0;
    const bytes = Buffer.concat(parts);
    await this.file.write(bytes, 0, bytes.length, this.written);
    this.written += bytes.length;
  }
}
